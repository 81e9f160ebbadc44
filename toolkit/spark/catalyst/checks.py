"""Spark's own plan-integrity checks (`LogicalPlanIntegrity`), each reported on its own.

Spark validates a rule's change with its RuleExecutor's `validatePlanChanges`
(under `spark.sql.planChangeValidation`), and each executor asks for its own:
- the Optimizer: `LogicalPlanIntegrity.validateOptimizedPlan`, the whole chain
  (resolved, special expressions in supported operators, expression ids not
  reused and unique in each output, same output schema, no dangling references,
  aggregates valid, nullability);
- the Analyzer: expression ids only (not reused, unique in each output); a plan
  is resolved only when the analyzer finishes, which `CheckAnalysis` requires of
  its result, so "resolved" is checked on the analyzer's last step alone;
- the physical preparation rules: none; `QueryExecution.prepareForExecution`
  folds them with only the plan-change log.
The executor's own chain runs first: it stops at the first failure, so when it
passes every check in it passed and each is marked so; when it fails, each
check runs on its own and shows pass or fail with Spark's own message. The
names beside them are exprscope's own invariants that say the same thing of
exprscope's plans.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...tracing.catalyst_steps import SparkCheck
from .jvm import java_class, java_message, jvm_errors, jvm_text, option_text

__all__ = [
    "ANALYZER_CHECK_NAMES",
    "CHECKS_NOTE",
    "CHECK_NAMES",
    "Checker",
    "integrity_checks",
    "resolved_check",
]

_UNIQUE = "unique (relation, name)"
_SCHEMA = "logical schema invariant under logical optimization"

CHECKS_NOTE = ("Spark's checks per phase, as its RuleExecutors validate plan changes: "
               "optimizer steps, the optimizer's whole LogicalPlanIntegrity chain; analyzer "
               "steps, expression ids only (plans resolve only when the analyzer finishes: "
               "'resolved' is checked on its last step); physical preparation steps, none "
               "(Spark has no integrity check for the preparation rules).")


@dataclass(frozen=True)
class _Check:
    """One of Spark's checks: its name, exprscope's invariant that says the same (if any),
    how to run it on (integrity, executor, previous, current), and whether the executor's
    own validation runs it too."""

    name: str
    exprscope_name: str | None
    run: Callable
    in_chain: bool = True


_RESOLVED = _Check("resolved", None, lambda lpi, ex, prev, cur: None if cur.resolved() else
                   "The plan becomes unresolved: " + jvm_text(cur))
_NOT_REUSED = _Check("expression ids not reused", None,
                     lambda lpi, ex, prev, cur: option_text(lpi.checkIfSameExprIdNotReused(cur)))
_UNIQUE_OUTPUT = _Check("expression ids unique in each output", _UNIQUE,
                        lambda lpi, ex, prev, cur: option_text(lpi.hasUniqueExprIdsForOutput(cur)))


def _chain(name: str) -> _Check:
    return _Check(name, None,
                  lambda lpi, ex, prev, cur: option_text(ex.validatePlanChanges(prev, cur)))


_OPTIMIZER = (
    _RESOLVED, _NOT_REUSED, _UNIQUE_OUTPUT,
    _Check("no dangling references", None,
           lambda lpi, ex, prev, cur: option_text(lpi.validateNoDanglingReferences(cur))),
    _Check("aggregates valid", None,
           lambda lpi, ex, prev, cur: option_text(lpi.validateAggregateExpressions(cur))),
    _Check("same output schema", _SCHEMA,
           lambda lpi, ex, prev, cur: option_text(lpi.validateSchemaOutput(prev, cur))),
    _Check("nullability", None,
           lambda lpi, ex, prev, cur: option_text(lpi.validateNullability(cur))),
)
_OPTIMIZER_CHAIN = _chain("the optimizer's plan-change validation")
_ANALYZER = (_NOT_REUSED, _UNIQUE_OUTPUT)
_ANALYZER_CHAIN = _chain("the analyzer's plan-change validation")

CHECK_NAMES = tuple(c.name for c in _OPTIMIZER + (_OPTIMIZER_CHAIN,))
ANALYZER_CHECK_NAMES = tuple(c.name for c in _ANALYZER + (_ANALYZER_CHAIN,))


def integrity_checks(spark, previous, current,
                     phase: str = "optimizer") -> tuple[SparkCheck, ...]:
    """Each of Spark's checks of the change `previous` -> `current` (JVM logical plans)
    that Spark's `phase` executor runs ("analyzer" or "optimizer"; none for "physical")."""
    return Checker(spark, phase)(previous, current)


class Checker:
    """Spark's checks of one phase, with the JVM objects they need looked up once."""

    def __init__(self, spark, phase: str):
        self._lpi = java_class(
            spark._jvm, "org.apache.spark.sql.catalyst.plans.logical.LogicalPlanIntegrity")
        state = spark._jsparkSession.sessionState()
        if phase == "optimizer":
            self._executor, self._checks = state.optimizer(), _OPTIMIZER
            self._chain = _OPTIMIZER_CHAIN
        elif phase == "analyzer":
            self._executor, self._checks = state.analyzer(), _ANALYZER
            self._chain = _ANALYZER_CHAIN
        else:
            self._executor, self._checks, self._chain = None, (), None

    def __call__(self, previous, current) -> tuple[SparkCheck, ...]:
        if self._chain is None:
            return ()
        lpi, executor = self._lpi, self._executor
        chain_message = _run(self._chain, lpi, executor, previous, current)
        out = []
        for check in self._checks:
            message = (None if chain_message is None and check.in_chain else
                       _run(check, lpi, executor, previous, current))
            out.append(SparkCheck(check.name, message is None, message or "",
                                  check.exprscope_name))
        out.append(SparkCheck(self._chain.name, chain_message is None, chain_message or ""))
        return tuple(out)


def resolved_check(plan) -> SparkCheck:
    """"resolved" of the analyzer's result, which `CheckAnalysis` requires once the
    analyzer finishes (a plan mid-analysis is unresolved by design)."""
    message = _run(_RESOLVED, None, None, None, plan)
    return SparkCheck(_RESOLVED.name, message is None, message or "")


def _run(check: _Check, lpi, executor, previous, current) -> str | None:
    """The check's failure message, or None when it passes; a check that throws fails,
    with Spark's message."""
    try:
        return check.run(lpi, executor, previous, current)
    except jvm_errors() as exc:
        return java_message(exc)
