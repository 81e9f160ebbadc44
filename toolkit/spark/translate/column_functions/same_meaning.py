"""Arrow functions whose Spark function means the same, and the bit-wise operators."""

from __future__ import annotations

import pyarrow.types as pat

from .common import (
    TRANSLATORS,
    F,
    as_call_type,
    register,
    untranslatable,
)

# Arrow name -> the Spark SQL function computing the same values on the same arguments
# (the result cast back to Arrow's type). Arrow functions not here and without a
# translator above have no Spark equivalent: native mode names them, engine mode runs them.
SAME_MEANING = {
    **{n: n for n in ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                      "tanh", "asinh", "acosh", "atanh", "expm1", "hypot")},
    "binary_length": "octet_length", "iso_week": "weekofyear",
}


def _same_meaning(spark_name):
    def translate(call, a, t):
        return as_call_type(call, F.call_function(spark_name, *a))

    return translate


for _name, _spark in SAME_MEANING.items():
    TRANSLATORS[_name] = _same_meaning(_spark)

# the bit-wise operations, as Spark's operators (Arrow's result type kept)
_BITWISE = {"bit_wise_and": "bitwiseAND", "bit_wise_or": "bitwiseOR", "bit_wise_xor": "bitwiseXOR"}
SAME_MEANING.update({name: method for name, method in _BITWISE.items()})


def _bitwise(method):
    def translate(call, a, t):
        return as_call_type(call, getattr(a[0], method)(a[1]))

    return translate


for _name, _method in _BITWISE.items():
    TRANSLATORS[_name] = _bitwise(_method)


@register("bit_wise_not")
def _bit_wise_not(call, a, t):
    return as_call_type(call, F.bitwise_not(a[0]))


SAME_MEANING["bit_wise_not"] = "bitwise_not"


@register("days_between")
def _days_between(call, a, t):
    """Spark's datediff(end, start) on dates; on timestamps the days depend on time zones."""
    if not all(x is not None and pat.is_date32(x) for x in t):
        raise untranslatable("days_between", "Spark's datediff reads timestamps in the "
                             "session time zone; only dates translate")
    return as_call_type(call, F.datediff(a[1], a[0]))


SAME_MEANING["days_between"] = "datediff (dates)"


@register("list_value_length")
def _list_value_length(call, a, t):
    """Spark's size, null for a null list (legacy Spark says -1)."""
    return as_call_type(call, F.when(a[0].isNotNull(), F.size(a[0])))


SAME_MEANING["list_value_length"] = "size"
del _name, _spark, _method
