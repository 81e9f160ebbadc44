"""Row-group verdicts at the edges of Parquet statistics, held to pyarrow's own pruning.

Nanosecond times, timestamps past the year 9999, decimals of every width, float
casts that round or overflow, NaN left out of float statistics, and uint64
statistics pyarrow cannot compare. The oracle is `fragment.subset(filter=)`;
where Arrow's skip loses rows that match, the explanation must say so.
"""

from __future__ import annotations

import decimal
import math

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import toolkit as tk
from toolkit.errors import ExprscopeError, ScanError
from toolkit.render.scan_html import scan_html

D = decimal.Decimal
INT64_MAX = 2**63 - 1


def _dataset(tmp_path, column: pa.Array, name: str = "c", rows_per_group: int | None = None):
    path = tmp_path / f"{name}.parquet"
    pq.write_table(pa.table({name: column}), path, row_group_size=rows_per_group)
    return ds.dataset(path)


def _arrow_groups(dataset: ds.Dataset, flt: pc.Expression) -> list[int]:
    (fragment,) = dataset.get_fragments()
    return [g.id for g in fragment.subset(filter=flt, schema=dataset.schema).row_groups]


def _our_groups(dataset: ds.Dataset, flt) -> list[int]:
    scan = tk.explain_scan(dataset, flt)
    return [g.id for f in scan.fragments for g in f.row_groups if g.kept]


# -- nanoseconds and every temporal unit: statistics read as physical values -------------

def test_time64_ns_statistics_keep_their_nanoseconds(tmp_path):
    dataset = _dataset(tmp_path, pa.array([1, 999], pa.time64("ns")))
    flt = pc.field("c") > pa.scalar(0, pa.time64("ns"))
    assert _our_groups(dataset, flt) == _arrow_groups(dataset, flt) == [0]
    group = tk.explain_scan(dataset, flt).fragments[0].row_groups[0]
    assert "00:00:00.000000001" in str(group.guarantee)


TEMPORAL = [pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns"), pa.date32(),
            pa.date64()] + [pa.timestamp(u, tz) for u in ("s", "ms", "us", "ns")
                            for tz in (None, "UTC", "Asia/Kolkata")]


@pytest.mark.parametrize("type_", TEMPORAL, ids=str)
def test_every_temporal_unit_prunes_as_arrow_does_at_the_bounds(tmp_path, type_):
    step = 86_400_000 if type_ == pa.date64() else 1
    raw = [v * step for v in (1, 3, 7, 9)]
    width = pa.int32() if type_.bit_width == 32 else pa.int64()
    dataset = _dataset(tmp_path, pa.array(raw, width).cast(type_), rows_per_group=2)
    for value in (0, 1, 2, 3, 7, 9, 10):
        literal = pa.scalar(value * step, width).cast(type_)
        for flt in (pc.field("c") > literal, pc.field("c") == literal,
                    pc.field("c") <= literal):
            assert _our_groups(dataset, flt) == _arrow_groups(dataset, flt), (type_, flt)


DECIMALS = [pa.decimal32(5, 2), pa.decimal64(12, 2), pa.decimal128(20, 2), pa.decimal256(45, 2)]


@pytest.mark.parametrize("type_", DECIMALS, ids=str)
def test_every_decimal_width_prunes_as_arrow_does(tmp_path, type_):
    values = [D("-12.50"), D("-1.25"), D("3.00"), D("99.99")]
    dataset = _dataset(tmp_path, pa.array(values, type_), rows_per_group=2)
    literals = [pa.scalar(v, pa.decimal128(5, 2)) for v in (D("-20.00"), D("-1.25"), D("50.00"))]
    literals += [pa.scalar(D("-4.999"), pa.decimal128(4, 3)), 2.5]
    for literal in literals:
        for flt in (pc.field("c") < literal, pc.field("c") >= literal,
                    pc.field("c").cast(pa.float64()) > 2.5):
            assert _our_groups(dataset, flt) == _arrow_groups(dataset, flt), (type_, flt)


# -- past the year 9999 ------------------------------------------------------------------

@pytest.fixture
def far_future(tmp_path):
    return _dataset(tmp_path, pa.array([0, INT64_MAX], pa.timestamp("us")), name="t")


