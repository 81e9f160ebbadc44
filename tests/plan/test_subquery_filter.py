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
    con = duckdb.connect()
    con.register("a", a)
    con.register("b", b)
    want = con.sql(sql).arrow()
    if hasattr(want, "read_all"):
        want = want.read_all()
    assert _rows(plan.create_physical_plan(p).collect()) == _rows(want), p.explain()
    optimized = plan.optimize(p)
    assert not any(isinstance(n, plan.SubqueryFilter) for n in optimized.walk())
    assert _rows(plan.create_physical_plan(optimized).collect()) == _rows(want)


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
    con = duckdb.connect()
    con.register("a", a)
    con.register("b", b)
    want = con.sql(sql).arrow()
    if hasattr(want, "read_all"):
        want = want.read_all()
    assert _rows(plan.create_physical_plan(p).collect()) == _rows(want), p.explain()
    optimized = plan.optimize(p)
    assert not any(isinstance(n, plan.ScalarSubquery) for n in optimized.walk())
    assert _rows(plan.create_physical_plan(optimized).collect()) == _rows(want)
    assert "logical_plan after scalar_subquery_to_join (the scalar subquery became a left " \
           "join" in p.explain(verbose=True)


def test_a_scalar_subquery_of_two_values_is_a_clear_error():
    a = plan.scan("a", pa.table({"k": [1]}))
    b = plan.scan("b", pa.table({"j": [1], "y": [2]}))
    with pytest.raises(ExprscopeError, match="one value column .* it has 2 columns"):
        plan.ScalarSubquery(a, b)
