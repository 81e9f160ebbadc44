"""Joins of every kind, on keys plus a residual condition, against DuckDB's rows."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import plan

KINDS = {"inner": "INNER JOIN", "left": "LEFT JOIN", "right": "RIGHT JOIN",
         "full": "FULL JOIN", "semi": "SEMI JOIN", "anti": "ANTI JOIN"}
values = st.one_of(st.none(), st.integers(-3, 3))


def _table(draw_rows, names):
    return pa.table({n: pa.array([r[i] for r in draw_rows], pa.int64())
                     for i, n in enumerate(names)})


def _rows(table: pa.Table) -> list[tuple]:
    columns = [c.to_pylist() for c in table.columns]  # names repeat after a join
    return sorted(zip(*columns),
                  key=lambda row: [(v is None, v) for v in row])


@settings(max_examples=60, deadline=None)
@given(left=st.lists(st.tuples(values, values), max_size=8),
       right=st.lists(st.tuples(values, values), max_size=8),
       how=st.sampled_from(sorted(KINDS) + ["cross"]), with_condition=st.booleans())
def test_every_join_kind_returns_duckdbs_rows(left, right, how, with_condition):
    a, b = _table(left, ["k", "x"]), _table(right, ["k", "y"])
    condition = "a.x < b.y" if with_condition else None
    if how == "cross":
        p = plan.scan("a", a).join(plan.scan("b", b), how="cross")
        sql = "SELECT a.*, b.* FROM a CROSS JOIN b"
    else:
        p = plan.scan("a", a).join(plan.scan("b", b), [("k", "k")], how, condition=condition)
        on = "a.k = b.k" + (f" AND {condition}" if condition else "")
        columns = "a.*" if how in ("semi", "anti") else "a.*, b.*"
        sql = f"SELECT {columns} FROM a {KINDS[how]} b ON {on}"
    got = plan.create_physical_plan(p).collect()
    want = duckdb.connect().sql(sql).arrow()
    if hasattr(want, "read_all"):
        want = want.read_all()
    assert _rows(got) == _rows(want), p.explain()
    optimized = plan.create_physical_plan(plan.optimize(p)).collect()
    assert _rows(optimized) == _rows(want)


def test_join_using_gives_sparks_columns():
    a = plan.scan("a", pa.table({"k": [1, 2], "x": [10, 20]}))
    b = plan.scan("b", pa.table({"k": [2, 3], "y": [5, 6]}))
    full = a.join_using(b, "k", "full")
    assert full.schema.names == ["k", "x", "y"]
    rows = _rows(plan.create_physical_plan(full).collect())
    assert rows == [(1, 10, None), (2, 20, 5), (3, None, 6)]
    assert a.join_using(b, ["k"], "left").schema.qualified_names == ["a.k", "a.x", "b.y"]


def test_bad_joins_are_clear_errors():
    a = plan.scan("a", pa.table({"k": pa.array([1], pa.int64()), "x": [1]}))
    b = plan.scan("b", pa.table({"k": pa.array(["1"]), "y": [1]}))
    with pytest.raises(plan.PlanError, match=r"join keys a.k \(int64\) and b.k \(string\)"):
        a.join(b, [("k", "k")], "full")
    with pytest.raises(plan.PlanError, match="cross join .* no keys"):
        a.join(b, [("x", "y")], "cross")
    with pytest.raises(plan.PlanError, match="join type must be one of"):
        a.join(b, [("x", "y")], "outer")
    with pytest.raises(plan.PlanError, match="join condition must be boolean"):
        a.join(b, [("x", "y")], "left", condition="a.x + b.y")


@pytest.mark.parametrize("how", ["right", "full", "semi", "anti", "cross"])
def test_every_join_kind_writes_as_substrait_and_reads_back(how):
    a = plan.scan("a", pa.table({"k": [1], "x": [1]}))
    b = plan.scan("b", pa.table({"k": [1], "y": [1]}))
    p = a.join(b, how="cross") if how == "cross" else a.join(b, [("k", "k")], how)
    back = plan.from_substrait(p.to_substrait(), {"a": a.source, "b": b.source})
    assert back.equals(p)
