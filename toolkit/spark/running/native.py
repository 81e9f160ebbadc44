"""Native mode: an exprscope logical plan as Spark DataFrame operations, run by Spark alone.

Each logical node becomes the DataFrame operation that does the same thing
(scan -> the input DataFrame, filter -> `filter`, projection -> `select`,
aggregate -> `groupBy().agg()`, join -> `join` (any type, keys and condition), sort -> `orderBy`, limit ->
`offset`/`limit`), with every expression translated by `to_column`. Inside the
translation each column is named by its plan-qualified name (`lineitem.l_tax`),
which is exactly what the plan's bound field references say, so references
never become ambiguous after a join; the result is renamed to the plan's output
names at the end. Aggregates are cast to the types the plan declares (Spark's
`sum(decimal(15,2))` is decimal(25,2), the plan's decimal(38,2)).
"""

from __future__ import annotations

import pyarrow as pa

from ...plan.float_keys import IEEE
from ...plan.logical_plan import (
    JOIN_NODES,
    Aggregate,
    EmptyRelation,
    Filter,
    Limit,
    Projection,
    Sort,
    TableScan,
    Union,
    Window,
)
from ...plan.window import FRAME_FUNCTIONS
from ..errors import SparkTranslationError
from ..translate.call_sites import no_call_sites
from ..translate.to_column import quote_name, to_column
from ..translate.types import to_spark_type, to_struct_type
from .inputs import scan_dataframe

__all__ = ["to_dataframe"]


def to_dataframe(plan, spark, inputs: dict | None = None):
    """The DataFrame computing the logical plan, columns named as the plan's output."""
    with no_call_sites():
        return _to_dataframe(plan, spark, inputs)


def _to_dataframe(plan, spark, inputs):
    frames: dict[int, object] = {}
    stack = [(plan, False)]
    while stack:  # post-order, iteratively
        node, expanded = stack.pop()
        if id(node) in frames:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children)
            continue
        frames[id(node)] = _node(node, [frames[id(c)] for c in node.children], spark, inputs)
    return frames[id(plan)].toDF(*plan.schema.names)


def _node(node, children, spark, inputs):
    names = node.schema.qualified_names
    if isinstance(node, TableScan):
        df = scan_dataframe(node, inputs, spark)
        columns = node.projection if node.projection is not None else node.source.schema.names
        return df.select(*[df[c].alias(q) for c, q in zip(columns, names)])
    if isinstance(node, EmptyRelation):
        return spark.createDataFrame([], to_struct_type(node.schema.to_arrow())).toDF(*names)
    df = children[0] if children else None
    if isinstance(node, Filter):
        return df.filter(to_column(node.predicate))
    if isinstance(node, Projection):
        return df.select(*[to_column(e).alias(q) for e, q in zip(node.exprs, names)])
    if isinstance(node, Aggregate):
        keys = [to_column(e).alias(q) for e, q in zip(node.group_exprs, names)]
        fields = list(node.schema)[len(keys):]
        aggs = [_aggregate(a, f) for a, f in zip(node.aggregates, fields)]
        aggs = [c.alias(f.qualified_name) for c, f in zip(aggs, fields)]
        if not aggs:  # a DISTINCT: the distinct rows of the keys
            return df.select(*keys).distinct()
        return df.groupBy(*keys).agg(*aggs) if keys else df.agg(*aggs)
    if isinstance(node, JOIN_NODES):
        left, right = children
        condition = None
        for lk, rk in node.on:
            clause = _key_equality(node, lk, left[quote_name(lk)], right[quote_name(rk)])
            condition = clause if condition is None else condition & clause
        residual = getattr(node, "condition", None)
        if residual is not None:
            residual = to_column(residual)
            condition = residual if condition is None else condition & residual
        if condition is None:
            return left.crossJoin(right)
        return left.join(right, on=condition, how=_SPARK_JOIN_TYPES[node.how])
    if isinstance(node, Sort):
        keys = []
        for k in node.keys:
            column = to_column(k.expr)
            if k.ascending:
                keys.append(column.asc_nulls_first() if k.nulls_first else column.asc_nulls_last())
            else:
                keys.append(column.desc_nulls_first() if k.nulls_first
                            else column.desc_nulls_last())
        return df.orderBy(*keys)
    if isinstance(node, Union):  # by position, under the union's names
        out = df.toDF(*names)
        for other in children[1:]:
            out = out.union(other.toDF(*names))
        return out
    if isinstance(node, Window):
        added = list(node.schema)[len(node.input.schema):]
        return df.select("*", *[_window(w, f) for w, f in zip(node.functions, added)])
    if isinstance(node, Limit):
        if node.skip:
            df = df.offset(node.skip)
        return df if node.fetch is None else df.limit(node.fetch)
    raise SparkTranslationError(f"cannot translate {type(node).__name__} to Spark")


