"""`from_spark(df_or_column)`: a Spark query's expressions and plan as exprscope's.

A DataFrame's analyzed logical plan (read through py4j) becomes an exprscope
logical plan: Project, Filter, Aggregate, Join (equi-joins, inner and left
outer), Sort, GlobalLimit/LocalLimit, SubqueryAlias/View, and the leaves
(LogicalRelation, LogicalRDD, LocalRelation ...) as scans of the Spark data
behind them. A Column becomes an expression: as Spark resolves it against
`df` when one is given (real types, Spark's implicit casts), otherwise its
unresolved tree. So a user can explain their real Spark filter pass by pass.

Spark Connect DataFrames and Columns (pyspark.sql.connect) carry a protobuf
plan instead, read by `from_connect`.
"""

from __future__ import annotations

from pathlib import PurePath

import toolkit as tk

from ... import plan
from ... import plan as plans  # noqa: F401  (plans exist: checked on use)
from ...errors import UsageError
from ..active_session import session
from ..errors import SparkImportError
from .from_catalyst import children, class_name, expression_from_catalyst
from .from_connect import from_connect, is_connect
from .relation_names import unique_name

__all__ = ["from_spark"]

_LEAF_CLASSES = {"LogicalRelation", "LogicalRDD", "LocalRelation", "HiveTableRelation",
                 "DataSourceV2Relation", "Range", "DataSourceV2ScanRelation"}


def from_spark(df_or_column, df=None):
    """An exprscope LogicalPlan for a DataFrame, an Expression for a Column.

    For a Column, `df` (optional) resolves it against that DataFrame first.
    """
    if is_connect(df_or_column):  # a protobuf plan, not an analyzed one
        return from_connect(df_or_column, df)
    if _is_column(df_or_column):
        if df is not None:
            projected = df.select(df_or_column)
            plan = projected._jdf.queryExecution().analyzed()
            return expression_from_catalyst(_seq(plan.projectList())[0])
        jsession = _session_of(df_or_column)
        return expression_from_catalyst(jsession.expression(df_or_column._jc))
    if hasattr(df_or_column, "_jdf"):
        analyzed = df_or_column._jdf.queryExecution().analyzed()
        return _PlanReader(df_or_column.sparkSession).read(analyzed)
    raise UsageError(f"from_spark takes a pyspark DataFrame or Column, not "
                    f"{type(df_or_column).__name__}")


def _is_column(obj) -> bool:
    return type(obj).__name__ == "Column" and hasattr(obj, "_jc")


def _session_of(column):
    return session()._jsparkSession


def _seq(scala_seq) -> list:
    return [scala_seq.apply(i) for i in range(scala_seq.size())]


