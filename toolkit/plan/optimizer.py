"""The logical optimizer: rules applied in rounds through the one rewrite driver.

`optimize(plan, observer=None)` runs the rules (`rules.default_rules()`) in
order, round after round until a round changes nothing (at most `max_rounds`).
Each rule runs through `toolkit.rewrite.apply_rule` (or, for a whole-plan rule,
once on the root); what fired comes back as `RuleApplied` records with their
paths, and a rule changed the plan exactly when something fired. After every
rule the observer hears an `observe.PlanRuleEvent` (rule, plan before and after,
the firings), as DataFusion's EXPLAIN VERBOSE lists them, and the plan's schema
is checked against the input's (the optimizer must not change it).

The rounds are bounded, as DataFusion's `max_passes` bounds its optimizer: a
plan still changing after the last round is returned as it stands (every rule
keeps the rows, so it is correct, only perhaps not fully optimized), and the
observer hears one more event, from the pseudo-rule `ROUND_LIMIT`, whose reason
says so; EXPLAIN VERBOSE prints it.
"""

from __future__ import annotations

from .. import observe
from ..errors import RuleError
from ..rewrite import ROOT, RewriteLog, RuleApplied, Transformed, apply_rule
from .errors import PlanError
from .invariants import LOGICAL_OPTIMIZATION_KEEPS_SCHEMA, current_mode, report, runs
from .logical_plan import LogicalPlan
from .rules import Rule, RuleContext, default_rules
from .schema_problems import schema_problems
from .tree import PLAN_SHAPE

__all__ = ["MAX_ROUNDS", "ROUND_LIMIT", "optimize", "run_rule"]

MAX_ROUNDS = 3
ROUND_LIMIT = "max_rounds"  # the pseudo-rule that reports a run stopped by the bound


def run_rule(rule: Rule, plan: LogicalPlan, observer=None,
             placed: bool = True) -> tuple[LogicalPlan, list[RuleApplied]]:
    """`plan` after one run of `rule`, and every firing placed in the result.

    With `placed=False` the firings keep no paths: enough to know whether the rule
    changed the plan, without the cost of placing each firing (a path per firing,
    as long as the firing is deep, is quadratic on a deep chain).
    """
    ctx = RuleContext(observer=observer)
    log = RewriteLog(PLAN_SHAPE)
    if rule.order == "plan":
        out = rule.rewrite(plan, ctx)
        if out is not None and not isinstance(out, Transformed):
            raise RuleError(f"rule {rule.name} returned a {type(out).__name__}; a rule returns "
                            "Transformed(...) (rule.fired(after, reason)) or None")
        after = plan if out is None or not out.firings else log.record(out, ROOT, plan)
    else:
        def visit(node):
            return rule.rewrite(node, ctx)
        visit.rule_name = rule.name
        after = apply_rule(plan, visit, rule.order, log)
    if not isinstance(after, LogicalPlan):
        raise PlanError(f"rule {rule.name} returned {type(after).__name__}, not a plan")
    return after, (log.resolve(after) if placed else log.firings)


def optimize(plan: LogicalPlan, observer=None, rules=None, max_rounds: int = MAX_ROUNDS,
             validation: str | None = None) -> LogicalPlan:
    """An equivalent, cheaper plan with the same schema."""
    if not isinstance(plan, LogicalPlan):
        raise PlanError(f"optimize needs a LogicalPlan, not {type(plan).__name__}")
    mode = current_mode(validation)
    rules = default_rules() if rules is None else list(rules)
    original = plan.schema
    rounds = max(1, max_rounds)
    observed = bool(observe.active_observers(observer))
    for _ in range(rounds):
        changed_in_round = False
        for rule in rules:
            after, applied = run_rule(rule, plan, observer, placed=observed)
            if runs(LOGICAL_OPTIMIZATION_KEEPS_SCHEMA, mode):
                problems = schema_problems(original, after.schema, declared_by="expected")
                report(LOGICAL_OPTIMIZATION_KEEPS_SCHEMA,
                       lambda r=rule, a=after: f"rule {r.name} on {a.label()}",
                       not problems,
                       details="; ".join(problems) if problems else "schema unchanged",
                       expected=str(original) if problems else None,
                       actual=str(after.schema) if problems else None, observer=observer)
            if observed:
                observe.notify("on_plan_rule", observe.PlanRuleEvent(
                    rule=rule.name, before=plan, after=after, changed=bool(applied),
                    applied=tuple(applied)), observer)
            if applied:
                plan = after
                changed_in_round = True
        if not changed_in_round:
            return plan
    if observed:
        observe.notify("on_plan_rule", _round_limit_event(plan, rounds), observer)
    return plan


def _round_limit_event(plan: LogicalPlan, rounds: int) -> observe.PlanRuleEvent:
    """The step that says the optimizer stopped at its bound, not at a fixed point."""
    reason = (f"the optimizer stopped at its bound of {rounds} round"
              f"{'s' if rounds != 1 else ''}: the last round still changed the plan, so it "
              "may not be fully optimized (its rows are the same)")
    return observe.PlanRuleEvent(rule=ROUND_LIMIT, before=plan, after=plan, changed=False,
                                 applied=(RuleApplied(ROUND_LIMIT, reason, (), plan, plan),))
