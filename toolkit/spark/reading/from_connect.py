"""`from_spark` for Spark Connect: a DataFrame's or Column's protobuf plan as exprscope's.

A Spark Connect client never holds an analyzed plan: a DataFrame is a tree of
`spark.connect.Relation` messages and a Column a `spark.connect.Expression`,
both unresolved (names, not typed attributes), and the server resolves them when
the query runs. So the import reads the protobuf the client would send:

- expressions: column names, typed literals, functions called by name (the very
  table the classic importer uses for unresolved Columns: operators, `F.*`,
  CASE WHEN, IN, LIKE ...), casts and aliases;
- relations: local data (its Arrow batches, read directly), tables, files and
  SQL (as scans of a DataFrame of that relation, so the server reads them),
  Project, Filter, Aggregate (sum, min, max, avg, count, the variances and standard
  deviations, count_if, bool_and / every, bool_or / some / any, median and
  percentile with a constant fraction), Sort, Limit,
  SubqueryAlias, ToDF and WithColumns. Output names come from the server (the
  DataFrame's columns), so they are Spark's own.

Anything else (a join, a UDF, a window ...) raises SparkImportError naming the
protobuf node.
"""

from __future__ import annotations

import datetime
import decimal

import pyarrow as pa

import toolkit as tk

from ... import plan
from ...errors import UsageError
from ...plan.columns import qualify
from ..errors import SparkImportError
from ..translate.types import from_spark_type
from .float_order import spark_max
from .from_catalyst import unresolved_call
from .percentile_settings import percentile_fraction
from .relation_names import unique_name

__all__ = ["expression_from_connect", "from_connect", "is_connect"]

_AGGREGATES = {"sum": "sum", "min": "min", "max": "max", "avg": "mean", "mean": "mean",
               "count": "count", "variance": "var_samp", "var_samp": "var_samp",
               "var_pop": "var_pop", "stddev": "stddev_samp", "std": "stddev_samp",
               "stddev_samp": "stddev_samp", "stddev_pop": "stddev_pop",
               "bool_and": "bool_and", "every": "bool_and", "bool_or": "bool_or",
               "some": "bool_or", "any": "bool_or", "count_if": "count",
               "median": "percentile", "percentile": "percentile"}
# the aggregates whose arguments past the first are settings: how many they take
_ARGUMENTS = {"percentile": (2, 3)}
_PASS_THROUGH = {"subquery_alias", "hint", "repartition", "repartition_by_expression"}


def is_connect(obj) -> bool:
    return type(obj).__module__.startswith("pyspark.sql.connect")


def from_connect(df_or_column, df=None):
    """An exprscope LogicalPlan for a Connect DataFrame, an Expression for a Connect Column.

    For a Column, `df` (optional) binds it to that DataFrame's schema.
    """
    if type(df_or_column).__name__ == "Column":
        session = df.sparkSession if df is not None else _active_session()
        expr = expression_from_connect(df_or_column._expr.to_plan(session.client))
        if df is not None:
            from pyspark.sql.pandas.types import to_arrow_schema

            expr = expr.bind(to_arrow_schema(df.schema))
        return expr
    if hasattr(df_or_column, "_plan") and hasattr(df_or_column, "sparkSession"):
        return _RelationReader(df_or_column).read()
    raise UsageError(f"from_spark takes a pyspark DataFrame or Column, not "
                    f"{type(df_or_column).__name__}")


def _active_session():
    from pyspark.sql.connect.session import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        raise SparkImportError("importing a Spark Connect Column needs its session: "
                               "pass the DataFrame too, from_spark(column, df)")
    return session


# -- expressions ------------------------------------------------------------------------------

def expression_from_connect(message) -> tk.Expression:
    """The exprscope expression of a `spark.connect.Expression` (iteratively: deep trees work)."""
    frames = [[message, _arguments(message), []]]
    while True:
        node, kids, results = frames[-1]
        if len(results) < len(kids):
            kid = kids[len(results)]
            frames.append([kid, _arguments(kid), []])
            continue
        frames.pop()
        out = _convert(node, results)
        if not frames:
            return out
        frames[-1][2].append(out)