class _PlanReader:
    """Reads one analyzed plan; scans get relation names from aliases, tables or files."""

    def __init__(self, spark):
        self.spark = spark
        self.used_names: set[str] = set()

    def read(self, root):
        frames = [[root, self._kids(root), [], None]]
        while True:
            node, kids, results, _ = frames[-1]
            if len(results) < len(kids):
                kid = kids[len(results)]
                frames.append([kid, self._kids(kid), [], None])
                continue
            frames.pop()
            out = self._node(node, results, frames[-1][0] if frames else None)
            if not frames:
                return out
            frames[-1][2].append(out)

    def _kids(self, node) -> list:
        return [] if class_name(node) in _LEAF_CLASSES else children(node)

    def _node(self, node, inputs, parent):
        name = class_name(node)
        if name in _LEAF_CLASSES:
            return self._scan(node, parent)
        if name in ("SubqueryAlias", "View", "LocalLimit", "Repartition",
                    "RepartitionByExpression", "ResolvedHint"):
            return inputs[0]
        if name == "Project":
            exprs = [self._expr(e) for e in _seq(node.projectList())]
            names = [str(e.name()) for e in _seq(node.projectList())]
            return inputs[0].project(exprs, names=names)
        if name == "Filter":
            return inputs[0].filter(self._expr(node.condition()))
        if name == "Aggregate":
            return self._aggregate(node, inputs[0])
        if name == "Join":
            return self._join(node, inputs, parent)
        if name == "Sort":
            if not getattr(node, "global")():
                raise SparkImportError("cannot import a partition-local sort "
                                       "(sortWithinPartitions)", spark_class="Sort")
            keys = []
            for order in _seq(node.order()):
                ascending = str(order.direction().sql()) == "ASC"
                nulls_first = str(order.nullOrdering().sql()) == "NULLS FIRST"
                keys.append((self._expr(order.child()),
                             "ascending" if ascending else "descending",
                             "nulls_first" if nulls_first else "nulls_last"))
            return inputs[0].sort(keys)
        if name == "GlobalLimit":
            limit = expression_from_catalyst(node.limitExpr())
            return inputs[0].limit(int(limit.value.as_py()))
        raise SparkImportError(f"cannot import the Spark plan node {name} into exprscope "
                               f"({node.simpleString(3)})", spark_class=name)

    def _expr(self, catalyst):
        return expression_from_catalyst(catalyst)

    def _scan(self, leaf, parent):
        from pyspark.sql.classic.dataframe import DataFrame

        relation = self._relation_name(leaf, parent)
        jvm = self.spark._jvm
        jdf = jvm.org.apache.spark.sql.classic.Dataset.ofRows(self.spark._jsparkSession, leaf)
        return plan.scan(relation, DataFrame(jdf, self.spark))

    def _relation_name(self, leaf, parent) -> str:
        base = None
        if parent is not None and class_name(parent) == "SubqueryAlias":
            base = str(parent.alias())
        if base is None and class_name(leaf) == "LogicalRelation":
            try:
                paths = _seq(leaf.relation().location().rootPaths())
                base = PurePath(str(paths[0].getName())).stem if paths else None
            except Exception:  # noqa: BLE001 - relations without files (JDBC, ...)
                base = None
        base = (base or class_name(leaf).lower()).replace(".", "_")
        return unique_name(base, self.used_names)

    def _aggregate(self, node, input_plan):
        groups = [self._expr(e) for e in _seq(node.groupingExpressions())]
        group_names = [_output_name(e, f"group{i}")
                       for i, e in enumerate(_seq(node.groupingExpressions()))]
        aggs: list[tuple] = []
        outputs, names = [], []
        for e in _seq(node.aggregateExpressions()):
            names.append(str(e.name()))
            outputs.append(self._over_aggregates(e, aggs, groups, group_names))
        if any(not g.is_field for g in groups):
            keyed = input_plan.project([*groups, *_columns(input_plan)],
                                       names=[*group_names, *input_plan.schema.names])
            input_plan = keyed
        grouped = input_plan.aggregate(group_names, aggs)
        return grouped.project(outputs, names=names)

    def _over_aggregates(self, catalyst, aggs: list, groups, group_names):
        """The output expression with each aggregate call replaced by a ref to its column."""

        def substitute(node):
            if class_name(node) == "AggregateExpression":
                return tk.field(self._aggregate_call(node, aggs))
            return None

        return expression_from_catalyst(catalyst, substitute=substitute)

    def _aggregate_call(self, agg_expr, aggs: list) -> str:
        function = agg_expr.aggregateFunction()
        fname = class_name(function)
        if agg_expr.isDistinct():
            raise SparkImportError(f"cannot import a DISTINCT aggregate ({fname})",
                                   spark_class=fname)
        args = children(function)
        mapping = {"Sum": "sum", "Min": "min", "Max": "max", "Average": "mean", "Count": "count"}
        if fname not in mapping:
            raise SparkImportError(f"cannot import the Spark aggregate {fname}",
                                   spark_class=fname)
        func = mapping[fname]
        column = f"_agg{len(aggs)}"
        if func == "count":
            if len(args) != 1:
                raise SparkImportError("cannot import count over several columns",
                                       spark_class="Count")
            arg = expression_from_catalyst(args[0])
            aggs.append(("count", None if arg.is_literal and arg.value.is_valid else arg, column))
        else:
            aggs.append((func, expression_from_catalyst(args[0]), column))
        return column

    def _join(self, node, inputs, parent):
        how = {"Inner": "inner", "LeftOuter": "left"}.get(str(node.joinType().toString()))
        if how is None:
            raise SparkImportError(f"cannot import a {node.joinType().toString()} join",
                                   spark_class="Join")
        left_names = {str(a.name()) for a in _seq(node.left().output())}
        right_names = {str(a.name()) for a in _seq(node.right().output())}
        condition = node.condition()
        if not condition.isEmpty():
            clauses = _conjuncts(condition.get())
        elif parent is not None and class_name(parent) == "Filter" and how == "inner":
            # `FROM a, b WHERE a.k = b.k`: the keys are in the filter above (which stays)
            clauses = [c for c in _conjuncts(parent.condition())
                       if _joins_sides(c, left_names, right_names)]
        else:
            clauses = []
        if not clauses:
            raise SparkImportError("cannot import a join without equal keys (cross join)",
                                   spark_class="Join")
        pairs = []
        for clause in clauses:
            if class_name(clause) != "EqualTo":
                raise SparkImportError(f"cannot import a join condition that is not an "
                                       f"equality of columns ({clause.toString()})",
                                       spark_class=class_name(clause))
            a, b = children(clause)
            if class_name(a) != "AttributeReference" or class_name(b) != "AttributeReference":
                raise SparkImportError(f"cannot import a join on computed keys "
                                       f"({clause.toString()})", spark_class="EqualTo")
            an, bn = str(a.name()), str(b.name())
            pairs.append((an, bn) if an in left_names else (bn, an))
        return inputs[0].join(inputs[1], on=pairs, how=how)


def _joins_sides(clause, left_names, right_names) -> bool:
    """An equality of a left column and a right column."""
    if class_name(clause) != "EqualTo":
        return False
    a, b = children(clause)
    if class_name(a) != "AttributeReference" or class_name(b) != "AttributeReference":
        return False
    names = {str(a.name()), str(b.name())}
    return bool(names & left_names) and bool(names & right_names)


def _conjuncts(condition) -> list:
    out, stack = [], [condition]
    while stack:
        c = stack.pop()
        if class_name(c) == "And":
            stack.extend(reversed(children(c)))
        else:
            out.append(c)
    return out


def _output_name(catalyst, default):
    try:
        return str(catalyst.name())
    except Exception:  # noqa: BLE001 - expressions without a name
        return default


def _columns(p):
    return list(p.schema.names)
