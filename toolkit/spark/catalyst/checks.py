"""Spark's own plan-integrity checks (`LogicalPlanIntegrity`), each run on its own.

Spark's `planChangeValidation` runs them chained and stops at the first failure;
here each one reports pass or fail with Spark's own message, so a step shows a
mark per check. The names beside them are exprscope's own invariants that say
the same thing of exprscope's plans.
"""

from __future__ import annotations

from ...tracing.catalyst_steps import SparkCheck
from .jvm import JVM_ERRORS, java_message, option_text

__all__ = ["CHECK_NAMES", "integrity_checks"]

_UNIQUE = "unique (relation, name)"
_SCHEMA = "logical schema invariant under logical optimization"

# (name, exprscope's invariant, how to run it: on (integrity, optimizer, previous, current))
_CHECKS = (
    ("resolved", None,
     lambda lpi, opt, prev, cur: None if cur.resolved() else
     "The plan becomes unresolved: " + cur.treeString()),
    ("expression ids not reused", None,
     lambda lpi, opt, prev, cur: option_text(lpi.checkIfSameExprIdNotReused(cur))),
    ("expression ids unique in each output", _UNIQUE,
     lambda lpi, opt, prev, cur: option_text(lpi.hasUniqueExprIdsForOutput(cur))),
    ("no dangling references", None,
     lambda lpi, opt, prev, cur: option_text(lpi.validateNoDanglingReferences(cur))),
    ("aggregates valid", None,
     lambda lpi, opt, prev, cur: option_text(lpi.validateAggregateExpressions(cur))),
    ("same output schema", _SCHEMA,
     lambda lpi, opt, prev, cur: option_text(lpi.validateSchemaOutput(prev, cur))),
    ("nullability", None,
     lambda lpi, opt, prev, cur: option_text(lpi.validateNullability(cur))),
    ("the optimizer's plan-change validation", None,
     lambda lpi, opt, prev, cur: option_text(opt.validatePlanChanges(prev, cur))),
)
CHECK_NAMES = tuple(name for name, _, _ in _CHECKS)


def integrity_checks(spark, previous, current) -> tuple[SparkCheck, ...]:
    """Each of Spark's checks of the change `previous` -> `current` (JVM logical plans)."""
    lpi = spark._jvm.org.apache.spark.sql.catalyst.plans.logical.LogicalPlanIntegrity
    opt = spark._jsparkSession.sessionState().optimizer()
    out = []
    for name, ours, run in _CHECKS:
        try:
            message = run(lpi, opt, previous, current)
        except JVM_ERRORS as exc:  # a check that throws fails, with Spark's message
            message = java_message(exc)
        out.append(SparkCheck(name, message is None, message or "", ours))
    return tuple(out)