def _kind(message) -> str:
    return message.WhichOneof("expr_type") or "empty"


def _arguments(message) -> list:
    kind = _kind(message)
    if kind == "unresolved_function":
        return list(message.unresolved_function.arguments)
    if kind == "alias":
        return [message.alias.expr]
    if kind == "cast":
        return [message.cast.expr]
    return []


def _convert(message, args: list) -> tk.Expression:
    kind = _kind(message)
    if kind == "unresolved_attribute":
        return tk.field(*_name_parts(message.unresolved_attribute.unparsed_identifier))
    if kind == "literal":
        return _literal(message.literal)
    if kind == "alias":
        return args[0]
    if kind == "cast":
        return _cast(message.cast, args[0])
    if kind == "unresolved_function":
        function = message.unresolved_function
        if function.is_distinct or function.is_user_defined_function:
            what = "a user-defined function" if function.is_user_defined_function else "DISTINCT"
            raise SparkImportError(f"cannot import {what} ({function.function_name})",
                                   spark_class=f"UnresolvedFunction {function.function_name}")
        return unresolved_call(function.function_name, args)
    raise SparkImportError(f"cannot import the Spark Connect expression {kind} into exprscope",
                           spark_class=kind)


def _fraction(function) -> float:
    """median's 0.5, or percentile's constant fraction (its frequency, when given, 1)."""
    if function.function_name.lower() == "median":
        return 0.5
    frequency = expression_from_connect(function.arguments[2]) \
        if len(function.arguments) == 3 else None
    return percentile_fraction(expression_from_connect(function.arguments[1]), frequency,
                               function.function_name, "percentile")


def _name_parts(identifier: str) -> list[str]:
    """`a.b` -> ["a", "b"]; backquoted parts keep their dots (`` `a.b` `` is one name)."""
    parts, current, quoted, i = [], [], False, 0
    while i < len(identifier):
        ch = identifier[i]
        if ch == "`":
            if quoted and identifier[i + 1:i + 2] == "`":
                current.append("`")
                i += 2
                continue
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _arrow_type(data_type) -> pa.DataType:
    from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

    return from_spark_type(proto_schema_to_pyspark_data_type(data_type))


def _literal(literal) -> tk.Literal:
    kind = literal.WhichOneof("literal_type")
    simple = {"boolean": pa.bool_(), "byte": pa.int8(), "short": pa.int16(),
              "integer": pa.int32(), "long": pa.int64(), "float": pa.float32(),
              "double": pa.float64(), "string": pa.string(), "binary": pa.binary()}
    if kind in simple:
        return tk.literal(pa.scalar(getattr(literal, kind), simple[kind]))
    if kind == "null":
        return tk.literal(None, _arrow_type(literal.null))
    if kind == "decimal":
        d = literal.decimal
        t = pa.decimal128(d.precision, d.scale) if d.HasField("precision") else None
        value = decimal.Decimal(d.value)
        if t is None:
            exponent = value.as_tuple().exponent
            scale = max(0, -exponent) if isinstance(exponent, int) else 0
            t = pa.decimal128(max(len(value.as_tuple().digits), scale, 1), scale)
        return tk.literal(pa.scalar(value, t))
    if kind == "date":
        return tk.literal(pa.scalar(datetime.date(1970, 1, 1)
                                    + datetime.timedelta(days=literal.date), pa.date32()))
    if kind == "timestamp":
        return tk.literal(pa.scalar(literal.timestamp, pa.timestamp("us", "UTC")))
    if kind == "timestamp_ntz":
        return tk.literal(pa.scalar(literal.timestamp_ntz, pa.timestamp("us")))
    raise SparkImportError(f"cannot import a Spark Connect literal of kind {kind}",
                           spark_class=f"Literal {kind}")


def _cast(cast, arg: tk.Expression) -> tk.Expression:
    if cast.HasField("type"):
        target = _arrow_type(cast.type)
    else:
        target = _DDL_TYPES.get(cast.type_str.strip().lower())
        if target is None:
            raise SparkImportError(f"cannot import a cast to {cast.type_str!r}",
                                   spark_class="Cast")
    if arg.is_literal:  # a typed constant, as the classic importer makes it
        try:
            return tk.literal(arg.value.cast(target))
        except (pa.ArrowException, ValueError, TypeError):
            pass
    return tk.cast(arg, target)


