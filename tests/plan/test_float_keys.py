"""Float join and group keys: -0.0 and 0.0 are one key (as Arrow's `equal` and every SQL
engine say), every NaN is one group, and a NaN join key matches nothing, so a join gives
exactly the rows of its equality written as a filter over the cross product."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan

OTHER_NAN = np.frombuffer(np.array([0x7FF8000000000001], np.uint64).tobytes(), np.float64)[0]
keys = st.lists(st.sampled_from([0.0, -0.0, math.nan, OTHER_NAN, 1.5, -1.5, None]),
                max_size=12)


def _rows(table: pa.Table) -> list:
    return sorted((tuple(repr(v) for v in r.values()) for r in table.to_pylist()))


@settings(max_examples=100, deadline=None)
@given(left=keys, right=keys, how=st.sampled_from(["inner", "left", "right", "full"]))
def test_a_float_key_join_is_its_equality_over_the_cross_product(left, right, how):
    a = plan.scan("a", pa.table({"k": pa.array(left, pa.float64()),
                                 "i": pa.array(range(len(left)), pa.int64())}))
    b = plan.scan("b", pa.table({"k": pa.array(right, pa.float64()),
                                 "j": pa.array(range(len(right)), pa.int64())}))
    joined = plan.create_physical_plan(a.join(b, [("k", "k")], how)).collect()
    if how == "inner":
        crossed = a.join(b, how="cross").filter(tk.field("a.k") == tk.field("b.k"))
        assert _rows(joined) == _rows(plan.create_physical_plan(crossed).collect())
    pairs = {(i, j) for i, j in zip(joined.column("i").to_pylist(),
                                    joined.column("j").to_pylist())
             if i is not None and j is not None}
    expected = {(i, j) for i, x in enumerate(left) for j, y in enumerate(right)
                if x is not None and y is not None and x == y}  # Python's == is IEEE's
    assert pairs == expected


@settings(max_examples=100, deadline=None)
@given(values=keys)
def test_a_float_group_by_has_one_zero_group_and_one_nan_group_as_duckdb(values):
    table = pa.table({"k": pa.array(values, pa.float64())})
    con = duckdb.connect()
    con.register("tbl", table)
    got = plan.create_physical_plan(
        plan.scan("t", table).aggregate(["k"], [("count", None, "n")])).collect()
    want = con.execute("select k, count(*) as n from tbl group by k").to_arrow_table()
    # which zero names the zero group is each engine's choice (DuckDB: the first seen)
    assert _rows(got) == sorted(tuple(v.replace("-0.0", "0.0") for v in r)
                                for r in _rows(want.rename_columns(["k", "n"])))


def test_minus_zero_joins_zero_and_keeps_its_own_value():
    a = plan.scan("a", pa.table({"k": [-0.0, 2.0], "i": [1, 2]}))
    b = plan.scan("b", pa.table({"k": [0.0, math.nan], "j": [10, 20]}))
    out = plan.create_physical_plan(a.join(b, [("k", "k")], "left")).collect()
    assert list(zip(out.column("i").to_pylist(), out.column("j").to_pylist())) == [
        (1, 10), (2, None)]
    assert math.copysign(1, out.column(0)[0].as_py()) == -1  # the left row's own -0.0
