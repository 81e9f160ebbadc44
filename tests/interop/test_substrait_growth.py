"""Reading and writing Substrait grows linearly in a plan's width and depth.

Growth is counted in Python calls (cProfile), not timed: ten times the columns
or the levels must cost at most about ten times the calls. A lookup that walks
the whole schema for each column (the reader once rebuilt every qualified name
per column: 8,000 columns took seconds) makes it a hundred times.
"""

from __future__ import annotations

import cProfile
import pstats

import pyarrow as pa
import pytest
from datafusion import SessionContext
from datafusion.substrait import Serde

import toolkit as tk
from toolkit import plan

SMALL, LARGE = 100, 1_000
# linear work gives 10x; the fixed cost of a call (decoding, the root) gives a little slack
GROWTH = 12


def _calls(step, *args) -> int:
    """Python function calls `step(*args)` makes: the same on every run, whatever the load."""
    profile = cProfile.Profile()
    profile.enable()
    try:
        step(*args)
    finally:
        profile.disable()
    return pstats.Stats(profile).total_calls


def _wide_table(n: int) -> pa.Table:
    return pa.table({f"c{i}": pa.array([i, None], pa.int64()) for i in range(n)})


def _one_column() -> plan.LogicalPlan:
    return plan.scan("t", pa.table({"a": pa.array([1, 2, None], pa.int64())}))


WIDE_PLANS = {
    "computed columns": lambda n, w: _one_column().project(
        [tk.field("a") + i for i in range(n)], names=[f"d{i}" for i in range(n)]),
    "a plain read": lambda n, w: w,
    "columns passed on, reordered": lambda n, w: w.project(
        [f"c{i}" for i in reversed(range(n))]),
    "a filter over a wide read": lambda n, w: w.filter(tk.field(f"c{n - 1}") > 0),
    "an aggregate of many keys and measures": lambda n, w: w.aggregate(
        [f"c{i}" for i in range(n // 2)], [("sum", f"c{i}", f"s{i}") for i in range(n // 2, n)]),
    "a sort by every column": lambda n, w: w.sort([(f"c{i}", "ascending") for i in range(n)]),
    "a join of two wide reads": lambda n, w: w.join(
        plan.scan("u", _wide_table(n)), on=[("c0", "c0")]),
}


def _sources(p: plan.LogicalPlan) -> dict:
    found, stack = {}, [p]
    while stack:
        node = stack.pop()
        if isinstance(node, plan.TableScan):
            found[node.relation] = node.source
        stack.extend(node.children)
    return found


def _costs(make, n: int) -> tuple[int, int]:
    p = make(n, plan.scan("w", _wide_table(n)))
    data = p.to_substrait()
    sources = _sources(p)
    back = plan.from_substrait(data, sources)
    assert back.equals(p), (p.explain(), back.explain())
    return _calls(p.to_substrait), _calls(plan.from_substrait, data, sources)


@pytest.mark.parametrize("shape", list(WIDE_PLANS))
def test_ten_times_the_columns_costs_ten_times_the_calls(shape):
    (write_small, read_small), (write_large, read_large) = (
        _costs(WIDE_PLANS[shape], n) for n in (SMALL, LARGE))
    assert write_large <= GROWTH * write_small, ("write", write_small, write_large)
    assert read_large <= GROWTH * read_small, ("read", read_small, read_large)


def test_datafusion_wide_plans_read_in_calls_linear_in_their_width():
    """DataFusion's own messages: a projection computing a column from each column."""
    costs = []
    for n in (SMALL, LARGE):
        table = _wide_table(n)
        ctx = SessionContext()
        ctx.register_record_batches("w", [table.to_batches()])
        sql = "select " + ", ".join(f"c{i} * 2 + 1 as d{i}" for i in range(n)) + " from w"
        data = Serde.serialize_bytes(sql, ctx)
        p = plan.from_substrait(data, {"w": table})
        assert p.schema.names == [f"d{i}" for i in range(n)]
        costs.append(_calls(plan.from_substrait, data, {"w": table}))
    assert costs[1] <= GROWTH * costs[0], costs


def test_ten_times_the_rels_costs_ten_times_the_calls():
    """In depth: a chain of filters and projections, 4 and 40 rels deep."""
    costs = []
    for depth in (4, 40):
        p = plan.scan("w", _wide_table(20))
        for i in range(depth - 1):
            p = p.filter(tk.field("c1") > i) if i % 2 else p.project(
                [tk.field(f"c{j}") + 1 if j == i % 20 else f"c{j}" for j in range(20)],
                names=[f"c{j}" for j in range(20)])
        data = p.to_substrait()
        sources = _sources(p)
        assert plan.from_substrait(data, sources).equals(p)
        costs.append((_calls(p.to_substrait), _calls(plan.from_substrait, data, sources)))
    (write_small, read_small), (write_large, read_large) = costs
    assert write_large <= GROWTH * write_small, ("write", write_small, write_large)
    assert read_large <= GROWTH * read_small, ("read", read_small, read_large)


def test_ten_times_the_levels_of_an_expression_costs_ten_times_the_calls():
    """In depth within one expression: 3 and 30 levels (30 is about what protobuf's
    readers take), written and read back."""
    schema = pa.schema([("x", pa.int64())])
    costs = []
    for depth in (3, 30):
        e = tk.field("x")
        for i in range(depth):
            e = e + i
        data = e.to_substrait(schema)
        assert tk.from_substrait(data).equals(e.bind(schema))
        costs.append((_calls(e.to_substrait, schema), _calls(tk.from_substrait, data)))
    (write_small, read_small), (write_large, read_large) = costs
    assert write_large <= GROWTH * write_small, ("write", write_small, write_large)
    assert read_large <= GROWTH * read_small, ("read", read_small, read_large)


def test_ten_times_the_expressions_in_one_message_costs_ten_times_the_calls():
    """In width within an ExtendedExpression: one expression per column of a wide schema."""
    costs = []
    for n in (SMALL, LARGE):
        schema = _wide_table(n).schema
        named = {f"e{i}": tk.field(f"c{i}") * 2 for i in range(n)}
        data = tk.to_substrait(named, schema)
        assert len(tk.from_substrait_all(data).expressions) == n
        costs.append((_calls(tk.to_substrait, named, schema),
                      _calls(tk.from_substrait_all, data)))
    (write_small, read_small), (write_large, read_large) = costs
    assert write_large <= GROWTH * write_small, ("write", write_small, write_large)
    assert read_large <= GROWTH * read_small, ("read", read_small, read_large)
