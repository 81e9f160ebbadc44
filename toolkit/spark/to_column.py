"""exprscope expression -> pyspark Column: the driver, fields and literals.

Walks the tree bottom-up with an explicit stack (deep trees translate), turns
field references into `F.col` and literals into typed Spark literals, and hands
every call to the translator registered for its function name in
`column_functions`. An expression bound to a schema translates with Arrow's
semantics where Spark differs (integer division, NaN comparisons, if_else on a
null condition ...); unbound, the translation uses what the names say.
"""

from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pyarrow.types as pat

from ..expression import Expression, as_expression, postorder
from ..field_ref import FieldPath
from .call_sites import no_call_sites
from .column_functions import TRANSLATORS, untranslatable
from .errors import SparkTranslationError
from .types import to_spark_type

__all__ = ["literal_column", "quote_name", "to_column", "translatable_names"]


def to_column(expr, schema: pa.Schema | None = None):
    """A pyspark Column computing `expr`; with `schema`, `expr` is bound to it first.

    Raises SparkTranslationError("cannot translate <function> to Spark") for a
    function Spark has no faithful equivalent of.
    """
    expr = as_expression(expr)
    if schema is not None and not expr.is_bound:
        expr = expr.bind(schema)
    with no_call_sites():
        return _translate(expr, schema)


def _translate(expr: Expression, schema):
    columns: dict[int, object] = {}
    for node in postorder(expr):
        if node.is_literal:
            columns[id(node)] = literal_column(node.value)
        elif node.is_field:
            columns[id(node)] = field_column(node, schema)
        else:
            translate = TRANSLATORS.get(node.name)
            if translate is None:
                raise untranslatable(node.name)
            args = [columns[id(a)] for a in node.args]
            columns[id(node)] = translate(node, args, [a.type for a in node.args])
    return columns[id(expr)]


def translatable_names() -> list[str]:
    """The function names `to_column` knows."""
    return sorted(TRANSLATORS)


def quote_name(name: str) -> str:
    """A column name as Spark's parser reads it literally (dots and backticks included)."""
    return "`" + name.replace("`", "``") + "`"


def field_column(node: Expression, schema: pa.Schema | None):
    """`F.col` for a name; nested refs and index paths become `getField` chains."""
    from pyspark.sql import functions as F

    ref = node.ref
    path = node.path
    if path is None and schema is not None and ref.is_field_path:
        path = ref.field_path
    if path is not None and schema is not None:
        return _column_for_path(path, schema)
    names = []
    for leaf in ref.leaves():
        if not leaf.is_name:
            if node.path is None:
                raise SparkTranslationError(
                    f"cannot translate field {node} to Spark: an index path needs the schema "
                    "(bind the expression or pass schema=)")
            return _column_for_path(node.path, schema)
        names.append(leaf.name)
    column = F.col(quote_name(names[0]))
    for name in names[1:]:
        column = column.getField(name)
    return column


def _column_for_path(path: FieldPath, schema):
    from pyspark.sql import functions as F

    if schema is None:
        raise SparkTranslationError(
            f"cannot translate field {path} to Spark: an index path needs the schema")
    field = schema.field(path.indices[0])
    column = F.col(quote_name(field.name))
    t = field.type
    for i in path.indices[1:]:
        child = t.field(i)
        column = column.getField(child.name)
        t = child.type
    return column


def literal_column(value):
    """A Spark literal with exactly the Arrow scalar's type (typed nulls included)."""
    from pyspark.sql import functions as F

    if isinstance(value, pa.Array):
        raise SparkTranslationError("cannot translate an array literal to Spark")
    t = value.type
    spark_type = to_spark_type(t)
    if not value.is_valid:
        return F.lit(None).cast(spark_type)
    py = value.as_py()
    if pat.is_timestamp(t):
        # through text: Python datetimes would pass the driver's local time zone
        text = value.cast(pa.timestamp("us", t.tz)).as_py().isoformat()
        return F.lit(text).cast(spark_type)
    if pat.is_date(t):
        return F.lit(value.cast(pa.date32()).as_py().isoformat()).cast(spark_type)
    if pat.is_duration(t):
        micros = value.cast(pa.duration("us")).value
        return F.lit(datetime.timedelta(microseconds=micros))
    if pat.is_decimal(t):
        return F.lit(decimal.Decimal(py)).cast(spark_type)
    if pat.is_floating(t):
        return F.lit(float(py)).cast(spark_type)
    if pat.is_struct(t):
        return F.struct(*[literal_column(value[f.name]).alias(f.name) for f in t])
    if pat.is_list(t) or pat.is_large_list(t):
        return F.array(*[literal_column(v) for v in value.values]).cast(spark_type)
    return F.lit(py).cast(spark_type)