def test_int64_max_timestamp_statistics_are_explained(far_future):
    flt = pc.field("t") > pa.scalar(2**62, pa.timestamp("us"))
    scan = tk.explain_scan(far_future, flt)
    assert _our_groups(far_future, flt) == _arrow_groups(far_future, flt) == [0]
    assert "9223372036854775807" in str(scan.fragments[0].row_groups[0].guarantee)
    before = pc.field("t") < pa.scalar(-1, pa.timestamp("us"))
    skipped = tk.explain_scan(far_future, before)
    assert _our_groups(far_future, before) == _arrow_groups(far_future, before) == []
    assert "contradicts" in tk.to_text(skipped, color=False)
    assert "4611686018427387904" in scan_html(scan, 0, 50)


def test_timestamps_python_cannot_hold_flow_through_every_entry_point():
    far = pa.scalar(2**62, pa.timestamp("us"))
    from_arrow = tk.from_pyarrow(pc.field("t") > far)
    built = tk.field("t") > far
    assert str(from_arrow) == str(built) == str(pc.field("t") > far)
    assert from_arrow.equals(built) and hash(from_arrow) == hash(built)
    table = pa.table({"t": pa.array([0, 2**62, INT64_MAX], pa.timestamp("us"))})
    bound = built.bind(table.schema)
    assert tk.evaluate(bound, table).to_pylist() == [False, False, True]
    assert tk.to_text(tk.optimize(bound)).count("4611686018427387904") == 1
    assert tk.literal(2**62, pa.timestamp("us")).value.equals(far)
    with pytest.raises(ExprscopeError, match="constant"):
        bound.to_sql()


def test_the_cli_explains_a_far_future_scan_without_a_traceback(far_future, capsys):
    from toolkit.cli.command import main
    path = next(far_future.get_fragments()).path
    assert main(["scan", path, "--filter", "t > TIMESTAMP '2024-01-01 00:00:00'"]) == 0
    captured = capsys.readouterr()
    assert "reads 1 of 1 files" in captured.out and "Traceback" not in captured.err


# -- decimals: Arrow's verdicts and decimal32/64 comparison kernels ------------------------

def test_a_finer_scaled_literal_casts_the_column_and_arrow_reads_the_group(tmp_path):
    dataset = _dataset(tmp_path, pa.array([D("-4.99"), D("1.00")], pa.decimal128(5, 2)))
    flt = pc.field("c") < pa.scalar(D("-4.999"), pa.decimal128(4, 3))
    assert _our_groups(dataset, flt) == _arrow_groups(dataset, flt) == [0]


@pytest.mark.parametrize("type_", [pa.decimal32(5, 2), pa.decimal64(5, 2)], ids=str)
def test_narrow_decimal_statistics_say_nothing_as_in_arrow(tmp_path, type_):
    dataset = _dataset(tmp_path, pa.array([D("1.00"), D("1.00")], type_))
    flt = pc.field("c").cast(pa.float64()) > 2.5
    assert _our_groups(dataset, flt) == _arrow_groups(dataset, flt) == [0]


@pytest.mark.parametrize("type_", [pa.decimal32(5, 2), pa.decimal64(15, 2)], ids=str)
@pytest.mark.parametrize("literal", [
    2.4, pa.scalar(D("2.4"), pa.decimal32(2, 1)), pa.scalar(D("2.400"), pa.decimal32(4, 3)),
    pa.scalar(D("2.40"), pa.decimal64(5, 2)), pa.scalar(D("2.40"), pa.decimal128(5, 2)),
    pa.scalar(D("2.40"), pa.decimal256(5, 2))], ids=str)
def test_decimal32_and_64_comparisons_bind_and_compute_as_pyarrow(type_, literal):
    column = pa.array([D("1.00"), D("2.40"), D("2.50"), None], type_)
    table = pa.table({"m": column})
    for op in ("less", "equal", "greater_equal"):
        ours = tk.evaluate(tk.call(op, [tk.field("m"), tk.literal(literal)]), table)
        assert ours.to_pylist() == pc.call_function(op, [column, literal]).to_pylist()


