"""Random filters over random small Parquet files: exprscope prunes row groups as Arrow does.

Each example writes a file of a few rows in row groups of 1 to 4 rows (ints,
floats with NaN, decimals of every width, a timestamp of a drawn unit and zone,
nanosecond times, dates, strings, nulls everywhere), draws a filter, and holds
two things: every row group's verdict equals pyarrow's (`fragment.subset`), and
a group called skipped holds no row that matches per the data itself, unless
the explanation warns that Arrow loses rows there.
"""

from __future__ import annotations

import decimal
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import ExprscopeError

INT64_MAX = 2**63 - 1
INTS = [-7, 0, 1, 5, 2**40, INT64_MAX]
FLOATS = [-1.5, 0.0, 1.0, 2.5, 1e39, float("nan"), float("inf")]
CENTS = [-999, -5, 0, 1, 250, 9_999]
TIMES = [0, 1, 999, 1_000, 86_399_999_999_999]
DAYS = [-1, 0, 1, 19_000, 2_932_896]
INSTANTS = {"s": [0, 1, 2**40], "ms": [0, 1, 1_000, INT64_MAX],
            "us": [0, 1, 999, INT64_MAX], "ns": [0, 1, 999, INT64_MAX]}
STRINGS = ["", "a", "b", "k05", "z"]
DECIMALS = {"d32": pa.decimal32(5, 2), "d64": pa.decimal64(12, 2),
            "d128": pa.decimal128(10, 2), "d256": pa.decimal256(40, 2)}


def _cents(n: int) -> decimal.Decimal:
    return decimal.Decimal(n).scaleb(-2)


@st.composite
def parquet_files(draw):
    """(table, rows per group): every column nullable, values from small pools."""
    n = draw(st.integers(1, 10))
    unit = draw(st.sampled_from(sorted(INSTANTS)))
    tz = draw(st.sampled_from([None, "UTC", "America/New_York"]))

    def column(pool):
        return draw(st.lists(st.none() | st.sampled_from(pool), min_size=n, max_size=n))

    columns = {
        "i": pa.array(column(INTS), pa.int64()),
        "f": pa.array(column(FLOATS), pa.float64()),
        "t": pa.array(column(TIMES), pa.int64()).cast(pa.time64("ns")),
        "day": pa.array(column(DAYS), pa.int32()).cast(pa.date32()),
        "ts": pa.array(column(INSTANTS[unit]), pa.int64()).cast(pa.timestamp(unit, tz)),
        "s": pa.array(column(STRINGS), pa.string()),
    }
    for name, type_ in DECIMALS.items():
        columns[name] = pa.array([None if c is None else _cents(c) for c in column(CENTS)],
                                 type_)
    return pa.table(columns), draw(st.integers(1, 4))


def _literal(draw, name: str, table: pa.Table):
    type_ = table.schema.field(name).type
    if name == "i":
        return pa.scalar(draw(st.sampled_from(INTS)), pa.int64())
    if name == "f":
        return pa.scalar(draw(st.sampled_from(FLOATS)))
    if name == "t":
        return pa.scalar(draw(st.sampled_from(TIMES)), pa.int64()).cast(type_)
    if name == "day":
        return pa.scalar(draw(st.sampled_from(DAYS)), pa.int32()).cast(type_)
    if name == "ts":
        return pa.scalar(draw(st.sampled_from(INSTANTS[type_.unit])), pa.int64()).cast(type_)
    if name == "s":
        return pa.scalar(draw(st.sampled_from(STRINGS)))
    value = _cents(draw(st.sampled_from(CENTS)))
    literal_type = draw(st.sampled_from([type_, pa.decimal128(6, 2), pa.decimal128(7, 3),
                                         pa.decimal256(6, 2), pa.float64()]))
    if literal_type == pa.float64():
        return pa.scalar(float(value))
    return pa.scalar(value, literal_type)


@st.composite
def filters(draw, table: pa.Table):
    def atom():
        name = draw(st.sampled_from(table.column_names))
        kind = draw(st.sampled_from(["<", "<=", "==", "!=", ">", ">=", "null", "nan", "cast"]))
        field = pc.field(name)
        if kind == "null":
            return field.is_null()
        if kind == "nan" and name == "f":
            return pc.Expression._call("is_nan", [field])
        if kind == "cast" and name in ("i", "f"):
            target = draw(st.sampled_from([pa.float32(), pa.float64()]))
            cast = field.cast(target, safe=False)
            return cast * 1.0 > draw(st.sampled_from([0.0, 1e300, 16_777_216.0]))
        value = _literal(draw, name, table)
        ops = {"<": field < value, "<=": field <= value, "==": field == value,
               "!=": field != value, ">": field > value, ">=": field >= value}
        return ops.get(kind, field >= value)

    expr = atom()
    for _ in range(draw(st.integers(0, 2))):
        how = draw(st.sampled_from(["and", "or", "not"]))
        expr = ~expr if how == "not" else (expr & atom() if how == "and" else expr | atom())
    return expr


@given(data=st.data(), file=parquet_files())
def test_row_group_verdicts_are_arrows_and_skips_lose_no_row_unwarned(data, file):
    table, rows_per_group = file
    flt = data.draw(filters(table))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "part.parquet"
        pq.write_table(table, path, row_group_size=rows_per_group)
        dataset = ds.dataset(path)
        (fragment,) = dataset.get_fragments()
        try:
            arrow = [g.id for g in fragment.subset(filter=flt, schema=dataset.schema).row_groups]
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            try:
                tk.explain_scan(dataset, flt)
            except ExprscopeError:
                return
            raise AssertionError(f"pyarrow refuses {flt}, exprscope explains it")
        scan = tk.explain_scan(dataset, flt)
        groups = scan.fragments[0].row_groups
        assert [g.id for g in groups if g.kept] == arrow, str(flt)
        start = 0
        for group in groups:
            rows = table.slice(start, group.num_rows)
            start += group.num_rows
            if group.kept:
                continue
            matching = ds.dataset(rows).to_table(filter=flt).num_rows
            assert matching == 0 or group.lost_rows, (str(flt), group.id, group.guarantee)
