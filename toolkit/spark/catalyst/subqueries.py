"""What Catalyst's OptimizeSubqueries hands its nested optimizer runs, read off the plan.

OptimizeSubqueries runs the whole optimizer on each subquery expression of the
plan's operators (not those inside other subqueries: the nested run reaches
them), but not always on the subquery's own plan (Spark 4's rule, case by case):
- a dynamic-pruning subquery is left alone;
- a scalar subquery over an Aggregate that may have the COUNT bug (when
  `spark.sql.optimizer.decorrelateSubqueryPreventConstantFoldingForCountBug.enabled`)
  is optimized without its aggregate: the run gets
  `Project(aggregate.references, aggregate.child)`, so constant folding cannot
  change what the aggregate counts;
- an EXISTS whose join condition uses some of its plan's output gets
  `Project(those columns, plan)`, so the run can prune the rest;
- any other subquery, its plan.
Each nested run starts from `Subquery.fromExpression` of the expression so
rewritten, as Spark's does.
"""

from __future__ import annotations

from .jvm import seq

__all__ = ["SubqueryInputs"]

_EXPRESSIONS = "org.apache.spark.sql.catalyst.expressions."
_COUNT_BUG_CONF = "DECORRELATE_SUBQUERY_PREVENT_CONSTANT_FOLDING_FOR_COUNT_BUG"


class SubqueryInputs:
    """The subquery expressions of a plan, and the plan each one's nested run starts from."""

    def __init__(self, jvm):
        self._jvm = jvm
        logical = jvm.org.apache.spark.sql.catalyst.plans.logical
        forName = jvm.java.lang.Class.forName
        self._plan_expression = jvm.org.apache.spark.sql.catalyst.trees.TreePattern \
            .PLAN_EXPRESSION()
        self._subquery_class = forName(_EXPRESSIONS + "SubqueryExpression")
        self._dynamic_pruning = forName(_EXPRESSIONS + "DynamicPruningSubquery")
        self._scalar = forName(_EXPRESSIONS + "ScalarSubquery")
        self._exists = forName(_EXPRESSIONS + "Exists")
        self._aggregate = forName("org.apache.spark.sql.catalyst.plans.logical.Aggregate")
        self._subquery = logical.Subquery
        self._project = logical.Project
        self._physical_operation = jvm.org.apache.spark.sql.catalyst.planning.PhysicalOperation

    def expressions(self, plan) -> list:
        """The subquery expressions in the plan's operators (not inside other subqueries),
        visiting only the parts whose tree patterns say they hold one."""
        found, nodes = [], [plan]
        while nodes:
            node = nodes.pop()
            if not node.containsPattern(self._plan_expression):
                continue
            nodes.extend(reversed(seq(node.children())))
            exprs = list(reversed(seq(node.expressions())))
            while exprs:
                e = exprs.pop()
                if not e.containsPattern(self._plan_expression):
                    continue
                if self._subquery_class.isInstance(e):
                    found.append(e)
                else:
                    exprs.extend(reversed(seq(e.children())))
        return found

    def nested_input(self, expression):
        """The plan OptimizeSubqueries' nested optimizer run starts from for `expression`,
        or None when the rule leaves it alone."""
        if self._dynamic_pruning.isInstance(expression):
            return None
        if self._scalar.isInstance(expression):
            aggregate = self._count_bug_aggregate(expression)
            if aggregate is not None:
                expression = expression.withNewPlan(
                    self._project(aggregate.references().toSeq(), aggregate.child()))
        elif self._exists.isInstance(expression):
            plan = expression.plan()
            used = [r for cond in seq(expression.joinCond()) for r in seq(cond.references())]
            kept = [a for a in seq(plan.output()) if any(a.equals(r) for r in used)]
            if kept:
                expression = expression.withNewPlan(self._project(self._seq(kept), plan))
        return self._subquery.fromExpression(expression)

    def _count_bug_aggregate(self, scalar):
        """The Aggregate under the scalar subquery's projections and filters when it may have
        the COUNT bug and Spark's conf guards against it, else None."""
        may_have = scalar.mayHaveCountBug()
        if may_have.isEmpty() or not may_have.get():
            return None
        sql_conf = self._jvm.org.apache.spark.sql.internal.SQLConf
        if not sql_conf.get().getConf(getattr(sql_conf, _COUNT_BUG_CONF)()):
            return None
        operation = self._physical_operation.unapply(scalar.plan())
        if operation.isEmpty():
            return None
        below = operation.get()._3()
        return below if self._aggregate.isInstance(below) else None

    def _seq(self, items: list):
        """A Scala immutable Seq of JVM objects."""
        return self._jvm.org.apache.spark.api.python.PythonUtils.toSeq(items)
