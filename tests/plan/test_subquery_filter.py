"""[NOT] EXISTS and [NOT] IN subqueries as SubqueryFilter nodes, decorrelated into semi and
anti joins by the optimizer, and scalar subqueries as ScalarSubquery nodes, made left
joins, against DuckDB's rows (NOT IN's nulls included)."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.errors import ExprscopeError

values = st.one_of(st.none(), st.integers(-2, 2))
pairs = st.lists(st.tuples(values, values), max_size=7)


def _rows(table: pa.Table) -> list[tuple]:
    return sorted(zip(*[c.to_pylist() for c in table.columns]),
                  key=lambda row: [(v is None, v) for v in row])

def _same_rows_as_duckdb_before_and_after_optimizing(p, sql: str, a: pa.Table, b: pa.Table):
    """Assert `p` gives DuckDB's rows of `sql` over tables a and b, unoptimized and
    optimized; return the optimized plan."""
    con = duckdb.connect()
    con.register("a", a)
    con.register("b", b)
    want = con.sql(sql).arrow()
    if hasattr(want, "read_all"):
        want = want.read_all()
    assert _rows(plan.create_physical_plan(p).collect()) == _rows(want), p.explain()
    optimized = plan.optimize(p)
    assert _rows(plan.create_physical_plan(optimized).collect()) == _rows(want)
    return optimized



@settings(max_examples=60, deadline=None)
@given(left=pairs, right=pairs, kind=st.sampled_from(["exists", "in"]), negated=st.booleans(),
       correlated=st.booleans())
def test_subquery_filters_return_duckdbs_rows(left, right, kind, negated, correlated):
    a = pa.table({"k": pa.array([r[0] for r in left], pa.int64()),
                  "x": pa.array([r[1] for r in left], pa.int64())})
    b = pa.table({"j": pa.array([r[0] for r in right], pa.int64()),
                  "y": pa.array([r[1] for r in right], pa.int64())})
    outer, inner = plan.scan("a", a), plan.scan("b", b)
    ties, where = [], []
    if correlated:  # the subquery's WHERE b.y < a.x
        ties.append(tk.field("b.y") < tk.field("a.x"))
        where.append("b.y < a.x")
    if kind == "in":
        equal = tk.field("a.k") == tk.field("b.j")
        ties.append(tk.or_(equal, tk.is_null(equal)) if negated else equal)
        inner_sql = "SELECT j FROM b" + (f" WHERE {where[0]}" if where else "")
        sql = f"SELECT * FROM a WHERE k {'NOT ' if negated else ''}IN ({inner_sql})"
    else:
        inner_sql = "SELECT * FROM b" + (f" WHERE {where[0]}" if where else "")
        sql = f"SELECT * FROM a WHERE {'NOT ' if negated else ''}EXISTS ({inner_sql})"
    condition = None if not ties else (ties[0] if len(ties) == 1 else tk.and_(ties))
    p = plan.SubqueryFilter(outer, inner, kind, negated, [], condition)
    optimized = _same_rows_as_duckdb_before_and_after_optimizing(p, sql, a, b)
    assert not any(isinstance(n, plan.SubqueryFilter) for n in optimized.walk())


def test_the_trace_shows_the_subquery_becoming_a_join():
    a = plan.scan("a", pa.table({"k": [1, 2, 3]}))
    b = plan.scan("b", pa.table({"j": [2, 3, 4]}))
    p = plan.SubqueryFilter(a, b, "in", False, [("a.k", "b.j")])
    assert p.label() == "Filter: IN (subquery) where a.k = b.j"
    text = p.explain(verbose=True)
    assert ("logical_plan after decorrelate_predicate_subquery (the IN subquery became a semi "
            "join on a.k = b.j)") in text
    assert "LeftSemi Join: a.k = b.j" in text


@settings(max_examples=40, deadline=None)
@given(left=pairs, right=pairs, correlated=st.booleans())
def test_scalar_subqueries_return_duckdbs_rows(left, right, correlated):
    a = pa.table({"k": pa.array([r[0] for r in left], pa.int64()),
                  "x": pa.array([r[1] for r in left], pa.int64())})
    b = pa.table({"j": pa.array([r[0] for r in right], pa.int64()),
                  "y": pa.array([r[1] for r in right], pa.int64())})
    outer, inner = plan.scan("a", a), plan.scan("b", b)
    if correlated:  # (SELECT max(y) FROM b WHERE b.j = a.k), grouped by j to join on it
        sub = inner.aggregate(["b.j"], [("max", tk.field("b.y"), "m")])
        sub = sub.project([tk.field("m"), tk.field("b.j")], names=["m", "j"])
        p = plan.ScalarSubquery(outer, sub, [("a.k", "j")])
        sql = "SELECT a.*, (SELECT max(y) FROM b WHERE b.j = a.k) AS m FROM a"
    else:
        sub = inner.aggregate([], [("max", tk.field("b.y"), "m")])
        p = plan.ScalarSubquery(outer, sub)
        sql = "SELECT a.*, (SELECT max(y) FROM b) AS m FROM a"
    p = p.project(["a.k", "a.x", "m"])
    optimized = _same_rows_as_duckdb_before_and_after_optimizing(p, sql, a, b)
    assert not any(isinstance(n, plan.ScalarSubquery) for n in optimized.walk())
    assert "logical_plan after scalar_subquery_to_join (the scalar subquery became a left " \
           "join" in p.explain(verbose=True)


def test_a_scalar_subquery_of_two_values_is_a_clear_error():
    a = plan.scan("a", pa.table({"k": [1]}))
    b = plan.scan("b", pa.table({"j": [1], "y": [2]}))
    with pytest.raises(ExprscopeError, match="one value column .* it has 2 columns"):
        plan.ScalarSubquery(a, b)


FUNCS = {"count(*)": ("count", None), "count(y)": ("count", "b.y"), "sum(y)": ("sum", "b.y"),
         "min(y)": ("min", "b.y"), "max(y)": ("max", "b.y"), "avg(y)": ("mean", "b.y")}
triples = st.lists(st.tuples(values, values, values), max_size=8)


_DUCKDB = duckdb.connect()  # one connection: each example registers its tables anew


def _duckdb(sql: str, **tables) -> pa.Table:
    for name, table in tables.items():
        _DUCKDB.register(name, table)
    want = _DUCKDB.sql(sql).arrow()
    return want.read_all() if hasattr(want, "read_all") else want


@settings(max_examples=50, deadline=None)
@given(left=triples, right=triples, func=st.sampled_from(sorted(FUNCS)),
       keys=st.integers(1, 2), inner_filter=st.booleans(), plus_one=st.booleans())
def test_correlated_scalar_subqueries_return_duckdbs_rows(left, right, func, keys,
                                                          inner_filter, plus_one):
    """`(SELECT f(y) [+ 1] FROM b WHERE b.j = a.k [AND b.j2 = a.k2] [AND b.y > 0])`: kept
    correlated in the plan, decorrelated by the optimizer, and equal to DuckDB's rows
    both ways (outer rows without a match: count 0, count + 1 is 1, the others null)."""
    a = pa.table({name: pa.array([r[i] for r in left], pa.int64())
                  for i, name in enumerate(["k", "k2", "x"])})
    b = pa.table({name: pa.array([r[i] for r in right], pa.int64())
                  for i, name in enumerate(["j", "j2", "y"])})
    rows = plan.scan("b", b)
    if inner_filter:
        rows = rows.filter(tk.field("b.y") > 0)
    name, arg = FUNCS[func]
    sub = rows.aggregate([], [(name, arg, "v")])
    value = tk.field("v") + 1 if plus_one else tk.field("v")
    sub = sub.project([value], names=["m"])
    correlation = [("a.k", "b.j"), ("a.k2", "b.j2")][:keys]
    p = plan.ScalarSubquery(plan.scan("a", a), sub, correlation=correlation)
    assert p.label().startswith("ScalarSubquery: correlated m where b.j = outer a.k")
    where = " AND ".join(["b.j = a.k", "b.j2 = a.k2"][:keys] + (["b.y > 0"] if inner_filter
                                                                   else []))
    want = _duckdb(f"SELECT a.*, (SELECT {func}{' + 1' if plus_one else ''} FROM b WHERE "
                   f"{where}) AS m FROM a", a=a, b=b)
    assert _rows(plan.create_physical_plan(p).collect()) == _rows(want), p.explain()
    optimized = plan.optimize(p)
    assert not any(isinstance(n, plan.ScalarSubquery) for n in optimized.walk())
    assert _rows(plan.create_physical_plan(optimized).collect()) == _rows(want), \
        optimized.explain()


def test_the_trace_shows_the_correlated_subquery_grouped_then_joined():
    a = plan.scan("a", pa.table({"k": [1, 2, 3]}))
    b = plan.scan("b", pa.table({"j": [2, 3, 3], "y": [5, 6, 7]}))
    sub = b.aggregate([], [("count", None, "n")])
    p = plan.ScalarSubquery(a, sub, correlation=[("k", "j")])
    assert p.label() == "ScalarSubquery: correlated n where b.j = outer a.k"
    text = p.explain(verbose=True)
    assert ("logical_plan after decorrelate_scalar_subquery (the correlated scalar subquery "
            "(b.j = outer a.k) became one grouped by b.j, each input row matched with its "
            "group; a row without a group gets 0, the subquery's value over no rows, not "
            "null)") in text
    assert "Aggregate: groupBy=[b.j], aggr=[count(*) AS n]" in text
    assert "logical_plan after scalar_subquery_to_join (the scalar subquery became a left " \
           "join on a.k = b.j)" in text
    assert text.index("decorrelate_scalar_subquery") < text.index("scalar_subquery_to_join")
    got = plan.create_physical_plan(plan.optimize(p)).collect()
    assert _rows(got) == [(1, 0), (2, 1), (3, 2)]


def test_a_self_correlated_subquery_keeps_its_key_apart_from_the_input():
    """`(SELECT max(x) FROM t AS t WHERE t.k = outer t.k)` over the same relation name: the
    grouped key is renamed so the join's columns stay unique."""
    t = pa.table({"k": [1, 1, 2, None], "x": [3, 4, 5, 6]})
    sub = plan.scan("t", t).aggregate([], [("max", "t.x", "m")])
    p = plan.ScalarSubquery(plan.scan("t", t), sub, correlation=[("t.k", "t.k")])
    optimized = plan.optimize(p)
    assert optimized.schema == p.schema
    got = plan.create_physical_plan(optimized).collect()
    assert _rows(got) == [(1, 3, 4), (1, 4, 4), (2, 5, 5), (None, 6, None)]


@pytest.mark.parametrize("build, message", [
    (lambda a, b: plan.ScalarSubquery(a, b.aggregate(["b.j"], [("max", "b.y", "m")])
                                      .project(["m"]), correlation=[("a.k", "b.j")]),
     "aggregate without groups"),
    (lambda a, b: plan.ScalarSubquery(a, b.project(["b.y"]), correlation=[("a.k", "b.j")]),
     "aggregate without groups"),
    (lambda a, b: plan.ScalarSubquery(a, b.aggregate([], [("max", "b.y", "m")]),
                                      correlation=[("a.k", "b.s")]),
     r"compares b.s \(string\) with the input's a.k \(int64\)"),
    (lambda a, b: plan.ScalarSubquery(a, b.aggregate([], [("max", "b.y", "m")]),
                                      correlation=[("a.k", "b.nope")]), "nope"),
])
def test_a_correlated_subquery_that_cannot_be_is_a_clear_error(build, message):
    a = plan.scan("a", pa.table({"k": [1]}))
    b = plan.scan("b", pa.table({"j": [1], "y": [2], "s": ["x"]}))
    with pytest.raises(ExprscopeError, match=message):
        build(a, b)
