"""Catalyst's rules applied one at a time from Python, exactly as Spark's RuleExecutor loops.

`RuleExecutor.execute` folds each batch's rules over the plan, repeating the
batch until the plan stops changing (`fastEquals`) or the batch's iteration
limit; a rule call is effective when its result is not `fastEquals` to its
input. `Stepper.run` is that loop over py4j, recording each effective call with
the plan's `treeString` before and after it and Spark's own integrity checks.
Composite rules are opened without changing the result: FinishAnalysis's inner
rules are folded on the side, and OptimizeSubqueries' nested optimizer runs are
stepped on the side, each from the plan the rule hands it (`subqueries`); the
step's plan is always the real rule's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ...tracing.catalyst_steps import CatalystStep
from .checks import Checker
from .jvm import java_message, jvm_errors, jvm_text, seq, short_rule_name
from .subqueries import SubqueryInputs

__all__ = ["Batch", "Stepper", "StepperRun", "batches_of"]

_FINISH_ANALYSIS = "Optimizer$FinishAnalysis"
_OPTIMIZE_SUBQUERIES = "Optimizer$OptimizeSubqueries"


@dataclass(frozen=True)
class Batch:
    """One of a RuleExecutor's batches as Spark lists it (exclusions already applied)."""

    name: str
    max_iterations: int
    rules: tuple  # (JVM rule, Spark's rule name) pairs


@dataclass(frozen=True)
class StepperRun:
    """What one run of the loop ended with: the JVM plan, its steps, whether a rule threw."""

    plan: object
    steps: tuple[CatalystStep, ...]
    threw: bool


# batches read lately: (the executor, the session's conf as text, its batches), newest last
_READ: list[tuple[object, str, tuple[Batch, ...]]] = []
_READ_KEPT = 8


def batches_of(executor, conf=None) -> tuple[Batch, ...]:
    """The batches of a RuleExecutor (the analyzer or the optimizer), as it lists them under
    the session's conf as set now (the optimizer's leave out
    `spark.sql.optimizer.excludedRules`). Reading them costs three JVM calls a rule, so
    with `conf` (the session's SQLConf) the batches of the same executor under the same
    settings are read once."""
    if conf is None:
        return _read_batches(executor)
    settings = jvm_text(conf.getAllConfs())
    for i, (known, known_settings, batches) in enumerate(_READ):
        if known_settings == settings and _same(known, executor):
            _READ.append(_READ.pop(i))
            return batches
    batches = _read_batches(executor)
    _READ.append((executor, settings, batches))
    del _READ[:-_READ_KEPT]
    return batches


def _same(known, executor) -> bool:
    """The same JVM object; False when `known` belongs to a JVM that is gone."""
    try:
        return bool(known.equals(executor))
    except jvm_errors():
        return False


def _read_batches(executor) -> tuple[Batch, ...]:
    out = []
    for b in seq(executor.batches()):
        rules = tuple((r, str(r.ruleName())) for r in seq(b.rules()))
        out.append(Batch(str(b.name()), int(b.strategy().maxIterations()), rules))
    return tuple(out)


# FinishAnalysis rules opened lately: (the rule, its inner rules), newest last; the rule is
# one of the batches read once above, so the same Python object each time
_OPENED: list[tuple[object, tuple]] = []


def _inner_rules(rule) -> tuple:
    """FinishAnalysis's inner rules (a private field, fixed for the rule's life) as
    (JVM rule, Spark's rule name) pairs, read over py4j once per rule object."""
    for known, inner in _OPENED:
        if known is rule:
            return inner
    field = rule.getClass().getDeclaredField("rules")
    field.setAccessible(True)
    inner = tuple((r, str(r.ruleName())) for r in seq(field.get(rule)))
    _OPENED.append((rule, inner))
    del _OPENED[:-_READ_KEPT]
    return inner


