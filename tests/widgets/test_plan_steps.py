"""Plans in the explorer: rule steps show the plan before and after, checks fill the panel."""

import html

import pytest

import toolkit as tk
from toolkit import plan
from widgets import Explorer, InvariantsPanel


@pytest.fixture(scope="module")
def plan_trace(penguins):
    p = (plan.scan("penguins", penguins)
         .filter(tk.field("year") > 2007)
         .filter(tk.field("bill_length_mm") > 40)
         .aggregate([tk.field("species")], [("count", tk.field("species"), "n")]))
    with tk.trace() as t:
        plan.create_physical_plan(plan.optimize(p)).collect()
    return t


def test_the_invariants_panel_lists_every_check_with_its_verdict(plan_trace):
    checks = plan_trace.invariant_checks
    assert checks, "optimizing and running a plan checks invariants"
    panel = Explorer(plan_trace).invariants
    assert isinstance(panel, InvariantsPanel)
    assert f"<b>Invariant checks</b>: {len(checks)}, 0 failed" in panel.value
    assert panel.value.count("✔ pass") == len(checks)
    for name in {c.name for c in checks}:
        assert html.escape(name) in panel.value


def test_stepping_onto_a_check_highlights_it(plan_trace):
    explorer = Explorer(plan_trace)
    first_check = next(i for i, s in enumerate(plan_trace.steps) if hasattr(s, "passed"))
    explorer.slider.value = first_check + 1
    check = plan_trace.steps[first_check]
    assert "invariant" in explorer.header.value and "pass" in explorer.header.value
    assert explorer.invariants.highlighted == first_check
    assert "background:#fff6d5" in explorer.invariants.value
    # the panel names the step as the header does, counting from 1
    assert f"<td style=\"border:1px solid #ddd;padding:2px 6px;text-align:left;\">{first_check + 1}</td>" in explorer.invariants.value
    assert f"Step {first_check + 1} of" in explorer.header.value
    assert "passed" in explorer.rules.value and check.level in explorer.rules.value


def test_jump_reaches_the_rule_that_merged_the_filters(plan_trace):
    explorer = Explorer(plan_trace)
    assert explorer.jump_to_next_change()
    step = explorer.current
    assert step.rule == "merge_filters" and step.changed
    assert "plan rule merge_filters: changed the plan" in explorer.header.value
    before = explorer.before_after.value
    assert before.count("Filter") >= 3  # two filters before, one merged filter after
    assert "<svg" in explorer.tree.value


class DropsAColumn(plan.Rule):
    """A buggy rule: it projects a column away, so the plan's schema changes."""

    name = "drops_a_column"
    order = "plan"

    def rewrite(self, p, ctx):
        if len(p.schema) == 1:
            return None
        return self.fired(p.project([tk.field("species")], names=["species"]),
                          "keeps species only")


def test_a_buggy_rule_fails_the_schema_check_and_the_panel_says_so(penguins):
    with tk.trace() as t, pytest.raises(plan.InvariantViolation):
        plan.optimize(plan.scan("penguins", penguins), rules=[DropsAColumn()])
    explorer = Explorer(t)
    (failed,) = explorer.invariants.failed
    assert failed.name == "logical schema invariant under logical optimization"
    assert "drops_a_column" in failed.subject
    assert "✘ FAIL" in explorer.invariants.value and "1 failed" in explorer.invariants.value
    index = t.steps.index(failed)
    # the check picker lists the failure first; choosing it goes to its step
    assert explorer.check_picker.options[0] == ("choose one: failures first", None)
    first_label, first_step = explorer.check_picker.options[1]
    assert first_step == index and "✘ FAIL" in first_label and f"step {index + 1}:" in first_label
    assert explorer.check_picker.label == "choose one: failures first"  # shown, not blank
    explorer.check_picker.value = first_step
    assert explorer.cursor.index == index and f"Step {index + 1} of" in explorer.header.value
    explorer.go(0)
    explorer.check_picker.value = first_step  # the same check, chosen again
    assert explorer.cursor.index == index
    explorer.go(0)
    explorer.go(index)
    assert "FAIL" in explorer.header.value and "FAILED" in explorer.rules.value
    assert "expected" in explorer.before_after.value  # the schemas it compared


def test_a_plan_trace_read_back_from_json_explores_the_same(plan_trace):
    loaded = tk.Trace.from_json(plan_trace.to_json())
    live, again = Explorer(plan_trace), Explorer(loaded)
    while True:
        assert again.header.value == live.header.value
        assert again.before_after.value == live.before_after.value
        assert again.invariants.value == live.invariants.value
        if not live.jump_to_next_change():
            break
        assert again.jump_to_next_change()
