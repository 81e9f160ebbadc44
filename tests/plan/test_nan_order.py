"""Floats sort in SQL's order: NaN above every number, whichever end the nulls go to.
Checked against DuckDB (which orders NaN as Spark, DataFusion and PostgreSQL do) on
random columns of numbers, NaN, -0.0, infinities and nulls, in every direction and
null placement, for a Sort with a limit and for a window's row numbers and ranks."""

from __future__ import annotations

import math

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import plan

values = st.one_of(st.none(), st.just(math.nan), st.just(-0.0), st.just(0.0),
                   st.just(math.inf), st.just(-math.inf),
                   st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 1)))
columns = st.lists(values, max_size=30)


def _table(drawn) -> pa.Table:
    return pa.table({"id": pa.array(range(len(drawn)), pa.int64()),
                     "g": pa.array([i % 3 for i in range(len(drawn))], pa.int64()),
                     "x": pa.array(drawn, pa.float64())})


def _duckdb(table: pa.Table, sql: str) -> list:
    con = duckdb.connect()
    con.register("t", table)
    return con.execute(sql).fetchall()


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


@settings(max_examples=200, deadline=None)
@given(drawn=columns, ascending=st.booleans(), nulls_first=st.booleans(),
       limit=st.one_of(st.none(), st.integers(0, 10)))
def test_a_sort_places_nan_above_every_number(drawn, ascending, nulls_first, limit):
    table = _table(drawn)
    p = plan.scan("t", table).sort([("x", "ascending" if ascending else "descending",
                                     "nulls_first" if nulls_first else "nulls_last"), "id"])
    if limit is not None:
        p = p.limit(limit)
    got = plan.create_physical_plan(p).collect()
    ours = list(zip(got.column("id").to_pylist(), got.column("x").to_pylist()))
    order = (f"x {'ASC' if ascending else 'DESC'} NULLS {'FIRST' if nulls_first else 'LAST'}"
             ", id")
    expected = _duckdb(table, f"SELECT id, x FROM t ORDER BY {order}"
                       + ("" if limit is None else f" LIMIT {limit}"))
    # -0.0 and 0.0 are equal keys: the id breaks their tie in both engines
    assert [i for i, _ in ours] == [i for i, _ in expected], (order, ours, expected)


@settings(max_examples=150, deadline=None)
@given(drawn=columns, ascending=st.booleans(), nulls_first=st.booleans(),
       func=st.sampled_from(["row_number", "rank", "dense_rank"]))
def test_window_ranks_order_nan_above_every_number(drawn, ascending, nulls_first, func):
    table = _table(drawn)
    order = [("x", "ascending" if ascending else "descending",
              "nulls_first" if nulls_first else "nulls_last")]
    if func == "row_number":
        order.append("id")
    p = plan.scan("t", table).window(
        [{"func": func, "partition_by": ["g"], "order_by": order}], ["w"])
    got = plan.create_physical_plan(p).collect()
    ours = dict(zip(got.column("id").to_pylist(), got.column("w").to_pylist()))
    sql_order = (f"x {'ASC' if ascending else 'DESC'} NULLS {'FIRST' if nulls_first else 'LAST'}"
                 + (", id" if func == "row_number" else ""))
    expected = dict(_duckdb(table, f"SELECT id, {func}() OVER (PARTITION BY g ORDER BY "
                                   f"{sql_order}) FROM t"))
    assert ours == expected


def test_descending_puts_nan_first_and_nulls_where_asked():
    table = _table([1.0, None, math.nan, 3.0, -1.0])
    for placement, expected in (("nulls_last", [2, 3, 0, 4, 1]),
                                ("nulls_first", [1, 2, 3, 0, 4])):
        p = plan.scan("t", table).sort([("x", "descending", placement)])
        got = plan.create_physical_plan(p).collect().column("id").to_pylist()
        assert got == expected, placement
