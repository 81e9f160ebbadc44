"""UNION ALL and UNION (distinct) as plan nodes, against DuckDB's rows; the union's
invariants (same width, same type in each position) as clear errors."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.errors import ExprscopeError

rows = st.lists(st.tuples(st.one_of(st.none(), st.integers(-2, 2)),
                          st.one_of(st.none(), st.sampled_from(["p", "q", ""]))), max_size=8)


def _table(draw_rows, names):
    return pa.table({names[0]: pa.array([r[0] for r in draw_rows], pa.int64()),
                     names[1]: pa.array([r[1] for r in draw_rows], pa.string())})


def _rows(table: pa.Table) -> list[tuple]:
    return sorted(zip(*[c.to_pylist() for c in table.columns]),
                  key=lambda row: [(v is None, v) for v in row])


@settings(max_examples=60, deadline=None)
@given(inputs=st.lists(rows, min_size=2, max_size=4), distinct=st.booleans(),
       filtered=st.booleans())
def test_union_returns_duckdbs_rows(inputs, distinct, filtered):
    tables = {f"t{i}": _table(r, [f"k{i}", f"s{i}"]) for i, r in enumerate(inputs)}
    scans = [plan.scan(name, t) for name, t in tables.items()]
    p = scans[0].union(*scans[1:], distinct=distinct)
    keyword = " UNION " if distinct else " UNION ALL "
    sql = keyword.join(f"SELECT * FROM {name}" for name in tables)
    if filtered:  # a filter over the union reads the first input's names
        p = p.filter(tk.field("k0") > 0)
        sql = f"SELECT * FROM ({sql}) AS u WHERE k0 > 0"
    con = duckdb.connect()
    for name, t in tables.items():
        con.register(name, t)
    want = con.sql(sql).arrow()
    if hasattr(want, "read_all"):
        want = want.read_all()
    got = plan.create_physical_plan(p).collect()
    assert got.schema.names == ["k0", "s0"]
    assert _rows(got) == _rows(want), p.explain()
    assert _rows(plan.create_physical_plan(plan.optimize(p)).collect()) == _rows(want)


def test_union_output_is_nullable_where_any_input_is():
    a = plan.scan("a", pa.table({"x": pa.array([1], pa.int64())},
                                schema=pa.schema([pa.field("x", pa.int64(), False)])))
    b = plan.scan("b", pa.table({"y": pa.array([None], pa.int64())}))
    u = a.union(b)
    assert u.schema.field("a.x").nullable
    assert u.label() == "Union: 2 inputs"
    physical = plan.create_physical_plan(u)
    assert physical.schema.field("x").nullable
    assert physical.collect().column("x").to_pylist() == [1, None]


def test_union_of_different_widths_is_a_clear_error():
    a = plan.scan("a", pa.table({"x": [1], "y": ["p"]}))
    b = plan.scan("b", pa.table({"z": [2]}))
    with pytest.raises(ExprscopeError, match=r"same number of columns: input 0 has 2 "
                                             r"\(x, y\), input 1 has 1 \(z\)"):
        a.union(b)


def test_union_of_different_types_is_a_clear_error():
    a = plan.scan("a", pa.table({"x": [1], "y": ["p"]}))
    b = plan.scan("b", pa.table({"x": ["1"], "y": ["q"]}))
    with pytest.raises(ExprscopeError, match=r"column 0 has type int64 in input 0 \(x\) but "
                                             r"string in input 1 \(x\); cast one"):
        a.union(b)
    with pytest.raises(ExprscopeError, match="at least two inputs"):
        plan.Union([a])


def test_pruning_below_a_union_keeps_every_input_whole():
    a = plan.scan("a", pa.table({"x": [1, 2], "y": ["p", "q"]}))
    b = plan.scan("b", pa.table({"u": [3], "v": ["r"]}))
    p = a.union(b).project(["a.x"])
    optimized = plan.optimize(p)
    assert _rows(plan.create_physical_plan(optimized).collect()) == [(1,), (2,), (3,)]
    text = plan.create_physical_plan(optimized).explain()
    assert "UnionExec: 2 inputs" in text
