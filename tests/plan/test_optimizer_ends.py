"""The optimizer ends: substitution never feeds on itself, and the rounds are bounded.

The repros that once looped run in a child process with a time and memory limit
(`bounded_child`), so a regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

import toolkit as tk
from tests.plan.bounded_child import run_bounded
from toolkit import plan

# Projections that recompute a column from itself, filters between them: each merge
# puts `b + 1` where `b` was, and a substitution that walked into its own replacement
# found `b` again forever.
_SELF_FEEDING = """
import json
import pyarrow as pa
import toolkit as tk
from toolkit import plan

f = tk.field
t = pa.table({"a": [1, 2, 3, 4, None], "b": [10, 20, None, 40, 50]})
p = (plan.scan("t", t).project([f("a"), f("b") + 1], names=["a", "b"]).filter(f("a") > 0)
     .project([f("a"), f("b") + 1], names=["a", "b"]).filter(f("a") > 2)
     .project([f("a"), f("b") + 1], names=["a", "b"]))
o = plan.optimize(p)
rows = lambda q: plan.create_physical_plan(q).collect().to_pylist()
print(json.dumps({"nodes": sum(1 for _ in o.walk()), "raw": rows(p), "optimized": rows(o)}))
"""


def test_projections_that_recompute_a_column_from_itself_merge_and_end():
    out = json.loads(run_bounded(_SELF_FEEDING, seconds=60))
    assert out["raw"] == out["optimized"] == [{"a": 3, "b": None}, {"a": 4, "b": 43}]
    assert out["nodes"] == 3  # one projection over one filter over the scan


_SUBSTITUTIONS = """
import toolkit as tk
from toolkit.plan.rules.base import substitute_columns

f = tk.field
swap = substitute_columns(f("a") - f("b"), {"a": f("b") + 1, "b": f("a") * 2})
self_ref = substitute_columns(f("b") * f("c"), {"b": f("b") + 1})
print(swap.to_string())
print(self_ref.to_string())
"""


def test_substitution_is_simultaneous_and_never_walks_a_replacement():
    swap, self_ref = run_bounded(_SUBSTITUTIONS, seconds=30).splitlines()
    f = tk.field
    assert swap == ((f("b") + 1) - f("a") * 2).to_string()  # each ref once, from the original
    assert self_ref == ((f("b") + 1) * f("c")).to_string()


# 1,000 nodes: renames, reorders, recomputations and filters, repeating
_MIXED = """
import json, resource, time
import pyarrow as pa
import toolkit as tk
from toolkit import plan

f = tk.field
t = pa.table({"a": list(range(200)), "b": [i % 7 if i % 11 else None for i in range(200)]})
p = plan.scan("t", t)
for i in range(1000):
    step = i % 5
    if step == 0:
        p = p.project([f("a"), f("b") + 1], names=["a", "b"])
    elif step == 1:
        p = p.filter(f("a") > -1000 + i % 40)
    elif step == 2:
        p = p.project([f("b"), f("a")], names=["a", "b"])
    elif step == 3:
        p = p.project([f("a") - 1, f("b")], names=["a", "b"])
    else:
        p = p.filter(tk.or_(f("b") > -1000, tk.is_null(f("b"))))
events = []

class Rules(tk.Observer):
    def on_plan_rule(self, event):
        events.append(event.rule)

o = plan.optimize(p, observer=Rules())
rows = lambda q: sorted(plan.create_physical_plan(q).collect().to_pylist(),
                        key=lambda r: (r["a"] is None, r["a"] or 0, r["b"] is None, r["b"] or 0))
print(json.dumps({"before": sum(1 for _ in p.walk()), "after": sum(1 for _ in o.walk()),
                  "same": rows(p) == rows(o), "rows": len(rows(o)), "events": events}))
"""


def test_a_thousand_node_mixed_plan_optimizes_in_bounded_time_and_memory():
    out = json.loads(run_bounded(_MIXED, seconds=90, memory_mb=1_500))
    assert out["same"] and out["rows"] > 0
    assert out["after"] < out["before"]
    rounds = len(plan.default_rules()) * plan.MAX_ROUNDS
    assert len(out["events"]) <= rounds + 1


@pytest.fixture
def t():
    return pa.table({"a": pa.array([1, 2, 3, None], pa.int64()),
                     "b": pa.array([5, None, 7, 8], pa.int64())})


def _still_changing_after_one_round(t):
    """A plan that one round of the rules does not finish (a filter still to move down)."""
    f = tk.field
    return (plan.scan("t", t).project([f("a"), f("b") + 1], names=["a", "b"])
            .filter(f("a") > 0).project([f("b"), f("a")], names=["a", "b"])
            .filter(f("b") > 1).project([f("a") * 2, f("b")], names=["a", "b"]))


def test_a_run_stopped_by_the_bound_says_so_and_keeps_the_rows(t, recorder):
    p = _still_changing_after_one_round(t)
    o = plan.optimize(p, max_rounds=1)
    last = recorder.rules[-1]
    assert last.rule == plan.ROUND_LIMIT and not last.changed
    assert "stopped at its bound of 1 round: the last round still changed the plan" in last.reason
    assert (plan.create_physical_plan(o).collect().sort_by("a")
            .equals(plan.create_physical_plan(p).collect().sort_by("a")))
    recorder.rules.clear()
    plan.optimize(p.input.input)  # done in a round, confirmed in the next: no such step
    assert all(e.rule != plan.ROUND_LIMIT for e in recorder.rules)


def test_explain_verbose_says_plainly_when_the_bound_was_reached(t, monkeypatch):
    from toolkit.plan import explain as explain_module

    p = _still_changing_after_one_round(t)
    assert "max_rounds" not in p.input.input.explain(verbose=True)
    bounded = lambda q, observer=None: plan.optimize(q, observer=observer, max_rounds=1)
    monkeypatch.setattr(explain_module, "optimize", bounded)
    text = p.explain(verbose=True)
    line = next(x for x in text.splitlines() if x.startswith("max_rounds:"))
    assert "stopped at its bound of 1 round: the last round still changed the plan" in line
    assert "max_rounds" not in text.split("rules that changed nothing:")[1].splitlines()[0]