class Stepper:
    """The RuleExecutor loop, one rule call at a time, counting every call.

    A call whose outcome is already known is counted but not sent over py4j:
    - a rule found ineffective on the plan as it is now (no rule changed it since):
      rules are functions of the plan, which is what Spark's own `ruleId` pruning
      (`TreeNode.isRuleIneffective`) relies on to skip such a call;
    - a rule in `ineffective`: Spark's own run of the same input (its
      `QueryPlanningTracker`) called it without effect every time.
    """

    def __init__(self, spark, phase: str, checks: bool, skip_known: bool = True,
                 ineffective: frozenset[str] = frozenset()):
        self.spark = spark
        self.phase = phase
        self.checks = checks
        self.skip_known = skip_known
        self.ineffective = ineffective
        self.calls = 0
        self.skipped = 0  # of `calls`, those whose outcome was known without making them
        self._subqueries: SubqueryInputs | None = None  # made when a rule opens one
        self._spark_checks: Checker | None = None  # made at the first step that changed the plan
        self._subqueries_seen = [0]  # shared with the side runs, so scopes number uniquely
        self.side_calls = 0  # rule calls made to open composite rules, not in `calls`

    def run(self, plan, batches: tuple[Batch, ...], scope: str = "",
            open_composites: bool = True) -> StepperRun:
        steps: list[CatalystStep] = []
        cur, cur_text = plan, None
        version = 0  # counts the effective calls: the plan is unchanged while it stands
        ineffective_at: dict[tuple[int, int], int] = {}  # (batch, rule) -> version
        for b, batch in enumerate(batches):
            iteration, last = 1, cur
            while True:
                changed = False
                for r, (rule, rule_name) in enumerate(batch.rules):
                    self.calls += 1
                    if self.skip_known and (rule_name in self.ineffective
                                            or ineffective_at.get((b, r)) == version):
                        self.skipped += 1
                        continue
                    if cur_text is None:
                        cur_text = jvm_text(cur)
                    start = time.perf_counter()
                    try:
                        result = rule.apply(cur)
                    except jvm_errors() as exc:  # Spark's own run would stop here too
                        steps.append(CatalystStep(
                            self.phase, batch.name, iteration, short_rule_name(rule_name),
                            rule_name, cur_text, cur_text, elapsed=time.perf_counter() - start,
                            error=java_message(exc), scope=scope))
                        return StepperRun(cur, tuple(steps), True)
                    elapsed = time.perf_counter() - start
                    if result.fastEquals(cur):
                        ineffective_at[(b, r)] = version
                    else:
                        after_text = jvm_text(result)
                        substeps = (self._open(rule, rule_name, cur, batches)
                                    if open_composites else ())
                        checks = self._checker()(cur, result) if self.checks else ()
                        steps.append(CatalystStep(
                            self.phase, batch.name, iteration, short_rule_name(rule_name),
                            rule_name, cur_text, after_text, checks, elapsed, substeps,
                            scope=scope))
                        cur_text = after_text
                        version += 1
                        changed = True
                    cur = result
                iteration += 1
                # no effective call leaves the plan equal to the last one (fastEquals)
                if iteration > batch.max_iterations or not changed or cur.fastEquals(last):
                    break
                last = cur
        return StepperRun(cur, tuple(steps), False)

    def _checker(self) -> Checker:
        if self._spark_checks is None:
            self._spark_checks = Checker(self.spark, self.phase)
        return self._spark_checks

    # -- composite rules ----------------------------------------------------------------
    def _open(self, rule, rule_name: str, before, batches) -> tuple[CatalystStep, ...]:
        if rule_name.endswith(_FINISH_ANALYSIS):
            return self._finish_analysis(rule, before)
        if rule_name.endswith(_OPTIMIZE_SUBQUERIES):
            return self._optimize_subqueries(before, batches)
        return ()

    def _finish_analysis(self, rule, before) -> tuple[CatalystStep, ...]:
        """FinishAnalysis's inner rules (a private field), folded as the rule folds them;
        its recursion into subquery plans is not among them, so the real rule's result
        stays the step's."""
        batch = Batch("FinishAnalysis", 1, _inner_rules(rule))
        side = self._side(checks=False)
        run = side.run(before, (batch,), open_composites=False)
        self.side_calls += side.calls + side.side_calls
        return run.steps

    def _optimize_subqueries(self, before, batches) -> tuple[CatalystStep, ...]:
        """The whole optimizer run on each subquery, from the plan OptimizeSubqueries gives
        it (`subqueries`)."""
        if self._subqueries is None:
            self._subqueries = SubqueryInputs(self.spark._jvm)
        out: list[CatalystStep] = []
        for expression in self._subqueries.expressions(before):
            start = self._subqueries.nested_input(expression)
            if start is None:
                continue
            self._subqueries_seen[0] += 1
            scope = f"subquery {self._subqueries_seen[0]}"
            side = self._side(checks=self.checks, ineffective=self.ineffective)
            side._subqueries, side._spark_checks = self._subqueries, self._spark_checks
            run = side.run(start, batches, scope)
            self.side_calls += side.calls + side.side_calls
            out.extend(run.steps)
        return tuple(out)

    def _side(self, checks: bool, ineffective: frozenset[str] = frozenset()) -> Stepper:
        side = Stepper(self.spark, self.phase, checks, self.skip_known, ineffective)
        side._subqueries_seen = self._subqueries_seen
        return side
