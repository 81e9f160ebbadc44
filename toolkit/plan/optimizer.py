"""The logical optimizer: rules applied in rounds, an observer told after every rule.

`optimize(plan, observer=None)` runs the rules (`rules.default_rules()`) in
order, round after round until a round changes nothing (at most `max_rounds`).
After every rule it reports an `observe.PlanRuleEvent` (rule, plan before and
after, whether it changed, why), as DataFusion's EXPLAIN VERBOSE lists them, and
checks the seed's SHOULD: the plan's schema is still the input's.
"""

from __future__ import annotations

from .. import observe
from .errors import PlanError
from .invariants import LOGICAL_OPTIMIZATION_KEEPS_SCHEMA, current_mode, report, runs
from .logical_plan import LogicalPlan
from .rules import RuleContext, default_rules

__all__ = ["MAX_ROUNDS", "optimize"]

MAX_ROUNDS = 3


def _schema_problems(expected, actual) -> list[str]:
    if len(expected) != len(actual):
        return [f"{len(actual)} fields, expected {len(expected)}"]
    return [f"field {i}: {b} instead of {a}" for i, (a, b) in enumerate(zip(expected, actual))
            if a != b]


def optimize(plan: LogicalPlan, observer=None, rules=None, max_rounds: int = MAX_ROUNDS,
             validation: str | None = None) -> LogicalPlan:
    """An equivalent, cheaper plan with the same schema."""
    if not isinstance(plan, LogicalPlan):
        raise PlanError(f"optimize needs a LogicalPlan, not {type(plan).__name__}")
    mode = current_mode(validation)
    rules = default_rules() if rules is None else list(rules)
    original = plan.schema
    for _ in range(max(1, max_rounds)):
        round_start = plan
        for rule in rules:
            ctx = RuleContext(observer=observer)
            after = rule.rewrite(plan, ctx)
            changed = after is not plan and not after.equals(plan)
            if runs(LOGICAL_OPTIMIZATION_KEEPS_SCHEMA, mode):
                problems = _schema_problems(list(original), list(after.schema))
                report(LOGICAL_OPTIMIZATION_KEEPS_SCHEMA, lambda r=rule, a=after: f"rule {r.name} on {a.label()}",
                       not problems,
                       details="; ".join(problems) if problems else "schema unchanged",
                       expected=str(original) if problems else None,
                       actual=str(after.schema) if problems else None, observer=observer)
            if observe.active_observers(observer):
                observe.notify("on_plan_rule", observe.PlanRuleEvent(
                    rule=rule.name, before=plan, after=after, changed=changed,
                    reason="; ".join(ctx.notes)), observer)
            if changed:
                plan = after
        if plan is round_start:
            break
    return plan
