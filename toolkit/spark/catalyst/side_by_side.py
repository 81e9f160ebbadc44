"""Catalyst beside exprscope's own optimizer on the same query: where each pushed a filter
below a join.

exprscope imports the query (`from_spark`, the analyzed plan as an exprscope
logical plan) and optimizes it with its own rules; Catalyst's step is the first
optimizer step after which a Filter sits, moved or new, under a Join.
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import observe
from ... import plan as exprscope_plan
from ...tracing.catalyst_steps import CatalystSteps
from ...tracing.spark_plan_diff import plan_diff
from ...tracing.tracer import trace as tracing
from ..reading.from_spark import from_spark

__all__ = ["FilterPushdown", "filter_pushdown"]


@dataclass(frozen=True)
class FilterPushdown:
    """Where Catalyst and exprscope each first pushed a filter below a join."""

    catalyst_step: int | None  # 1-based in `CatalystSteps.steps`
    catalyst_rule: str | None
    exprscope_rule_number: int | None  # 1-based among exprscope's rule calls
    exprscope_rule: str | None
    exprscope_rule_calls: int

    @property
    def sentence(self) -> str:
        ours = (f"exprscope's {self.exprscope_rule} did it at its rule "
                f"{self.exprscope_rule_number} of {self.exprscope_rule_calls}"
                if self.exprscope_rule_number else
                f"exprscope's optimizer did not ({self.exprscope_rule_calls} rule calls)")
        theirs = (f"Catalyst pushed the filter below the join at step {self.catalyst_step} "
                  f"({self.catalyst_rule})" if self.catalyst_step else
                  "Catalyst pushed no filter below a join")
        return f"{theirs}; {ours}."


def _below_join(diff) -> bool:
    nodes = dict(diff.after.walk())
    for path, status in diff.status.items():
        if (status in ("moved", "added") and nodes[path].name == "Filter"
                and any(nodes[path[:k]].name == "Join" for k in range(len(path)))):
            return True
    return False


def filter_pushdown(steps: CatalystSteps, df) -> FilterPushdown:
    """Pair Catalyst's first filter-below-join step with exprscope's on the DataFrame `df`
    (the query `steps` stepped); exprscope's side needs `from_spark` to import `df`."""
    catalyst = next(((i, s.rule) for i, s in enumerate(steps.steps, 1)
                     if s.phase == "optimizer" and s.error is None
                     and _below_join(plan_diff(s.before, s.after))), (None, None))
    with tracing() as recorded:
        exprscope_plan.optimize(from_spark(df))
    rules = [s for s in recorded.steps if isinstance(s, observe.PlanRuleEvent)]
    ours = next(((i, s.rule) for i, s in enumerate(rules, 1)
                 if s.rule == "push_down_filter" and s.changed), (None, None))
    return FilterPushdown(catalyst[0], catalyst[1], ours[0], ours[1], len(rules))
