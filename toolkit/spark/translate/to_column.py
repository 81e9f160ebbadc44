"""exprscope expression -> pyspark Column: the driver, fields and literals.

Walks the tree bottom-up with an explicit stack (deep trees translate), turns
field references into `F.col` and literals into typed Spark literals, and hands
every call to the translator registered for its function name in
`column_functions`. An expression bound to a schema translates with Arrow's
semantics where Spark differs (integer division, NaN comparisons, if_else on a
null condition ...); unbound, the translation uses what the names say.
"""

from __future__ import annotations

import pyarrow as pa

from ...model.expression import Expression, as_expression, postorder
from ...model.field_ref import FieldPath
from ..errors import SparkTranslationError
from .call_sites import no_call_sites
from .column_functions import STRUCTURAL_TRANSLATORS, TRANSLATORS, untranslatable
from .literal_column import literal_column

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
        elif node.name in STRUCTURAL_TRANSLATORS:
            columns[id(node)] = STRUCTURAL_TRANSLATORS[node.name](node, lambda e: columns[id(e)])
        else:
            translate = TRANSLATORS.get(node.name)
            if translate is None:
                raise untranslatable(node.name, "Spark has no function that means the same; "
                                     "mode='engine' runs it with exprscope")
            args = [columns[id(a)] for a in node.args]
            columns[id(node)] = translate(node, args, [a.type for a in node.args])
    return columns[id(expr)]


def translatable_names() -> list[str]:
    """The function names `to_column` knows."""
    return sorted(TRANSLATORS.keys() | STRUCTURAL_TRANSLATORS.keys())


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


