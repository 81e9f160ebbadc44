"""Translators of the comparisons to pyspark Columns."""

from __future__ import annotations

import math

import pyarrow as pa

from .common import (
    TRANSLATORS,
    F,
    is_float,
)


def _comparison(op):
    def translate(call, a, t):
        x, y = a
        result = op(x, y)
        if is_float(t[0]) or is_float(t[1]):
            side = _non_nan_constant_side(call)
            if side is not None:  # pushable into Spark's Parquet reader: no CASE WHEN
                column = a[1 - side]
                return result & ~F.isnan(column) if _nan_guard(call.name, side) else result
            # IEEE: NaN is unequal to everything (Spark: NaN = NaN and NaN is largest)
            nan = F.isnan(x) | F.isnan(y)
            return F.when(nan & x.isNotNull() & y.isNotNull(), F.lit(call.name == "not_equal")) \
                .otherwise(result)
        return result

    return translate


def _non_nan_constant_side(call) -> int | None:
    """Which argument (1 or 0) is a constant that is neither null nor NaN; None if neither."""
    for side in (1, 0):
        arg = call.args[side]
        if arg.is_literal and isinstance(arg.value, pa.Scalar) and arg.value.is_valid:
            value = arg.value.as_py()
            return None if isinstance(value, float) and math.isnan(value) else side
    return None


# Spark orders NaN above every number and makes NaN = NaN; Arrow makes every comparison
# with NaN false except `!=`. Against a non-NaN constant they differ only where Spark finds
# the NaN side greater, and there a conjunct `and not isnan(column)` restores Arrow's answer
# (isnan(null) is false, so nulls stay null); the plain comparison stays pushable.
_NAN_TRUE_IN_SPARK = {("greater", 1), ("greater_equal", 1), ("less", 0), ("less_equal", 0)}


def _nan_guard(name: str, constant_side: int) -> bool:
    return (name, constant_side) in _NAN_TRUE_IN_SPARK


TRANSLATORS["equal"] = _comparison(lambda x, y: x == y)
TRANSLATORS["not_equal"] = _comparison(lambda x, y: x != y)
TRANSLATORS["less"] = _comparison(lambda x, y: x < y)
TRANSLATORS["less_equal"] = _comparison(lambda x, y: x <= y)
TRANSLATORS["greater"] = _comparison(lambda x, y: x > y)
TRANSLATORS["greater_equal"] = _comparison(lambda x, y: x >= y)
