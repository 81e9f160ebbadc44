"""`from_spark(df_or_column, stage=...)`: a Spark query's expressions and plan as exprscope's.

A DataFrame's analyzed logical plan (or, with stage="optimized", the plan Spark runs),
read through py4j, becomes an exprscope logical plan: Project, Filter, Aggregate
(DISTINCT aggregates and FILTER clauses too; count_if as a count of NULLIF(c, false),
bool_and / every, bool_or / some / any, median, percentile and percentile_cont as the
plan's exact percentile; min_by / max_by, first / last and the approximate ones are
refused, their answer depending on Spark's reading order or sketches), Join of every
type (equal keys plus a residual condition; a comma join stays a cross join under its
filter, which the optimizer's eliminate_cross_join turns into equi-joins), Sort, limits, Union (ALL;
DISTINCT as an aggregate over every column), SubqueryAlias/View, INTERSECT / EXCEPT
(DISTINCT: a semi / anti join on `<=>` of every column, then DISTINCT, as Spark's
optimizer writes them), Expand (ROLLUP, CUBE, GROUPING SETS: a UNION ALL of its
projections), windows (ntile, percent_rank, cume_dist from row_number, rank, count;
the aggregates, variances and standard deviations included; first / last /
first_value / last_value, IGNORE NULLS or not, over an ordered window: the frame's
first or last row, which ties in the order keys leave to Spark's sort), WITH queries,
and the leaves (LogicalRelation, LogicalRDD, LocalRelation ...) as scans of the Spark data
behind them, named as the user named them (alias, temp view, table, file; else df1,
df2 ...). Attributes are matched by Spark's exprId, so self-joins and USING joins
resolve. EXISTS / IN subqueries become SubqueryFilter nodes (NOT IN null-aware), which
the optimizer's decorrelate_predicate_subquery turns into semi / anti joins; scalar
subqueries become ScalarSubquery nodes (a correlated one keeps its correlation, which
decorrelate_scalar_subquery turns into a grouping), which scalar_subquery_to_join
makes left joins. A Column becomes an expression: as Spark resolves it against `df`
when one is given (real types, Spark's implicit casts), otherwise its unresolved tree.
What cannot be imported raises SparkImportError naming the Spark class and, for SQL,
the line of the query.

Spark Connect DataFrames and Columns (pyspark.sql.connect) carry a protobuf
plan instead, read by `from_connect`.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import NamedTuple

import pyarrow as pa

import toolkit as tk

from ... import plan
from ... import plan as plans  # noqa: F401  (plans exist: checked on use)
from ...errors import UsageError
from ...plan.builder import join_condition
from ...plan.float_keys import IEEE, NORMALIZED, has_float_key
from ..active_session import session
from ..errors import SparkImportError
from ..translate.types import from_spark_type
from .distinct_aggregates import (
    GID,
    ROWS_COUNTED,
    CopiedArgument,
    copied_rows,
    distinct_column,
    final_function,
    group_column,
    plain_column,
)
from .float_order import compare, equal_null_safe, spark_max
from .from_catalyst import children, class_name, expression_from_catalyst, spark_type_of
from .from_connect import from_connect, is_connect
from .percentile_settings import percentile_fraction
from .relation_names import unique_name
from .sql_origin import origin_text

__all__ = ["STAGES", "Imported", "from_spark"]

_LEAF_CLASSES = {"LogicalRelation", "LogicalRDD", "LocalRelation", "HiveTableRelation",
                 "DataSourceV2Relation", "Range", "DataSourceV2ScanRelation"}
_PASS_THROUGH = {"SubqueryAlias", "View", "LocalLimit", "Repartition", "RepartitionByExpression",
                 "ResolvedHint", "WithCTE"}
STAGES = ("analyzed", "optimized")
# aggregates exprscope's plan cannot express, and why
_REFUSED_AGGREGATES = {
    "First": "it keeps whichever row Spark reads first, which depends on Spark's partitions "
             "(nondeterministic)",
    "Last": "it keeps whichever row Spark reads last, which depends on Spark's partitions "
            "(nondeterministic)",
    "CollectList": "it makes an array (in Spark's reading order), and exprscope's aggregates "
                   "return one value of the argument's type",
    "CollectSet": "it makes an array, and exprscope's aggregates return one value of the "
                  "argument's type",
    "HyperLogLogPlusPlus": "approx_count_distinct is Spark's HyperLogLog++ sketch, whose "
                           "estimate exprscope cannot reproduce (count(DISTINCT x) is exact "
                           "and imports)",
    "ApproximatePercentile": "percentile_approx is Spark's quantile sketch, whose answer "
                             "exprscope cannot reproduce",
    "MinBy": "min_by keeps the value of a row with the least ordering value, and where "
             "several rows share it Spark keeps whichever it reads first (it depends on "
             "Spark's partitions); exprscope's aggregates give one answer for one input",
    "MaxBy": "max_by keeps the value of a row with the greatest ordering value, and where "
             "several rows share it Spark keeps whichever it reads first (it depends on "
             "Spark's partitions); exprscope's aggregates give one answer for one input",
    "PivotFirst": "a pivot makes one column per value; exprscope imports its aggregates only "
                  "when written out (sum(when(g = 0, x)) ...)",
}
# Spark's aggregate classes exprscope's plans have, by the plan's function name
_AGGREGATES = {"Sum": "sum", "Min": "min", "Max": "max", "Average": "mean", "Count": "count",
               "VarianceSamp": "var_samp", "VariancePop": "var_pop",
               "StddevSamp": "stddev_samp", "StddevPop": "stddev_pop",
               "BoolAnd": "bool_and", "BoolOr": "bool_or", "CountIf": "count",
               "Median": "percentile", "Percentile": "percentile",
               "PercentileCont": "percentile"}
_PERCENTILES = ("Median", "Percentile", "PercentileCont")
# plan nodes exprscope's plan cannot express, and why
_REFUSED_NODES = {
    "Generate": "it makes several rows of one (explode, posexplode, inline, or the "
                "replicaterows of INTERSECT ALL / EXCEPT ALL), and exprscope's plan has no "
                "node that multiplies rows nor the array and map types explode reads",
    "Sample": "it keeps a random part of the rows (Spark's own generator and seed), which "
              "exprscope cannot reproduce row for row",
    "Pivot": "a pivot makes one column per value; exprscope imports its aggregates only "
             "when written out (sum(when(g = 0, x)) ...)",
}
_JOIN_TYPES = {"Inner": "inner", "Cross": "cross", "LeftOuter": "left", "RightOuter": "right",
               "FullOuter": "full", "LeftSemi": "semi", "LeftAnti": "anti"}


def from_spark(df_or_column, df=None, stage: str = "analyzed"):
    """An exprscope LogicalPlan for a DataFrame, an Expression for a Column.

    For a Column, `df` (optional) resolves it against that DataFrame first. For a
    DataFrame, `stage` says which of Spark's plans to read: "analyzed" (the default:
    the query as the user wrote it, resolved) or "optimized" (as Spark runs it, after
    Catalyst's rules).
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
        if stage not in STAGES:
            raise UsageError(f"from_spark: stage must be one of {STAGES}, got {stage!r}")
        execution = df_or_column._jdf.queryExecution()
        root = execution.analyzed() if stage == "analyzed" else execution.optimizedPlan()
        return _PlanReader(df_or_column.sparkSession).read(root).plan
    raise UsageError(f"from_spark takes a pyspark DataFrame or Column, not "
                    f"{type(df_or_column).__name__}")


def _is_column(obj) -> bool:
    return type(obj).__name__ == "Column" and hasattr(obj, "_jc")


def _session_of(column):
    return session()._jsparkSession


def _seq(scala_seq) -> list:
    return [scala_seq.apply(i) for i in range(scala_seq.size())]


def _expr_id(attribute) -> int:
    return int(attribute.exprId().id())


class Imported(NamedTuple):
    """An imported Spark node: the exprscope plan, and the Spark attribute (exprId) of each
    field of its schema, in order, so a parent's references find their columns."""

    plan: object
    ids: tuple[int, ...]

    def names(self) -> dict[int, str]:
        return dict(zip(self.ids, self.plan.schema.qualified_names))


class _PlanReader:
    """Reads one Spark plan; scans get relation names from aliases, tables or files."""

    def __init__(self, spark):
        self.spark = spark
        self.used_names: set[str] = set()
        self.unnamed = 0
        self.ctes: dict[int, object] = {}  # a WITH's definitions, by id: each use reads one
        self.subqueries: dict[int, str] = {}  # a scalar subquery (exprId) -> its column
        self.outer: Imported | None = None  # reading a correlated subquery: the outer input
        self.correlated: list = []  # ... and the conditions on outer columns found in it
        self.carried: list[int] = []  # ... and the inner columns those conditions read
        self.aggregated: dict[int, str] | None = None  # a scalar one: those columns where
        # its aggregate reads them (exprId -> name there)

    def read(self, root) -> Imported:
        self._find_ctes(root)
        frames = [[root, self._kids(root), []]]
        while True:
            node, kids, results = frames[-1]
            if len(results) < len(kids):
                kid = kids[len(results)]
                frames.append([kid, self._kids(kid), []])
                continue
            frames.pop()
            try:
                out = self._node(node, results, [f[0] for f in frames])
            except SparkImportError as exc:
                raise _placed(exc, node) from None
            if not frames:
                return out
            frames[-1][2].append(out)

    def _kids(self, node) -> list:
        name = class_name(node)
        if name in _LEAF_CLASSES or name == "CTERelationRef":
            return []
        if name == "WithCTE":  # the definitions are read where they are used
            return [node.plan()]
        return children(node)

    def _find_ctes(self, root) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if class_name(node) == "CTERelationDef":
                self.ctes[int(node.id())] = node.child()
            stack.extend(children(node))

    def _cte(self, ref) -> Imported:
        """A use of a WITH's query: that query, read again (its scans under new names)."""
        definition = self.ctes.get(int(ref.cteId()))
        if definition is None:
            raise SparkImportError(f"cannot import {ref.simpleString(3)}: its WITH definition "
                                   "is not in the plan", spark_class="CTERelationRef")
        inner = self.read(definition)
        return Imported(inner.plan, tuple(_expr_id(a) for a in _seq(ref.output())))

    def _filter(self, node, input: Imported) -> Imported:
        """A filter; its EXISTS and IN subqueries become SubqueryFilters over the rows the
        other conjuncts keep, their correlated conditions the subquery's condition (the
        optimizer makes them semi joins, or anti joins for NOT)."""
        plain, subqueries = [], []
        for clause in _conjuncts(node.condition()):
            if self.outer is not None and _has_outer_reference(clause):
                self.correlated.append(clause)  # the join's condition
                pair = _outer_pair(clause)
                if pair is not None:
                    self.carried.append(_expr_id(pair[1]))
                continue
            inner = children(clause)[0] if class_name(clause) == "Not" else clause
            (subqueries if class_name(inner) in ("Exists", "InSubquery") else plain).append(
                clause)
        out = input
        if plain:
            child = self._with_subqueries(input, *plain)
            condition = [self._expr(c, child) for c in plain]
            kept = child.plan.filter(condition[0] if len(condition) == 1 else tk.and_(condition))
            if child is not input:  # the scalar subqueries' columns go again
                width = len(input.plan.schema)
                kept = kept.project([tk.field(n) for n in kept.schema.qualified_names[:width]],
                                    names=kept.schema.names[:width])
            out = Imported(kept, input.ids)
        for clause in subqueries:
            out = self._subquery_filter(clause, out)
        return out

    def _subquery_filter(self, clause, outer: Imported) -> Imported:
        negated = class_name(clause) == "Not"
        predicate = children(clause)[0] if negated else clause
        kind = class_name(predicate)
        query = predicate if kind == "Exists" else predicate.query()
        saved = self.outer, self.correlated, self.carried, self.aggregated
        self.outer, self.correlated, self.carried, self.aggregated = outer, [], [], None
        try:
            inner = self.read(query.plan())
            correlated = self.correlated
        finally:
            self.outer, self.correlated, self.carried, self.aggregated = saved
        pairs, rest = [], []
        outer_names, inner_names = outer.names(), inner.names()
        for c in correlated:
            pair = _outer_pair(c)
            if pair is not None and _expr_id(pair[1]) in inner_names and \
                    pair[0].dataType().sameType(pair[1].dataType()):
                pairs.append((outer_names[_expr_id(pair[0])], inner_names[_expr_id(pair[1])]))
            else:
                rest.append(self._expr(c, outer, inner))
        if kind == "InSubquery":  # x IN (SELECT y ...): x = y; NOT IN: no row where x = y
            values = _seq(predicate.values())
            for value, column in zip(values, inner.plan.schema.qualified_names):
                floats = pa.types.is_floating(_arrow_type(value))  # NaN IN (NaN) is true
                equal = compare("EqualTo", self._expr(value, outer), tk.field(column), floats)
                if negated:  # NOT IN is unknown, so false, when x = y is unknown
                    rest.append(tk.or_(equal, tk.is_null(equal)))
                elif class_name(value) == "AttributeReference" and \
                        outer.plan.schema.field(outer_names[_expr_id(value)]).type == \
                        inner.plan.schema.field(column).type:
                    pairs.append((outer_names[_expr_id(value)], column))
                else:
                    rest.append(equal)
        condition = None if not rest else (rest[0] if len(rest) == 1 else tk.and_(rest))
        if condition is not None:
            condition = join_condition(outer.plan, inner.plan, condition)
        kept = plan.SubqueryFilter(outer.plan, inner.plan, "exists" if kind == "Exists" else "in",
                                   negated, pairs, condition, _float_keys(outer.plan, pairs))
        return Imported(kept, outer.ids)

    def _with_subqueries(self, child: Imported, *catalyst) -> Imported:
        """`child` with the value of each scalar subquery in the expressions as a column
        (null when the subquery has no row, as SQL says): a ScalarSubquery node each.

        An uncorrelated subquery has one row. A correlated one (`WHERE inner.k =
        outer.k`, over an aggregate) stays correlated: its aggregate is read without the
        correlated conditions, which become the node's correlation, and the optimizer's
        decorrelate_scalar_subquery groups it by them, as Spark's optimizer does.
        """
        out = child
        for sub in _scalar_subqueries(catalyst):
            correlated = not sub.outerAttrs().isEmpty()
            saved = self.outer, self.correlated, self.carried, self.aggregated
            self.outer, self.correlated, self.carried = (out if correlated else None), [], []
            self.aggregated = {}
            try:
                inner = self.read(sub.plan())
                conditions, aggregated = self.correlated, self.aggregated
            finally:
                self.outer, self.correlated, self.carried, self.aggregated = saved
            pairs = []
            outer_names = out.names()
            for c in conditions:
                pair = _outer_pair(c)
                if pair is None or _expr_id(pair[1]) not in aggregated:
                    raise SparkImportError(
                        f"cannot import a scalar subquery correlated by {c.toString()}: only "
                        "equalities of an outer column and a column its aggregate reads "
                        "decorrelate into a join" + origin_text(sub),
                        spark_class="ScalarSubquery")
                if not pair[0].dataType().sameType(pair[1].dataType()):
                    raise SparkImportError(
                        f"cannot import a scalar subquery correlated by {c.toString()}: its "
                        f"two sides have different types ({pair[0].dataType().simpleString()}"
                        f", {pair[1].dataType().simpleString()})" + origin_text(sub),
                        spark_class="ScalarSubquery")
                pairs.append((outer_names[_expr_id(pair[0])], aggregated[_expr_id(pair[1])]))
            if len(inner.plan.schema) != 1:
                raise SparkImportError("a scalar subquery must produce one column",
                                       spark_class="ScalarSubquery")
            try:
                joined = plan.ScalarSubquery(out.plan, inner.plan, correlation=pairs,
                                             float_keys=_float_keys(out.plan, pairs))
            except plan.PlanError as exc:
                raise SparkImportError(f"cannot import the scalar subquery: {exc}"
                                       + origin_text(sub), spark_class="ScalarSubquery") from None
            self.subqueries[_expr_id(sub)] = inner.plan.schema.qualified_names[0]
            out = Imported(joined, out.ids + inner.ids)
        return out

    def _node(self, node, inputs: list[Imported], ancestors) -> Imported:
        name = class_name(node)
        if name in _LEAF_CLASSES:
            return self._scan(node, ancestors)
        if name in _PASS_THROUGH:
            return inputs[0]
        if name == "CTERelationRef":
            return self._cte(node)
        if name == "Project":
            items, seen = [], set()
            for item in _seq(node.projectList()):  # Spark repeats a window's column above it
                if class_name(item) == "AttributeReference" and _expr_id(item) in seen:
                    continue
                seen.add(_expr_id(item))
                items.append(item)
            child = self._with_subqueries(inputs[0], *items)
            exprs = [self._expr(e, child) for e in items]
            names = _distinct_names([str(e.name()) for e in items])
            ids = [_expr_id(e) for e in items]
            for carried in self.carried:  # a correlated subquery's columns its join needs
                if carried in child.ids and carried not in ids:
                    column = child.names()[carried]
                    exprs.append(tk.field(column))
                    names.append(child.plan.schema.field(column).name)
                    ids.append(carried)
            return Imported(child.plan.project(exprs, names=names), tuple(ids))
        if name == "Filter":
            return self._filter(node, inputs[0])
        if name == "Aggregate":
            return self._aggregate(node, inputs[0])
        if name == "Join":
            return self._join(node, inputs)
        if name == "Sort":
            if not getattr(node, "global")():
                raise SparkImportError("cannot import a partition-local sort "
                                       "(sortWithinPartitions)", spark_class="Sort")
            child = inputs[0]
            keys = []
            for order in _seq(node.order()):
                ascending = str(order.direction().sql()) == "ASC"
                nulls_first = str(order.nullOrdering().sql()) == "NULLS FIRST"
                keys.append((self._expr(order.child(), child),
                             "ascending" if ascending else "descending",
                             "nulls_first" if nulls_first else "nulls_last"))
            return Imported(child.plan.sort(keys), child.ids)
        if name == "Union":
            if node.byName() or node.allowMissingCol():
                raise SparkImportError("cannot import a union by name (unionByName): Spark "
                                       "left it unresolved", spark_class="Union")
            first = inputs[0]
            return Imported(first.plan.union(*[i.plan for i in inputs[1:]]), first.ids)
        if name == "Distinct":
            return Imported(inputs[0].plan.distinct(), inputs[0].ids)
        if name == "Deduplicate":  # df.distinct(); dropDuplicates(subset) keeps any one row
            keys = {_expr_id(k) for k in _seq(node.keys())}
            if keys != set(inputs[0].ids):
                raise SparkImportError(
                    "cannot import dropDuplicates over some of the columns: Spark keeps an "
                    "arbitrary row of each group, which exprscope does not reproduce",
                    spark_class="Deduplicate")
            return Imported(inputs[0].plan.distinct(), inputs[0].ids)
        if name == "Window":
            return self._window(node, inputs[0])
        if name in ("Intersect", "Except"):
            return self._set_operation(node, inputs)
        if name == "Expand":
            return self._expand(node, inputs[0])
        if name == "GlobalLimit":
            limit = int(expression_from_catalyst(node.limitExpr()).value.as_py())
            below = inputs[0].plan
            if isinstance(below, plans.Limit) and below.fetch is None:  # LIMIT over OFFSET
                return Imported(below.input.limit(limit, below.skip), inputs[0].ids)
            return Imported(below.limit(limit), inputs[0].ids)
        if name == "Offset":
            skip = int(expression_from_catalyst(node.offsetExpr()).value.as_py())
            below = inputs[0].plan
            if isinstance(below, plans.Limit):  # OFFSET over LIMIT: the limit's rows after
                fetch = None if below.fetch is None else max(below.fetch - skip, 0)
                return Imported(below.input.limit(fetch, below.skip + skip), inputs[0].ids)
            return Imported(below.limit(None, skip), inputs[0].ids)
        if name in _REFUSED_NODES:
            raise SparkImportError(f"cannot import the Spark plan node {name} "
                                   f"({node.simpleString(3)}): {_REFUSED_NODES[name]}",
                                   spark_class=name)
        raise SparkImportError(f"cannot import the Spark plan node {name} into exprscope "
                               f"({node.simpleString(3)})", spark_class=name)

    def _expr(self, catalyst, *over: Imported, substitute=None):
        """The expression, its attributes named by the columns of the inputs `over`."""
        names: dict[int, str] = {}
        for imported in over:
            names.update(imported.names())

        def subquery(node):
            if class_name(node) == "ScalarSubquery" and _expr_id(node) in self.subqueries:
                return tk.field(self.subqueries[_expr_id(node)])
            if class_name(node) == "OuterReference":
                return tk.field(resolve(node.e()))
            if class_name(node) == "AtLeastNNonNulls":
                return _at_least_n_non_nulls(
                    int(node.n()), [(expression_from_catalyst(c, resolve_attribute=resolve,
                                                              substitute=subquery),
                                     pa.types.is_floating(_arrow_type(c)))
                                    for c in children(node)])
            return None if substitute is None else substitute(node)

        def resolve(attribute):
            found = names.get(_expr_id(attribute))
            if found is None:
                raise SparkImportError(
                    f"cannot import a reference to {attribute.toString()}: no input of this "
                    "node produces it (an outer reference of a correlated subquery?)",
                    spark_class=class_name(attribute))
            return found

        return expression_from_catalyst(catalyst, resolve_attribute=resolve,
                                         substitute=subquery)

    def _scan(self, leaf, ancestors) -> Imported:
        from pyspark.sql.classic.dataframe import DataFrame

        relation = self._relation_name(leaf, ancestors)
        jvm = self.spark._jvm
        jdf = jvm.org.apache.spark.sql.classic.Dataset.ofRows(self.spark._jsparkSession, leaf)
        return Imported(plan.scan(relation, DataFrame(jdf, self.spark)),
                        tuple(_expr_id(a) for a in _seq(leaf.output())))

    def _relation_name(self, leaf, ancestors) -> str:
        """The user's name for a scan: the alias over it (`FROM nation n1`: n1), else its
        temp view or table, else its file's name, else df1, df2 ... in order."""
        base = None
        for parent in reversed(ancestors):  # the chain of aliases right above the leaf
            kind = class_name(parent)
            if kind == "SubqueryAlias":
                base = str(parent.alias())
            elif kind == "View" and base is None:
                base = str(parent.desc().identifier().table())
            elif kind not in ("View",):
                break
        if base is None and class_name(leaf) == "LogicalRelation":
            try:
                table = leaf.catalogTable()
                if table.isDefined():
                    base = str(table.get().identifier().table())
                else:
                    paths = _seq(leaf.relation().location().rootPaths())
                    base = PurePath(str(paths[0].getName())).stem if paths else None
            except Exception:  # noqa: BLE001 - relations without files (JDBC, ...)
                base = None
        if base is None:
            self.unnamed += 1
            base = f"df{self.unnamed}"
        return unique_name(base.replace(".", "_"), self.used_names)

    def _aggregate(self, node, child: Imported) -> Imported:
        catalyst_groups = _seq(node.groupingExpressions())
        groups = [self._expr(e, child) for e in catalyst_groups]
        carried = [i for i in self.carried if i in child.ids]
        if carried and self.aggregated is not None:  # a correlated scalar subquery's
            # aggregate: the rows it reads are the input's, the correlation keeps them
            if catalyst_groups or _distinct_argument(node) is not None:
                raise SparkImportError(
                    "cannot import a correlated scalar subquery over a grouped or DISTINCT "
                    "aggregate: exprscope decorrelates an aggregate without groups",
                    spark_class="Aggregate")
            self.aggregated.update({i: child.names()[i] for i in carried})
            carried = []
        elif carried:  # an EXISTS / IN subquery: one group per correlated key
            if catalyst_groups or any(class_name(a.aggregateFunction()) == "Count" for a in
                                      _aggregate_expressions(_seq(node.aggregateExpressions()))):
                raise SparkImportError(
                    "cannot import a correlated subquery over a grouped aggregate or a count "
                    "(its empty groups would need a 0, not a missing row)",
                    spark_class="Aggregate")
            groups = [tk.field(child.names()[i]) for i in carried]
        input_plan = child.plan
        if all(g.is_field for g in groups):
            keys = groups
        else:  # computed keys: a projection names them first
            key_names = [f"_group{i}" for i in range(len(groups))]
            columns = [tk.field(n) for n in input_plan.schema.qualified_names]
            input_plan = input_plan.project([*groups, *columns],
                                            names=[*key_names, *input_plan.schema.names])
            keys = [tk.field(n) for n in key_names]
        if _mixes_distinct(node):
            if carried:
                raise SparkImportError(
                    "cannot import a correlated subquery over DISTINCT aggregates mixed with "
                    "others", spark_class="Aggregate")
            return self._mixed_distinct(node, child, groups, catalyst_groups)
        aggs: list[tuple] = []
        distinct = _distinct_argument(node)
        if distinct is not None:  # count(DISTINCT x): group by the keys and x first
            input_plan = input_plan.aggregate([*keys, self._expr(distinct, child)], [])

        def substitute(catalyst):
            if class_name(catalyst) == "AggregateExpression":
                return self._aggregate_call(catalyst, aggs, child)
            for i, g in enumerate(catalyst_groups):
                if class_name(catalyst) != "AttributeReference" and catalyst.semanticEquals(g):
                    return keys[i]
            return None

        outputs, names, ids = self._aggregate_outputs(node, child, substitute)
        grouped = input_plan.aggregate(keys, aggs)
        for i in carried:
            column = child.names()[i]
            outputs.append(tk.field(column))
            names.append(child.plan.schema.field(column).name)
            ids.append(i)
        return Imported(grouped.project(outputs, names=_distinct_names(names)), tuple(ids))

    def _aggregate_outputs(self, node, child: Imported, substitute) -> tuple[list, list, list]:
        """An Aggregate's output expressions (its calls and keys as `substitute` names
        them), their names and their Spark attribute ids."""
        outputs, names, ids = [], [], []
        for e in _seq(node.aggregateExpressions()):
            names.append(str(e.name()))
            ids.append(_expr_id(e))
            outputs.append(self._expr(e, child, substitute=substitute))
        return outputs, names, ids

    def _mixed_distinct(self, node, child: Imported, groups: list,
                        catalyst_groups: list) -> Imported:
        """An Aggregate whose DISTINCT aggregates stand beside others, or read several
        arguments: copies of the rows, then two aggregates (`distinct_aggregates.py`)."""
        calls = _aggregate_expressions(_seq(node.aggregateExpressions()))
        distinct_args: list = []  # a DISTINCT call for each set of distinct values
        plain: list = []
        for call in calls:
            args = children(call.aggregateFunction())
            if call.isDistinct():
                if len(args) != 1:
                    raise SparkImportError(
                        f"cannot import {call.toString()}: a DISTINCT aggregate over several "
                        "arguments counts their distinct combinations, which exprscope's "
                        "aggregates of one argument do not", spark_class="AggregateExpression")
                if _distinct_index(call, distinct_args) is None:
                    distinct_args.append(call)
            elif not any(call.semanticEquals(c) for c in plain):
                plain.append(call)
        plain_arguments = []
        for call in plain:
            args = _value_arguments(call.aggregateFunction())
            value = self._expr(args[0], child) if len(args) == 1 else None
            rows_counted = value is not None and value.is_literal and value.value.is_valid
            if value is None:
                raise SparkImportError(f"cannot import {call.toString()}: an aggregate of "
                                       "several arguments", spark_class="AggregateExpression")
            copied = ROWS_COUNTED if rows_counted else CopiedArgument(value, _arrow_type(args[0]))
            plain_arguments.append(copied._replace(value=self._filtered(
                call, copied.value, copied.type, child)))
        distinct_arguments = []
        for call in distinct_args:  # the FILTER applies to the copies
            argument = children(call.aggregateFunction())[0]
            distinct_arguments.append(CopiedArgument(self._filtered(
                call, self._expr(argument, child), _arrow_type(argument), child),
                _arrow_type(argument)))
        copies = copied_rows(child.plan, groups, distinct_arguments, plain_arguments)
        keys = [tk.field(group_column(i)) for i in range(len(groups))]
        firsts: list[tuple] = []
        values = []
        for i, call in enumerate(plain):
            values.append(self._aggregate_call(call, firsts, child, tk.field(plain_column(i)),
                                               filtered=True))
        copied = copies.aggregate(
            [*keys, tk.field(GID), *[tk.field(distinct_column(j + 1))
                                     for j in range(len(distinct_args))]], firsts)
        finals: list[tuple] = []
        found: list[tuple] = []  # (catalyst call, its value over the final columns)
        for call, value in zip(plain, values):
            column = f"_plain{len(finals)}"
            func = _AGGREGATES[class_name(call.aggregateFunction())]
            finals.append((final_function(func), value, column))
            found.append((call, tk.field(column)))
        for call in calls:
            if call.isDistinct() and not any(call.semanticEquals(c) for c, _ in found):
                j = _distinct_index(call, distinct_args)
                found.append((call, self._aggregate_call(
                    call, finals, child, tk.field(distinct_column(j + 1)), filtered=True,
                    column_prefix="_dagg")))
        grouped = copied.aggregate(keys, finals)

        def substitute(catalyst):
            for call, value in found:
                if class_name(catalyst) == "AggregateExpression" and catalyst.semanticEquals(call):
                    return value
            for i, g in enumerate(catalyst_groups):
                if catalyst.semanticEquals(g):
                    return keys[i]
            return None

        outputs, names, ids = self._aggregate_outputs(node, child, substitute)
        return Imported(grouped.project(outputs, names=_distinct_names(names)), tuple(ids))

    def _window(self, node, child: Imported) -> Imported:
        """Spark's Window: the child's columns plus one per windowExpression (an Alias of a
        WindowExpression(function, WindowSpecDefinition(partition, order, frame)), or of
        an expression over such calls, as Spark's DecimalAggregates writes a decimal
        sum: each call becomes a window column and the expression a projection above)."""
        specs, hidden, outputs, names, ids = [], [], [], [], []
        for named in _seq(node.windowExpressions()):
            expression = named.child() if class_name(named) == "Alias" else named
            calls = _window_calls(expression)
            if not calls:
                raise SparkImportError(f"cannot import the window column {named.toString()}: "
                                       "it holds no window function",
                                       spark_class=class_name(expression))
            found = []
            for call in calls:
                made = self._window_function(call, child)
                if isinstance(made, _DerivedWindow):  # several window columns, combined
                    columns = []
                    for spec in made.specs:
                        specs.append(spec)
                        hidden.append(f"_window{len(hidden)}")
                        columns.append(tk.field(hidden[-1]))
                    found.append((call, made.combine(*columns)))
                    continue
                specs.append(made)
                hidden.append(f"_window{len(hidden)}")
                found.append((call, tk.field(hidden[-1])))

            def substitute(catalyst, found=found):
                for call, column in found:
                    if class_name(catalyst) == "WindowExpression" and catalyst.fastEquals(call):
                        return column
                return None

            outputs.append(self._expr(expression, child, substitute=substitute))
            names.append(str(named.name()))
            ids.append(_expr_id(named))
        windowed = child.plan.window(specs, hidden)
        ranked = {h for spec, h in zip(specs, hidden)
                  if spec["func"] in ("row_number", "rank", "dense_rank")}
        # Spark's ranks are int (int32); the plan's are int64, as DataFusion's
        outputs = [tk.cast(e, pa.int32()) if e.is_field and e.ref.name in ranked else e
                   for e in outputs]
        passed = [tk.field(n) for n in child.plan.schema.qualified_names]
        projected = windowed.project([*passed, *outputs],
                                     names=[*child.plan.schema.names, *names])
        return Imported(projected, (*child.ids, *ids))

    def _window_function(self, expression, child: Imported) -> dict:
        function, spec = expression.windowFunction(), expression.windowSpec()
        fname = class_name(function)
        partition = [self._expr(e, child) for e in _seq(spec.partitionSpec())]
        order = []
        for o in _seq(spec.orderSpec()):
            order.append((self._expr(o.child(), child),
                          "ascending" if str(o.direction().sql()) == "ASC" else "descending",
                          "nulls_first" if str(o.nullOrdering().sql()) == "NULLS FIRST"
                          else "nulls_last"))
        out = {"partition_by": partition, "order_by": order}
        ranking = {"RowNumber": "row_number", "Rank": "rank", "DenseRank": "dense_rank"}
        if fname in ranking:
            return {**out, "func": ranking[fname]}
        if fname in _DERIVED_WINDOWS:
            return _DERIVED_WINDOWS[fname](out, function)
        if fname in ("Lag", "Lead"):
            if function.ignoreNulls():
                raise SparkImportError(f"cannot import {fname.lower()} IGNORE NULLS",
                                       spark_class=fname)
            default = self._expr(function.default(), child)
            if default.is_literal and not default.value.is_valid:
                default = None  # Spark's default default: null
            offset = expression_from_catalyst(children(function)[1])  # input, offset, default
            return {**out, "func": fname.lower(), "arg": self._expr(function.input(), child),
                    "offset": abs(int(offset.value.as_py())), "default": default}
        if fname != "AggregateExpression":
            raise SparkImportError(f"cannot import the Spark window function {fname}",
                                   spark_class=fname)
        aggregate = function.aggregateFunction()
        aname = class_name(aggregate)
        if aname in ("First", "Last") and not function.isDistinct() \
                and function.filter().isEmpty():
            if not order:
                raise SparkImportError(
                    f"cannot import the window aggregate {function.toString()} over a window "
                    "without an order: it keeps whichever row Spark reads first, which depends "
                    "on Spark's partitions (nondeterministic); order the window",
                    spark_class=aname)
            return {**out, "func": "first_value" if aname == "First" else "last_value",
                    "arg": self._expr(children(aggregate)[0], child),
                    "ignore_nulls": bool(aggregate.ignoreNulls()),
                    "frame": _window_frame(spec.frameSpecification(), True)}
        mapping = {"Sum": "sum", "Min": "min", "Max": "max", "Average": "avg", "Count": "count",
                   "VarianceSamp": "var_samp", "VariancePop": "var_pop",
                   "StddevSamp": "stddev_samp", "StddevPop": "stddev_pop"}
        if aname not in mapping or function.isDistinct() or not function.filter().isEmpty():
            raise SparkImportError(f"cannot import the window aggregate {function.toString()}",
                                   spark_class=aname)
        _refuse_legacy_sample(aggregate, function)
        args = children(aggregate)
        arg = self._expr(args[0], child) if len(args) == 1 else None
        if aname == "Average" and class_name(args[0].dataType()) == "DecimalType":
            spark_type = args[0].dataType()  # Spark's avg adds 4 digits
            arg = arg.cast(_spark_average_type(int(spark_type.precision()),
                                               int(spark_type.scale())))
        if aname == "Count":
            if len(args) != 1:
                raise SparkImportError("cannot import count over several columns",
                                       spark_class="Count")
            arg = None if arg.is_literal and arg.value.is_valid else arg
        return {**out, "func": mapping[aname], "arg": arg,
                "frame": _window_frame(spec.frameSpecification(), bool(order))}

    def _aggregate_call(self, agg_expr, aggs: list, child: Imported,
                        argument: tk.Expression | None = None, filtered: bool = False,
                        column_prefix: str = "_agg") -> tk.Expression:
        """The plan aggregates computing `agg_expr` (added to `aggs`) and the expression
        over their columns that is its value; `argument`, when given, is the column
        that stands for the call's argument (`filtered`: its FILTER applied already)."""
        function = agg_expr.aggregateFunction()
        fname = class_name(function)
        args = _value_arguments(function)
        if fname not in _AGGREGATES:
            why = _REFUSED_AGGREGATES.get(
                fname, "exprscope's aggregates are sum, count, count_if, min, max, avg, "
                "bool_and, bool_or, median and percentile, and the variances and standard "
                "deviations")
            raise SparkImportError(f"cannot import the Spark aggregate {fname} "
                                   f"({agg_expr.toString()}): {why}", spark_class=fname)
        _refuse_legacy_sample(function, agg_expr)
        func = _AGGREGATES[fname]
        column = f"{column_prefix}{len(aggs)}"
        if fname == "CountIf":  # the rows where the condition holds: count(NULLIF(c, false))
            condition = self._expr(args[0], child) if argument is None else argument
            counted = tk.if_else(condition, tk.literal(True),
                                 tk.literal(pa.scalar(None, pa.bool_())))
            if not filtered:
                counted = self._filtered(agg_expr, counted, pa.bool_(), child)
            aggs.append(("count", counted, column))
            return tk.field(column)
        if func == "count":
            if len(args) != 1:
                raise SparkImportError("cannot import count over several columns",
                                       spark_class="Count")
            arg = self._expr(args[0], child) if argument is None else argument
            if filtered:
                aggs.append(("count", arg, column))
            elif arg.is_literal and arg.value.is_valid:  # count(*)
                arg = self._filtered(agg_expr, tk.literal(True), pa.bool_(), child)
                aggs.append(("count", arg, column) if arg.is_call else ("count", None, column))
            else:
                aggs.append(("count", self._filtered(agg_expr, arg, _arrow_type(args[0]), child),
                             column))
            return tk.field(column)
        if argument is None:
            argument = self._expr(args[0], child)
        argument_type = _arrow_type(args[0])
        if not filtered:
            argument = self._filtered(agg_expr, argument, argument_type, child)
        if fname == "Average" and pa.types.is_decimal(argument_type):  # 4 more digits
            argument = argument.cast(_spark_average_type(argument_type.precision,
                                                         argument_type.scale))
        if func == "max" and pa.types.is_floating(argument_type):
            calls, value = spark_max(argument, argument_type, column)
            aggs.extend(calls)
            return value
        if func == "percentile":
            aggs.append((func, argument, column, _percentile_fraction(function, agg_expr)))
            return tk.field(column)
        aggs.append((func, argument, column))
        return tk.field(column)

    def _filtered(self, agg_expr, argument: tk.Expression, argument_type: pa.DataType,
                  child: Imported) -> tk.Expression:
        """`argument` where the call's FILTER (WHERE c) holds, null elsewhere (the rows
        an aggregate skips); `argument` itself without a FILTER."""
        if agg_expr.filter().isEmpty():
            return argument
        condition = self._expr(agg_expr.filter().get(), child)
        return tk.if_else(condition, argument, tk.literal(pa.scalar(None, argument_type)))

    def _set_operation(self, node, inputs: list[Imported]) -> Imported:
        """INTERSECT / EXCEPT (DISTINCT) as Spark's optimizer writes them: the left rows
        that have an equal row on the right (a semi join), or none (an anti join), then
        DISTINCT. Rows are equal column by column with `<=>` (two nulls equal, NaN equal
        to NaN); a column neither side can hold null in is a hash join key (float keys
        compared as Spark does, NaN equal to NaN)."""
        kind = class_name(node)
        if node.isAll():
            raise SparkImportError(
                f"cannot import {kind.upper()} ALL: Spark repeats each row as many times as "
                "it is left over (Generate replicaterows), which exprscope's plan has no node "
                "for; INTERSECT / EXCEPT (DISTINCT) import", spark_class=kind)
        left, right = inputs[0], _apart(*inputs)
        pairs, rest = [], []
        for ours, theirs in zip(_seq(node.left().output()), _seq(node.right().output())):
            lname, rname = left.names()[_expr_id(ours)], right.names()[_expr_id(theirs)]
            floats = pa.types.is_floating(_arrow_type(ours))
            if not (ours.nullable() or theirs.nullable()) and \
                    ours.dataType().sameType(theirs.dataType()):
                pairs.append((lname, rname))
            else:
                rest.append(equal_null_safe(tk.field(lname), tk.field(rname), floats))
        residual = None if not rest else (rest[0] if len(rest) == 1 else tk.and_(rest))
        how = "semi" if kind == "Intersect" else "anti"
        joined = left.plan.join(right.plan, pairs, how, condition=residual,
                                float_keys=_float_keys(left.plan, pairs))
        return Imported(joined.distinct(), left.ids)

    def _expand(self, node, child: Imported) -> Imported:
        """Spark's Expand (ROLLUP, CUBE, GROUPING SETS): each of its projections of the
        child's rows (the columns one grouping set leaves out as nulls, and its grouping
        id), one after another: a UNION ALL of those projections."""
        output = _seq(node.output())
        names = _distinct_names([str(a.name()) for a in output])
        branches = []
        for projection in _seq(node.projections()):
            exprs = [self._expr(e, child) for e in _seq(projection)]
            exprs = [e if e.type == _arrow_type(a) else tk.cast(e, _arrow_type(a))
                     for e, a in zip(exprs, output)]
            branches.append(child.plan.project(exprs, names=names))
        return Imported(branches[0].union(*branches[1:]), tuple(_expr_id(a) for a in output))

    def _join(self, node, inputs: list[Imported]) -> Imported:
        left, right = inputs[0], _apart(*inputs)
        kind = str(node.joinType().toString())
        how = _JOIN_TYPES.get(kind)
        if how is None:
            raise SparkImportError(f"cannot import a {kind} join", spark_class="Join")
        left_ids, right_ids = set(left.ids), set(right.ids)
        condition = node.condition()
        pairs, rest = [], []
        for clause in ([] if condition.isEmpty() else _conjuncts(condition.get())):
            pair = _key_pair(clause, left_ids, right_ids)
            if pair is not None and pair[0].dataType().sameType(pair[1].dataType()):
                pairs.append((left.names()[_expr_id(pair[0])],
                              right.names()[_expr_id(pair[1])]))
            else:
                rest.append(self._expr(clause, left, right))
        residual = None if not rest else (rest[0] if len(rest) == 1 else tk.and_(rest))
        if how == "inner" and not pairs and residual is None:
            how = "cross"
        joined = left.plan.join(right.plan, pairs, how, condition=residual,
                                float_keys=_float_keys(left.plan, pairs))
        ids = left.ids if how in ("semi", "anti") else left.ids + right.ids
        return Imported(joined, ids)


def _value_arguments(function) -> list:
    """An aggregate's arguments that are values per row: a percentile's first alone (its
    fraction, frequency and direction are settings)."""
    args = children(function)
    return args[:1] if class_name(function) in _PERCENTILES else args


def _percentile_fraction(function, shown) -> float:
    """The fraction of Spark's median (0.5), percentile(x, p) or percentile_cont(p)
    WITHIN GROUP (ORDER BY x [DESC]): a constant; a DESC order counts from the top (1 - p)."""
    fname = class_name(function)
    if fname == "Median":
        return 0.5
    args = children(function)
    if class_name(args[1].dataType()) == "ArrayType":
        raise SparkImportError(f"cannot import {shown.toString()}: exprscope's percentile "
                               "takes one constant fraction (an array of them makes an "
                               "array)", spark_class=fname)
    frequency = expression_from_catalyst(args[2]) if fname == "Percentile" else None
    value = percentile_fraction(expression_from_catalyst(args[1]), frequency,
                                shown.toString(), fname)
    return 1.0 - value if bool(function.reverse()) else value


def _at_least_n_non_nulls(n: int, values: list[tuple]) -> tk.Expression:
    """Spark's AtLeastNNonNulls (dropna): at least n of the values (expression, whether it
    is a float) are neither null nor, for floats, NaN (Spark counts NaN as missing here)."""
    present = [tk.and_(tk.is_valid(v), tk.not_(tk.call("is_nan", [v]))) if floats
               else tk.is_valid(v) for v, floats in values]
    if n <= 0:
        return tk.literal(True)
    if n == len(present):
        return present[0] if n == 1 else tk.and_(present)
    if n > len(present):
        return tk.literal(False)
    counts = [tk.cast(p, pa.int32()) for p in present]
    total = counts[0]
    for c in counts[1:]:
        total = tk.call("add", [total, c])
    return tk.call("greater_equal", [total, tk.literal(n, pa.int32())])


def _apart(left: Imported, right: Imported) -> Imported:
    """The right input with each column whose name the left input also has (a computed
    column of both, `x * 2 AS y`, has no relation to tell them apart) renamed `y_1`, ...
    Spark tells the two apart by exprId; a plan's join needs distinct names."""
    taken = set(left.plan.schema.qualified_names)
    qualified = right.plan.schema.qualified_names
    if taken.isdisjoint(qualified):
        return right
    used = taken | set(qualified) | set(left.plan.schema.names) | set(right.plan.schema.names)
    names = []
    for full, name in zip(qualified, right.plan.schema.names):
        if full in taken:
            n = 1
            while f"{name}_{n}" in used:
                n += 1
            name = f"{name}_{n}"
            used.add(name)
        names.append(name)
    columns = [tk.field(full) for full in qualified]
    return Imported(right.plan.project(columns, names=names), right.ids)


def _distinct_names(names: list[str]) -> list[str]:
    """Column names made unique (Spark's columns are told apart by exprId, a plan's by
    name): a repeated name gets a suffix, `g`, `g_1` ..."""
    used, out = set(names), []
    seen: set[str] = set()
    for name in names:
        unique, n = name, 0
        while unique in seen or (n and unique in used):
            n += 1
            unique = f"{name}_{n}"
        seen.add(unique)
        out.append(unique)
    return out


def _arrow_type(attribute) -> pa.DataType:
    return from_spark_type(spark_type_of(attribute))


class _DerivedWindow(NamedTuple):
    """A Spark window function exprscope computes from its own: the window columns it
    needs, and the expression over them (in that order) that is Spark's value."""

    specs: list
    combine: object


def _partition_rows(spec: dict) -> dict:
    return {"partition_by": spec["partition_by"], "order_by": [], "func": "count",
            "arg": None, "frame": None}


def _percent_rank(spec: dict, function) -> _DerivedWindow:
    """(rank - 1) / (rows in the partition - 1); 0 in a partition of one row."""
    def combine(rank, rows):
        ratio = tk.call("divide", [tk.cast(tk.call("subtract", [rank, tk.literal(1)]),
                                           pa.float64()),
                                   tk.cast(tk.call("subtract", [rows, tk.literal(1)]),
                                           pa.float64())])
        return tk.if_else(tk.call("greater", [rows, tk.literal(1)]), ratio,
                          tk.literal(0.0))
    return _DerivedWindow([{**spec, "func": "rank"}, _partition_rows(spec)], combine)


def _cume_dist(spec: dict, function) -> _DerivedWindow:
    """The rows up to this one and its peers (a count over SQL's default RANGE frame) over
    the rows in the partition."""
    def combine(up_to, rows):
        return tk.call("divide", [tk.cast(up_to, pa.float64()), tk.cast(rows, pa.float64())])
    return _DerivedWindow([{**spec, "func": "count", "arg": None, "frame": None},
                           _partition_rows(spec)], combine)


def _ntile(spec: dict, function) -> _DerivedWindow:
    """Spark's NTile(n): rows r = 1..c of a partition in buckets of c / n rows, the first
    c % n buckets one row larger."""
    buckets = expression_from_catalyst(function.buckets())
    if not buckets.is_literal or not buckets.value.is_valid or buckets.value.as_py() < 1:
        raise SparkImportError(f"cannot import {function.toString()}: its number of buckets "
                               "must be a positive constant", spark_class="NTile")
    n = tk.literal(int(buckets.value.as_py()), pa.int64())
    one = tk.literal(1, pa.int64())

    def combine(row, rows):
        size = tk.call("divide", [rows, n])  # integer division
        rest = tk.call("subtract", [rows, tk.call("multiply", [size, n])])
        larger = tk.call("multiply", [rest, tk.call("add", [size, one])])  # rows in them
        first = tk.call("add", [tk.call("divide", [tk.call("subtract", [row, one]),
                                                   tk.call("add", [size, one])]), one])
        later = tk.call("add", [rest, tk.call("add", [tk.call("divide", [
            tk.call("subtract", [tk.call("subtract", [row, one]), larger]),
            tk.if_else(tk.call("greater", [size, one]), size, one)]), one])])
        return tk.cast(tk.if_else(tk.call("less_equal", [row, larger]), first, later),
                       pa.int32())
    return _DerivedWindow([{**spec, "func": "row_number"}, _partition_rows(spec)], combine)


_DERIVED_WINDOWS = {"PercentRank": _percent_rank, "CumeDist": _cume_dist, "NTile": _ntile}


def _refuse_legacy_sample(function, shown) -> None:
    """Spark's sample variance and deviation under its legacy setting give NaN for one
    value, where exprscope (and SQL) give null: refused, saying so."""
    fname = class_name(function)
    if fname in ("VarianceSamp", "StddevSamp") and not function.nullOnDivideByZero():
        raise SparkImportError(
            f"cannot import {shown.toString()} under "
            "spark.sql.legacy.statisticalAggregate=true: Spark then gives NaN for a group "
            "of one value, where exprscope (and SQL) give null", spark_class=fname)


def _window_calls(expression) -> list:
    """The WindowExpressions in a window column's expression, outermost first."""
    found, stack = [], [expression]
    while stack:
        node = stack.pop()
        if class_name(node) == "WindowExpression":
            found.append(node)
        else:
            stack.extend(reversed(children(node)))
    return found


def _spark_average_type(precision: int, scale: int) -> pa.DataType:
    """Spark's average of decimal(p, s): decimal(p + 4, s + 4), bounded by 38 digits."""
    return pa.decimal128(min(precision + 4, 38), min(scale + 4, 38))


def _frame_bound(bound, frame):
    kind = class_name(bound)
    if kind in ("UnboundedPreceding$", "UnboundedFollowing$"):
        return None
    if kind == "CurrentRow$":
        return 0
    value = expression_from_catalyst(bound)
    if not value.is_literal or not (pa.types.is_integer(value.type)
                                    or pa.types.is_floating(value.type)):
        raise SparkImportError(f"cannot import the window frame {frame.toString()}: its "
                               f"bound {bound.toString()} is not a number (exprscope's RANGE "
                               "frames take numeric offsets over a numeric order key)",
                               spark_class="SpecifiedWindowFrame")
    number = value.value.as_py()
    return int(number) if pa.types.is_integer(value.type) else float(number)


def _window_frame(frame, ordered: bool):
    """A plan frame: None (SQL's default), ("rows", start, end) or ("range", start, end)."""
    if class_name(frame) != "SpecifiedWindowFrame":
        return None  # UnspecifiedFrame: the default
    kind = str(frame.frameType().sql())
    lower, upper = _frame_bound(frame.lower(), frame), _frame_bound(frame.upper(), frame)
    if kind == "RANGE":
        if lower is None and upper == 0 and ordered:
            return None
        if lower is None and upper is None:
            return ("rows", None, None)
        return ("range", lower, upper)
    return ("rows", lower, upper)


def _aggregate_expressions(catalyst_list) -> list:
    out, stack = [], list(catalyst_list)
    while stack:
        node = stack.pop()
        if class_name(node) == "AggregateExpression":
            out.append(node)
        else:
            stack.extend(children(node))
    return out


def _distinct_index(call, distinct_calls: list) -> int | None:
    """Which of `distinct_calls` reads the same distinct values as `call`: the same
    argument under the same FILTER (None: none does)."""
    argument = children(call.aggregateFunction())[0]
    for i, other in enumerate(distinct_calls):
        if argument.semanticEquals(children(other.aggregateFunction())[0]) and (
                call.filter().isEmpty() if other.filter().isEmpty() else
                not call.filter().isEmpty()
                and call.filter().get().semanticEquals(other.filter().get())):
            return i
    return None


def _mixes_distinct(node) -> bool:
    """The Aggregate holds DISTINCT aggregates beside plain ones, over several different
    arguments, over a computed value or under a FILTER (the case left, every aggregate
    DISTINCT over one column, groups by that column instead)."""
    calls = _aggregate_expressions(_seq(node.aggregateExpressions()))
    distinct = [c for c in calls if c.isDistinct()]
    if not distinct:
        return False
    first = children(distinct[0].aggregateFunction())
    return len(distinct) != len(calls) or len(first) != 1 \
        or class_name(first[0]) != "AttributeReference" or any(
            not c.filter().isEmpty() or len(a) != 1 or not a[0].semanticEquals(first[0])
            for c, a in ((c, children(c.aggregateFunction())) for c in distinct))


def _distinct_argument(node):
    """The one argument of an Aggregate's DISTINCT aggregates (None when it has none).

    exprscope computes them over distinct (keys, argument) rows, so every aggregate of
    the node must be DISTINCT over that same single argument."""
    calls = _aggregate_expressions(_seq(node.aggregateExpressions()))
    distinct = [c for c in calls if c.isDistinct()]
    if not distinct:
        return None
    arguments = [children(c.aggregateFunction()) for c in calls]
    first = arguments[0]
    same = all(len(a) == 1 and a[0].semanticEquals(first[0]) for a in arguments)
    if len(distinct) != len(calls) or not same or len(first) != 1:
        raise SparkImportError(
            "cannot import DISTINCT aggregates mixed with other aggregates or over several "
            "arguments: exprscope computes them over the distinct (group, argument) rows, "
            "which needs every aggregate of the node DISTINCT over one same argument",
            spark_class="AggregateExpression")
    return first[0]


def _has_outer_reference(catalyst) -> bool:
    stack = [catalyst]
    while stack:
        node = stack.pop()
        if class_name(node) == "OuterReference":
            return True
        stack.extend(children(node))
    return False


def _outer_pair(clause):
    """(outer attribute, inner attribute) of `inner = outer(x)` (either way round), else None."""
    if class_name(clause) != "EqualTo":
        return None
    a, b = children(clause)
    if class_name(a) == "OuterReference" and class_name(b) == "AttributeReference":
        return a.e(), b
    if class_name(b) == "OuterReference" and class_name(a) == "AttributeReference":
        return b.e(), a
    return None


def _scalar_subqueries(catalyst) -> list:
    """The ScalarSubquery expressions inside the trees (not inside their plans)."""
    out, stack = [], list(catalyst)
    while stack:
        node = stack.pop()
        if class_name(node) == "ScalarSubquery":
            out.append(node)
        else:
            stack.extend(children(node))
    return out


def _key_pair(clause, left_ids, right_ids):
    """(left attribute, right attribute) when the clause equates one of each, else None."""
    if class_name(clause) != "EqualTo":
        return None
    a, b = (_without_normalizing(c) for c in children(clause))
    if class_name(a) != "AttributeReference" or class_name(b) != "AttributeReference":
        return None
    if _expr_id(a) in left_ids and _expr_id(b) in right_ids:
        return a, b
    if _expr_id(b) in left_ids and _expr_id(a) in right_ids:
        return b, a
    return None


def _float_keys(left, pairs) -> str:
    """How the join of these key pairs compares its float keys: as Spark does (NaN with
    NaN, -0.0 with 0.0: the NormalizeFloatingNumbers Spark's optimizer puts on float join
    keys) when one of them is a float; exprscope's default otherwise, so a join without
    float keys reads as any other."""
    types = [left.schema.field(lk).type for lk, _ in pairs]
    return NORMALIZED if has_float_key(types) else IEEE


def _without_normalizing(node):
    """A float key under the NormalizeNaNAndZero Spark's optimizer puts on it: the key. The
    join is imported with float_keys "normalized" (see plan/float_keys.py), which pairs
    NaN with NaN and -0.0 with 0.0 as the normalized keys do."""
    while class_name(node) in ("NormalizeNaNAndZero", "KnownFloatingPointNormalized"):
        node = children(node)[0]
    return node


def _conjuncts(condition) -> list:
    out, stack = [], [condition]
    while stack:
        c = stack.pop()
        if class_name(c) == "And":
            stack.extend(reversed(children(c)))
        else:
            out.append(c)
    return out


def _placed(exc: SparkImportError, node) -> SparkImportError:
    """The error with where the node came from in the user's SQL text, when Spark knows
    and the error does not say already."""
    where = origin_text(node)
    if not where or "\n  at line " in str(exc):
        return exc
    return SparkImportError(f"{exc}{where}", spark_class=exc.spark_class)
