"""A pre-filter Spark may apply while it scans, before rows cross into Python.

Engine mode runs exprscope's own filter on every batch, but every row Spark hands
to `mapInArrow` first goes through Spark's row-to-Arrow conversion, which costs
more than the filter itself (a no-op `mapInArrow` over TPC-H Q6's four columns
takes several times Spark's whole query). So the conjuncts of a filter directly above a
scan that compare a column with a constant are also given to Spark, as plain
Spark comparisons it can push into the Parquet reader. exprscope's filter still
runs, unchanged, on the rows that arrive: the pre-filter only has to keep
*every row exprscope's filter keeps*, and it does:

- A row passes an `and` only if each conjunct is true, so each conjunct alone is
  a necessary condition.
- For integers, decimals, dates, booleans and strings (UTF-8 bytes, Spark's
  default binary collation), Spark's comparisons and Arrow's agree exactly, and
  null compares to null in both.
- For floats, Arrow says every comparison with NaN is false except `!=`; Spark
  treats NaN as the largest value, equal to itself. With a non-NaN constant
  (a NaN constant is never pushed), Spark's `<`, `<=`, `=` are false on NaN as
  Arrow's are, `!=` is true in both, and `>`, `>=` are true where Arrow's are
  false: Spark keeps more rows, never fewer; exprscope's filter drops them.

Anything else (a computed side, a cast, timestamps, or a scan with a row limit,
where filtering first would change which rows the limit keeps) is not pushed.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.types as pat

from ...functions.facts import conjuncts
from ...model.expression import Expression
from ..translate.to_column import literal_column, quote_name

__all__ = ["describe", "prefilter_column", "prefilter_conjuncts"]

_FLIPPED = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
            "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


def _pushable_type(t: pa.DataType) -> bool:
    return (pat.is_integer(t) or pat.is_floating(t) or pat.is_decimal(t) or pat.is_date32(t)
            or pat.is_boolean(t) or pat.is_string(t) or pat.is_large_string(t))


def _comparison(node: Expression, schema: pa.Schema) -> tuple[str, str, pa.Scalar] | None:
    """(column name, comparison, constant) when `node` compares a scan column with a constant."""
    if not node.is_call or node.name not in _FLIPPED or len(node.args) != 2:
        return None
    left, right = node.args
    name = node.name
    if left.is_literal and right.is_field:
        left, right, name = right, left, _FLIPPED[name]
    if not (left.is_field and right.is_literal) or left.path is None:
        return None
    indices = left.path.indices
    if len(indices) != 1 or indices[0] >= len(schema):
        return None
    value = right.value
    if not isinstance(value, pa.Scalar) or not value.is_valid:
        return None
    column_type = schema.field(indices[0]).type
    if value.type != column_type or not _pushable_type(column_type):
        return None  # bound: a literal has its column's type, else the column sits in a cast
    if pat.is_floating(value.type) and math.isnan(value.as_py()):
        return None
    return schema.field(indices[0]).name, name, value


def prefilter_conjuncts(predicate: Expression, schema: pa.Schema) -> list[tuple[str, str, pa.Scalar]]:
    """The (column, comparison, constant) conjuncts of a bound filter over `schema` Spark may apply."""
    found = []
    for conjunct in conjuncts(predicate, plain_and=True):
        hit = _comparison(conjunct, schema)
        if hit is not None:
            found.append(hit)
    return found


def prefilter_column(conjuncts: list[tuple[str, str, pa.Scalar]]):
    """The Spark Column of the conjuncts (plain comparisons, so the Parquet reader can use them)."""
    from pyspark.sql import functions as F

    ops = {"less": lambda x, y: x < y, "less_equal": lambda x, y: x <= y,
           "greater": lambda x, y: x > y, "greater_equal": lambda x, y: x >= y,
           "equal": lambda x, y: x == y, "not_equal": lambda x, y: x != y}
    column = None
    for name, op, value in conjuncts:
        term = ops[op](F.col(quote_name(name)), literal_column(value))
        column = term if column is None else column & term
    return column


def describe(conjuncts: list[tuple[str, str, pa.Scalar]]) -> str:
    symbols = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
               "equal": "=", "not_equal": "!="}
    return " and ".join(f"{name} {symbols[op]} {value}" for name, op, value in conjuncts)