# -- range suggestions through float casts -----------------------------------------------

def test_a_float32_cast_that_overflows_is_not_called_never_true(tmp_path):
    dataset = _dataset(tmp_path, pa.array([1e39, 3e39]), name="f")
    flt = pc.field("f").cast(pa.float32(), safe=False) * 1.0 > 1e300
    (group,) = tk.explain_scan(dataset, flt).fragments[0].row_groups
    assert group.kept and group.beyond_arrow is None
    assert ds.dataset(dataset.to_table()).to_table(filter=flt).num_rows == 2


def test_an_int_cast_to_float32_rounds_and_is_not_called_never_true(tmp_path):
    dataset = _dataset(tmp_path, pa.array([16_777_217, 16_777_219]), name="i")
    flt = pc.field("i").cast(pa.float32(), safe=False) * 1.0 < 16_777_217.0
    (group,) = tk.explain_scan(dataset, flt).fragments[0].row_groups
    assert group.kept and group.beyond_arrow is None
    assert ds.dataset(dataset.to_table()).to_table(filter=flt).num_rows == 1


def test_ranges_through_exact_casts_still_rule_groups_out(tmp_path):
    dataset = _dataset(tmp_path, pa.array([5_000, 7_000]), name="i")
    flt = pc.field("i").cast(pa.float64()) * 2 < 4_000
    (group,) = tk.explain_scan(dataset, flt).fragments[0].row_groups
    assert group.kept and "never true" in group.beyond_arrow


# -- where Arrow's skip is wrong: the explanation warns -----------------------------------

NAN_FILTERS = [pc.field("x") != 1, ~(pc.field("x") <= 5),
               pc.Expression._call("is_nan", [pc.field("x")])]


@pytest.mark.parametrize("flt", NAN_FILTERS, ids=str)
def test_nan_left_out_of_statistics_is_arrows_skip_with_a_warning(tmp_path, flt):
    dataset = _dataset(tmp_path, pa.array([1.0, math.nan]), name="x")
    scan = tk.explain_scan(dataset, flt)
    (group,) = scan.fragments[0].row_groups
    assert _our_groups(dataset, flt) == _arrow_groups(dataset, flt) == []
    assert ds.dataset(dataset.to_table()).to_table(filter=flt).num_rows == 1  # the NaN row
    assert "NaN" in group.lost_rows
    assert "Arrow may lose rows" in tk.to_text(scan, color=False)
    assert "Arrow may lose rows" in scan_html(scan, 0, 50)
    assert "NaN out of x" in scan_html(scan, 0, 50)
    from widgets import ScanView
    assert "Arrow may lose rows" in ScanView(scan).table.value


def test_a_filter_false_for_nan_gets_no_warning(tmp_path):
    dataset = _dataset(tmp_path, pa.array([1.0, math.nan]), name="x")
    scan = tk.explain_scan(dataset, pc.field("x") > 5)
    assert scan.lost_rows() == [] and "lose rows" not in tk.to_text(scan, color=False)


def test_a_cast_overflowing_to_inf_is_arrows_skip_with_a_warning(tmp_path):
    dataset = _dataset(tmp_path, pa.array([1e39, 3e39]), name="f")
    flt = pc.field("f").cast(pa.float32(), safe=False) == math.inf
    (group,) = tk.explain_scan(dataset, flt).fragments[0].row_groups
    assert _our_groups(dataset, flt) == _arrow_groups(dataset, flt) == []
    assert ds.dataset(dataset.to_table()).to_table(filter=flt).num_rows == 2
    assert "becomes inf" in group.lost_rows


def test_uint64_statistics_pyarrow_cannot_compare_are_one_line(tmp_path):
    dataset = _dataset(tmp_path, pa.array([2**63 + 5, 2**64 - 1], pa.uint64()), name="u")
    with pytest.raises(pa.ArrowInvalid):
        _arrow_groups(dataset, pc.field("u") < 5)
    with pytest.raises(ScanError) as caught:
        tk.explain_scan(dataset, pc.field("u") < 5)
    message = str(caught.value)
    assert "\n" not in message
    assert "pyarrow's scan fails here too" in message and "9223372036854775813" in message
