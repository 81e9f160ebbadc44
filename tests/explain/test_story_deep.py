"""A row's story on a tree thousands of nodes deep: every node's value, computed with the
work of a few evaluations, not one evaluation per node."""

from __future__ import annotations

import pyarrow as pa

import toolkit as tk
from toolkit.explain import story as story_module


def _chain(depth: int) -> tk.Expression:
    expr = tk.field("a")
    for i in range(depth):
        expr = tk.call("add" if i % 2 else "multiply", [expr, tk.literal(i % 3 + 1)])
    return expr


def test_a_deep_chains_story_has_every_value_and_costs_a_few_evaluations(monkeypatch):
    calls = []
    real = story_module.evaluate

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(story_module, "evaluate", counted)
    table = pa.table({"a": pa.array([None, 2, 3], pa.int64())})
    depth = 2_000
    story = tk.explain_row(_chain(depth), table, 1)
    want = tk.evaluate(_chain(depth), table)[1]
    assert story.value == want
    assert len(calls) <= 3  # the traced run and the field it reads; no node evaluated alone
    assert story.node("root").value == want
    computed = [n for n in story.nodes if n.evaluated]
    assert len(computed) == 2 * depth + 1
    assert all(n.value is not None and n.value.is_valid for n in computed)
    # the innermost call: a times 1
    assert story.node((0,) * (depth - 1)).value.as_py() == 2