_SPARK_JOIN_TYPES = {"inner": "inner", "cross": "inner", "left": "left", "right": "right",
                     "full": "full", "semi": "left_semi", "anti": "left_anti"}


def _sort_column(key):
    column = to_column(key.expr)
    if key.ascending:
        return column.asc_nulls_first() if key.nulls_first else column.asc_nulls_last()
    return column.desc_nulls_first() if key.nulls_first else column.desc_nulls_last()


def _bound(w, side: str) -> int:
    """A frame bound as PySpark's rowsBetween/rangeBetween take it: a whole number."""
    value = getattr(w.frame, side)
    if value != int(value):
        raise SparkTranslationError(f"cannot translate the frame {w.frame.to_string()} to "
                                    "Spark's DataFrame API: it takes whole-number offsets only",
                                    function=w.func)
    return int(value)


def _window(w, field):
    """Spark's own window function for one of a Window node's functions."""
    from pyspark.sql import Window as SparkWindow
    from pyspark.sql import functions as F

    if w.func in ("row_number", "rank", "dense_rank", "lag", "lead") and not w.order_by:
        raise SparkTranslationError(f"cannot translate {w.func} without an order to Spark: "
                                    "Spark requires an ORDER BY for it", function=w.func)
    spec = SparkWindow.partitionBy(*[to_column(e) for e in w.partition_by])
    if w.order_by:
        spec = spec.orderBy(*[_sort_column(k) for k in w.order_by])
    if w.frame is not None:
        between = spec.rangeBetween if w.frame.unit == "range" else spec.rowsBetween
        spec = between(
            SparkWindow.unboundedPreceding if w.frame.start is None else _bound(w, "start"),
            SparkWindow.unboundedFollowing if w.frame.end is None else _bound(w, "end"))
    elif w.order_by and w.func in FRAME_FUNCTIONS:
        spec = spec.rangeBetween(SparkWindow.unboundedPreceding, SparkWindow.currentRow)
    elif w.func in FRAME_FUNCTIONS:
        spec = spec.rowsBetween(SparkWindow.unboundedPreceding, SparkWindow.unboundedFollowing)
    if w.func in ("row_number", "rank", "dense_rank"):
        column = getattr(F, w.func)()
    elif w.func in ("lag", "lead"):
        shifted = getattr(F, w.func)
        if w.default is not None and not w.default.is_literal:
            # Spark's lag takes a constant default; a row's own value stands in where the
            # offset row lies outside the partition, which lag of a constant marks with null
            outside = shifted(F.lit(1), w.offset).over(spec).isNull()
            return (F.when(outside, to_column(w.default))
                    .otherwise(shifted(to_column(w.arg), w.offset).over(spec))
                    .cast(to_spark_type(field.type)).alias(field.qualified_name))
        default = None if w.default is None else w.default.value.as_py()
        column = shifted(to_column(w.arg), w.offset, default)
    elif w.func == "count":
        column = F.count(F.lit(1) if w.arg is None else to_column(w.arg))
    elif w.func in ("first_value", "last_value"):
        edge = F.first if w.func == "first_value" else F.last
        column = edge(to_column(w.arg), ignorenulls=w.ignore_nulls)
    else:
        column = getattr(F, w.func)(to_column(w.arg))
    return column.over(spec).cast(to_spark_type(field.type)).alias(field.qualified_name)


def _aggregate(agg, field):
    from pyspark.sql import functions as F

    if agg.func == "count":
        column = F.count(F.lit(1)) if agg.arg is None else F.count(to_column(agg.arg))
    elif agg.func == "mean":
        column = F.avg(to_column(agg.arg))
    elif agg.func in ("sum", "min", "max", "var_samp", "var_pop", "stddev_samp", "stddev_pop",
                      "bool_and", "bool_or"):
        column = getattr(F, agg.func)(to_column(agg.arg))
    elif agg.func == "percentile":
        column = F.percentile(to_column(agg.arg), F.lit(agg.fraction))
    else:
        raise SparkTranslationError(f"cannot translate aggregate {agg.func} to Spark",
                                    function=agg.func)
    return column.cast(to_spark_type(field.type))


def _key_equality(join, key: str, left, right):
    """Spark's equality of a key pair, as the join compares them: Spark's `==` pairs NaN
    with NaN (float_keys normalized), so a float key of an IEEE join adds `not isnan`."""
    from pyspark.sql import functions as F

    if join.float_keys != IEEE or not pa.types.is_floating(join.left.schema.field(key).type):
        return left == right
    return (left == right) & ~F.isnan(left)
