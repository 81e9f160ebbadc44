"""EXPLAIN VERBOSE for plans, rule by rule: `p.explain(verbose=True)`.

The plan as it stands is plain text (`plan_text.py`, `p.explain()`). The verbose
form runs the optimizer and the planner and shows the initial plan, the plan
after every rule that changed it (with the rule's reason), the optimized plan and
the physical plan, as DataFusion's EXPLAIN VERBOSE does, and a tally of the
invariant checks made on the way (the per-batch checks happen when the plan
runs, not here).
"""

from __future__ import annotations

from .. import observe
from ..support import late
from ..support.visible_text import visible
from .optimizer import ROUND_LIMIT, optimize
from .plan_text import plan_text
from .planner import create_physical_plan

__all__ = ["RuleRecorder", "explain_verbose"]


class RuleRecorder(observe.Observer):
    """Collects the optimizer's PlanRuleEvents and the invariant checks made meanwhile."""

    def __init__(self):
        self.events: list[observe.PlanRuleEvent] = []
        self.checks: list[observe.InvariantCheck] = []

    def on_plan_rule(self, event):
        self.events.append(event)

    def on_invariant(self, event):
        self.checks.append(event)


def _section(title: str, body: str) -> str:
    return f"{title}:\n" + "\n".join("  " + line for line in body.splitlines())


def explain_verbose(plan, show_schema: bool = False, observer=None) -> str:
    recorder = RuleRecorder()
    with observe.observing(recorder):
        optimized = optimize(plan, observer=observer)
        physical = create_physical_plan(optimized, observer=observer)
    sections = [_section("initial_logical_plan", plan_text(plan, show_schema))]
    stopped_by_bound = [e for e in recorder.events if e.rule == ROUND_LIMIT]
    events = [e for e in recorder.events if e.rule != ROUND_LIMIT]
    for event in events:
        if event.changed:
            title = f"logical_plan after {event.rule}"
            if event.reason:
                title += f" ({visible(event.reason)})"
            sections.append(_section(title, plan_text(event.after, show_schema)))
    unchanged = sorted({e.rule for e in events} - {e.rule for e in events if e.changed})
    if unchanged:
        sections.append("rules that changed nothing: " + ", ".join(unchanged))
    for event in stopped_by_bound:
        sections.append(f"{ROUND_LIMIT}: {visible(event.reason)}")
    sections.append(_section("logical_plan", plan_text(optimized, show_schema)))
    sections.append(_section("physical_plan", plan_text(physical, show_schema)))
    sections.append(_section("invariant_checks", _checks_text(recorder.checks)))
    return "\n".join(sections)


def _checks_text(checks) -> str:
    """One line per invariant checked: its level and how many checks passed (a failure raises)."""
    counts: dict[tuple[str, str], int] = {}
    for check in checks:
        counts[(check.name, check.level)] = counts.get((check.name, check.level), 0) + 1
    return "\n".join(f"{name} ({level}): {n} passed" for (name, level), n in counts.items())


late.provide("explain_plan", explain_verbose)
