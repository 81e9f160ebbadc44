"""[NOT] EXISTS and [NOT] IN subqueries as SubqueryFilter nodes, decorrelated into semi and
anti joins by the optimizer, against DuckDB's rows (NOT IN's nulls included)."""

from __future__ import annotations

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan

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
