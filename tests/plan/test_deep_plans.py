"""Plans thousands of operators deep optimize, explain, plan and run, with the right answer.

Walks over plans are iterative (no RecursionError), the optimizer looks at each
node a bounded number of times, and a physical plan deeper than the streaming
depth runs level by level. Answers are held to DuckDB on the same data.
"""

from __future__ import annotations

import sys

import duckdb
import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan

TABLE = pa.table({"a": list(range(200)), "b": [i % 7 for i in range(200)]})


def _filters(n: int):
    p = plan.scan("t", TABLE)
    for i in range(n):
        p = p.filter(tk.field("a") > i % 50)
    return p


def _duckdb(sql: str) -> int:
    t = TABLE  # noqa: F841 - read by DuckDB by name
    return duckdb.sql(sql).fetchall()[0][0]


def test_a_thousand_filters_optimize_explain_and_collect():
    p = _filters(1_000)
    optimized = plan.optimize(p)
    assert sum(1 for _ in optimized.walk()) < 10  # merged into one filter over the scan
    assert "Filter" in p.explain() and "logical_plan after" in p.explain(verbose=True)
    out = plan.create_physical_plan(p).collect()
    assert out.num_rows == _duckdb("SELECT count(*) FROM t WHERE a > 49")


def test_five_thousand_stacked_nodes_plan_and_run_without_recursion_error():
    p = plan.scan("t", TABLE)
    for i in range(2_500):
        p = p.filter(tk.field("a") >= 0) if i % 2 else p.project(
            [tk.field("a"), tk.field("b")], names=["a", "b"])
    p = p.filter(tk.field("b") == 3)
    physical = plan.create_physical_plan(p)  # not optimized: all 2,500 nodes stay
    assert physical.collect().num_rows == _duckdb("SELECT count(*) FROM t WHERE b = 3")
    assert len(physical.explain().splitlines()) >= 2_500


@pytest.mark.parametrize("kind", ["project", "aggregate", "sort", "limit", "join"])
def test_deep_plans_of_every_kind_give_the_shallow_answer(kind):
    deep = plan.scan("t", TABLE)
    for _ in range(600):
        if kind == "project":
            deep = deep.project([tk.field("a"), tk.field("b")], names=["a", "b"])
        elif kind == "sort":
            deep = deep.sort([("a", "descending")])
        elif kind == "limit":
            deep = deep.limit(150)
        else:
            deep = deep.filter(tk.field("a") >= 0)
    if kind == "aggregate":
        deep = deep.aggregate([tk.field("b")], [("count", tk.field("a"), "n")])
        want = _duckdb("SELECT count(*) FROM (SELECT b FROM t GROUP BY b)")
    elif kind == "join":
        other = plan.scan("u", TABLE.rename_columns(["x", "y"]))
        deep = deep.join(other, on=[("t.a", "u.x")])
        want = 200
    elif kind == "limit":
        want = 150
    else:
        want = 200
    for p in (deep, plan.optimize(deep)):
        assert plan.create_physical_plan(p).collect().num_rows == want


@pytest.mark.parametrize("kind", ["limit", "sort"])
def test_chains_deeper_than_the_recursion_limit_optimize_with_columns_pruned(kind):
    wide = pa.table({"a": list(range(200)), "b": [i % 7 for i in range(200)],
                     "unused": [0] * 200})
    deep = plan.scan("t", wide)
    for _ in range(2 * sys.getrecursionlimit()):
        deep = deep.limit(150) if kind == "limit" else deep.sort([("a", "descending")])
    deep = deep.project(["a", "b"])
    optimized = plan.optimize(deep)  # column pruning walks the whole chain at once
    scan = next(n for n in optimized.walk() if isinstance(n, plan.TableScan))
    assert scan.projection == ("a", "b")
    got = plan.create_physical_plan(optimized).collect()
    assert got.num_rows == (150 if kind == "limit" else 200)