_DDL_TYPES = {"boolean": pa.bool_(), "tinyint": pa.int8(), "byte": pa.int8(),
              "smallint": pa.int16(), "short": pa.int16(), "int": pa.int32(),
              "integer": pa.int32(), "bigint": pa.int64(), "long": pa.int64(),
              "float": pa.float32(), "real": pa.float32(), "double": pa.float64(),
              "string": pa.string(), "binary": pa.binary(), "date": pa.date32(),
              "timestamp": pa.timestamp("us", "UTC"), "timestamp_ntz": pa.timestamp("us")}


# -- relations --------------------------------------------------------------------------------

class _RelationReader:
    """Reads one DataFrame's relation tree, bottom-up, with an explicit stack."""

    def __init__(self, df):
        self.df = df
        self.session = df.sparkSession
        self.client = self.session.client
        self.used_names: set[str] = set()

    def read(self):
        root = self.df._plan.plan(self.client)
        frames = [[root, self._inputs(root), []]]
        while True:
            node, kids, results = frames[-1]
            if len(results) < len(kids):
                kid = kids[len(results)]
                frames.append([kid, self._inputs(kid), []])
                continue
            frames.pop()
            out = self._node(node, results)
            if not frames:
                return out
            frames[-1][2].append(out)

    @staticmethod
    def _inputs(relation) -> list:
        kind = relation.WhichOneof("rel_type")
        body = getattr(relation, kind) if kind else None
        if kind in ("project", "filter", "sort", "limit", "aggregate", "with_columns", "to_df",
                    *_PASS_THROUGH) and body.HasField("input"):
            return [body.input]
        return []

    def _node(self, relation, inputs):
        kind = relation.WhichOneof("rel_type")
        body = getattr(relation, kind) if kind else None
        if kind in _PASS_THROUGH:
            return inputs[0]
        if kind == "local_relation":
            return self._local(relation, body)
        if kind in ("read", "sql", "range"):
            return self._remote_scan(relation, kind, body)
        if kind == "project":
            exprs = [expression_from_connect(e) for e in body.expressions]
            return inputs[0].project(exprs, names=self._columns(relation))
        if kind == "with_columns":
            names = self._columns(relation)
            added = {"_".join(a.name): expression_from_connect(a.expr) for a in body.aliases}
            exprs = [added.get(n, tk.field(n)) for n in names]
            return inputs[0].project(exprs, names=names)
        if kind == "to_df":  # new names for the columns, in order
            below = inputs[0]
            return below.project([tk.field(n) for n in below.schema.names],
                                 names=list(body.column_names))
        if kind == "filter":
            return inputs[0].filter(expression_from_connect(body.condition))
        if kind == "sort":
            return inputs[0].sort([self._sort_key(o) for o in body.order])
        if kind == "limit":
            return inputs[0].limit(body.limit)
        if kind == "aggregate":
            return self._aggregate(relation, body, inputs[0])
        raise SparkImportError(f"cannot import the Spark Connect plan node {kind} into "
                               "exprscope", spark_class=kind)

    def _frame(self, relation):
        """A Connect DataFrame of the subtree `relation` (the server resolves and reads it)."""
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.sql.connect.plan import LogicalPlan

        class _Relation(LogicalPlan):
            def __init__(self, message):
                super().__init__(None)
                self.message = message

            def plan(self, session):
                return self.message

        return DataFrame(_Relation(relation), self.session)

    def _columns(self, relation) -> list[str]:
        return list(self._frame(relation).columns)

    def _local(self, relation, body):
        if body.HasField("data"):
            table = pa.ipc.open_stream(body.data).read_all()
            return plan.scan(self._name("local"), table)
        return self._remote_scan(relation, "local_relation", body)

    def _remote_scan(self, relation, kind, body):
        base = kind
        if kind == "read" and body.HasField("named_table"):
            base = body.named_table.unparsed_identifier.split(".")[-1].strip("`")
        elif kind == "read" and body.data_source.paths:
            base = body.data_source.paths[0].rstrip("/").split("/")[-1].split(".")[0]
        return plan.scan(self._name(base), self._frame(relation))

    def _name(self, base: str) -> str:
        return unique_name(base or "relation", self.used_names)

    def _sort_key(self, order):
        from pyspark.sql.connect.proto import expressions_pb2

        so = expressions_pb2.Expression.SortOrder
        descending = order.direction == so.SORT_DIRECTION_DESCENDING
        # Spark's defaults: ascending puts nulls first, descending puts them last
        nulls_first = (order.null_ordering == so.SORT_NULLS_FIRST
                       or (order.null_ordering == so.SORT_NULLS_UNSPECIFIED and not descending))
        return (expression_from_connect(order.child),
                "descending" if descending else "ascending",
                "nulls_first" if nulls_first else "nulls_last")

    def _aggregate(self, relation, body, input_plan):
        from pyspark.sql.connect.proto import relations_pb2

        if body.group_type not in (relations_pb2.Aggregate.GROUP_TYPE_GROUPBY,
                                   relations_pb2.Aggregate.GROUP_TYPE_UNSPECIFIED):
            kind = relations_pb2.Aggregate.GroupType.Name(body.group_type)
            raise SparkImportError(f"cannot import an aggregate of kind {kind}",
                                   spark_class=kind)
        names = self._columns(relation)
        groups = [expression_from_connect(g) for g in body.grouping_expressions]
        group_names = names[:len(groups)]
        aggs, outputs = [], []
        for message, name in zip(body.aggregate_expressions, names[len(groups):]):
            outputs.append(self._aggregate_call(message, aggs, input_plan))
        if any(not g.is_field for g in groups) or [g.to_string() for g in groups] != group_names:
            keyed_names = [*group_names, *input_plan.schema.names]
            input_plan = input_plan.project(
                [*groups, *[tk.field(n) for n in input_plan.schema.names]], names=keyed_names)
        grouped = input_plan.aggregate(group_names, aggs)
        return grouped.project([*[tk.field(n) for n in group_names], *outputs], names=names)

    def _aggregate_call(self, message, aggs: list, input_plan) -> tk.Expression:
        """The plan aggregates computing `message` (added to `aggs`) and the expression
        over their columns that is its value."""
        while _kind(message) == "alias":
            message = message.alias.expr
        if _kind(message) != "unresolved_function":
            raise SparkImportError("cannot import an aggregate output that is not one "
                                   f"aggregate call ({_kind(message)})",
                                   spark_class=_kind(message))
        function = message.unresolved_function
        fname = function.function_name.lower()
        if (fname not in _AGGREGATES or function.is_distinct
                or len(function.arguments) not in _ARGUMENTS.get(fname, (1,))):
            raise SparkImportError(f"cannot import the Spark aggregate {function.function_name}"
                                   f"{' DISTINCT' if function.is_distinct else ''}",
                                   spark_class=function.function_name)
        argument = function.arguments[0]
        column = f"_agg{len(aggs)}"
        if fname == "count" and (_kind(argument) == "unresolved_star"
                                 or (_kind(argument) == "literal"
                                     and argument.literal.WhichOneof("literal_type") != "null")):
            aggs.append(("count", None, column))
            return tk.field(column)
        value = expression_from_connect(argument)
        func = _AGGREGATES[fname]
        if fname == "count_if":  # the rows where the condition holds: count(NULLIF(c, false))
            value = tk.if_else(value, tk.literal(True), tk.literal(pa.scalar(None, pa.bool_())))
        if func == "percentile":
            aggs.append((func, value, column, _fraction(function)))
            return tk.field(column)
        value_type = qualify(value, input_plan.schema).bind(
            input_plan.schema.binding_schema()).type
        if func == "max" and pa.types.is_floating(value_type):
            calls, result = spark_max(value, value_type, column)
            aggs.extend(calls)
            return result
        aggs.append((func, value, column))
        return tk.field(column)
