"""Spark's comparisons of floats, as exprscope expressions over Arrow's kernels.

Spark orders NaN above every other float and equal to itself (`NaN = NaN` is true,
`NaN > 1e308` is true, `x <= NaN` is true for every x that is not null), where Arrow's
comparison kernels follow IEEE 754 (every comparison with NaN is false). An imported
comparison whose operands may be NaN therefore adds the cases IEEE leaves out:

    l = r    equal(l, r) or (is_nan(l) and is_nan(r))
    l < r    less(l, r) or (is_nan(r) and not is_nan(l))
    l <= r   less_equal(l, r) or (is_nan(r) and is_valid(l))

(`>` and `>=` are these with the operands swapped). A null operand keeps the result
null, as in Spark. An operand that cannot be NaN (not a float, or a constant that is a
number) drops the terms that test it, so `x > 1.5` reads `x > 1.5 or is_nan(x)` and
`x < 1.5` stays as it is. `l <=> r` (EqualNullSafe) is true for two nulls and false
for one: `coalesce(l = r, is_null(l) and is_null(r))`.

The same order makes Spark's `max` of floats NaN wherever a NaN is among the values,
where Arrow's `max` skips NaN (the two `min`s agree: NaN only when every value is
NaN): `if(max(is_nan(x)), NaN, max(x))`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import pyarrow as pa

import toolkit as tk

__all__ = ["COMPARISONS", "AggregateCall", "compare", "equal_null_safe", "spark_max"]

# Spark's comparison classes: (Arrow's function, swap the operands to read it as `<`/`<=`)
COMPARISONS = {"EqualTo": ("equal", False), "LessThan": ("less", False),
               "LessThanOrEqual": ("less_equal", False), "GreaterThan": ("greater", True),
               "GreaterThanOrEqual": ("greater_equal", True)}


def _may_be_nan(operand: tk.Expression, is_float: bool) -> bool:
    if not is_float:
        return False
    if operand.is_literal and isinstance(operand.value, pa.Scalar):
        value = operand.value.as_py()
        return value is not None and math.isnan(value)
    return True


def compare(spark_class: str, left: tk.Expression, right: tk.Expression,
            floats: bool) -> tk.Expression:
    """Spark's `spark_class` comparison of `left` and `right` (`floats`: Spark compares
    them as floats or doubles)."""
    function, swapped = COMPARISONS[spark_class]
    plain = tk.call(function, [left, right])
    low, high = (right, left) if swapped else (left, right)  # read as low < high, low <= high
    low_nan, high_nan = _may_be_nan(low, floats), _may_be_nan(high, floats)
    if function == "equal":
        if not (low_nan and high_nan):
            return plain
        return tk.or_(plain, tk.and_(tk.call("is_nan", [low]), tk.call("is_nan", [high])))
    if not high_nan:  # the larger side is never NaN: IEEE and Spark agree
        return plain
    high_is_nan = tk.call("is_nan", [high])
    if low.is_literal and isinstance(low.value, pa.Scalar) and low.value.is_valid \
            and not low_nan:  # a number: only a NaN on the other side adds a case
        return tk.or_(plain, high_is_nan)
    if function in ("less", "greater") and low_nan:
        return tk.or_(plain, tk.and_(high_is_nan, tk.not_(tk.call("is_nan", [low]))))
    return tk.or_(plain, tk.and_(high_is_nan, tk.is_valid(low)))


def equal_null_safe(left: tk.Expression, right: tk.Expression, floats: bool) -> tk.Expression:
    """Spark's `left <=> right`: equal (NaN equal to NaN), two nulls equal, one null not."""
    return tk.coalesce(compare("EqualTo", left, right, floats),
                       tk.and_(tk.is_null(left), tk.is_null(right)))


class AggregateCall(NamedTuple):
    """One aggregate the plan computes: function, argument, output column."""

    func: str
    arg: tk.Expression | None
    column: str


def spark_max(argument: tk.Expression, float_type: pa.DataType,
              column: str) -> tuple[list[AggregateCall], tk.Expression]:
    """Spark's `max(argument)` of floats (`float_type`) as plan aggregates (the first
    named `column`) and the expression over their columns that gives Spark's value."""
    nan_column = column + "_nan"
    calls = [AggregateCall("max", argument, column),
             AggregateCall("max", tk.call("is_nan", [argument]), nan_column)]
    nan = tk.literal(pa.scalar(math.nan, float_type))
    return calls, tk.if_else(tk.field(nan_column), nan, tk.field(column))
