"""Translators of arithmetic to pyspark Columns."""

from __future__ import annotations

import pyarrow.types as pat

from ..types import to_spark_type
from .common import (
    TRANSLATORS,
    F,
    as_call_type,
    fail,
    is_float,
    is_int,
    options_of,
    register,
    untranslatable,
)


@register("add")
def _add(call, a, t):
    return as_call_type(call, a[0] + a[1]) if is_int(t[0]) else a[0] + a[1]


@register("subtract")
def _subtract(call, a, t):
    return as_call_type(call, a[0] - a[1]) if is_int(t[0]) else a[0] - a[1]


@register("multiply")
def _multiply(call, a, t):
    return as_call_type(call, a[0] * a[1]) if is_int(t[0]) else a[0] * a[1]


def _checked(name, try_fn, plain):
    """Fail where the exact result does not fit (as `_checked` kernels do), in any ANSI mode."""

    def translate(call, a, t):
        if not is_int(t[0]) or not is_int(t[1]):
            return plain(a[0], a[1])
        result = as_call_type(call, try_fn(a[0], a[1]))  # null where it overflowed
        return (F.when(a[0].isNotNull() & a[1].isNotNull() & result.isNull(),
                       fail(f"{name}: overflow"))
                .otherwise(result))

    return translate


def _register_checked():
    TRANSLATORS["add_checked"] = _checked("add_checked", lambda x, y: F.try_add(x, y),
                                          lambda x, y: x + y)
    TRANSLATORS["subtract_checked"] = _checked(
        "subtract_checked", lambda x, y: F.try_subtract(x, y), lambda x, y: x - y)
    TRANSLATORS["multiply_checked"] = _checked(
        "multiply_checked", lambda x, y: F.try_multiply(x, y), lambda x, y: x * y)


_register_checked()


@register("divide", "divide_checked")
def _divide(call, a, t):
    x, y = a
    if is_int(t[0]) and is_int(t[1]):
        # Arrow: truncating integer division that fails on zero
        quotient = F.call_function("div", x.cast("long"), _null_when_zero(y).cast("long"))
        return F.when(y == 0, fail(f"{call.name}: divide by zero")) \
            .otherwise(as_call_type(call, quotient))
    if is_float(t[0]) or is_float(t[1]):
        safe = x / _null_when_zero(y)
        if call.name == "divide_checked":
            return F.when(y == 0, fail("divide_checked: divide by zero")).otherwise(safe)
        # IEEE: x/0 is +-inf by the sign of x, 0/0 and NaN/0 are NaN
        inf = F.lit(float("inf")).cast(to_spark_type(t[0]))
        return F.when(y == 0, F.when(x == 0, F.lit(float("nan")).cast(to_spark_type(t[0])))
                      .otherwise(x * inf)).otherwise(safe)
    if t[0] is not None and pat.is_decimal(t[0]):
        return F.when(y == 0, fail(f"{call.name}: divide by zero")) \
            .otherwise(as_call_type(call, x / _null_when_zero(y)))
    return x / y


@register("remainder", "remainder_checked")
def _remainder(call, a, t):
    """Arrow's remainder: the dividend's sign (Spark's `%` too), an integer divisor of zero
    fails, a float one gives NaN (IEEE fmod; Spark's `%` gives null there) or, checked,
    fails."""
    x, y = a
    if is_int(t[0]) and is_int(t[1]):
        return F.when(y == 0, fail(f"{call.name}: divide by zero")) \
            .otherwise(as_call_type(call, x % _null_when_zero(y)))
    if is_float(t[0]) and is_float(t[1]):
        at_zero = fail(f"{call.name}: divide by zero") if call.name == "remainder_checked" \
            else F.lit(float("nan")).cast(to_spark_type(call.type))
        return F.when(y == 0, at_zero).otherwise(x % _null_when_zero(y))
    raise untranslatable(call.name, "Arrow has no remainder of decimals to match")


def _null_when_zero(y):
    return F.when(y != 0, y)


@register("negate", "negate_checked")
def _negate(call, a, t):
    return as_call_type(call, -a[0]) if is_int(t[0]) else -a[0]


@register("abs", "abs_checked")
def _abs(call, a, t):
    return as_call_type(call, F.abs(a[0])) if is_int(t[0]) else F.abs(a[0])


@register("power", "power_checked")
def _power(call, a, t):
    x, y = a
    if is_int(t[0]) and is_int(t[1]):
        return F.when(y < 0, fail(f"{call.name}: integers to negative integer powers "
                                   "are not allowed")).otherwise(as_call_type(call, F.pow(x, y)))
    return as_call_type(call, F.pow(x, y))


@register("sqrt", "sqrt_checked")
def _sqrt(call, a, t):
    if call.name == "sqrt_checked":
        return F.when(a[0] < 0, fail("sqrt_checked: square root of negative number")) \
            .otherwise(F.sqrt(a[0]))
    return as_call_type(call, F.sqrt(a[0]))


@register("floor", "ceil", "trunc")
def _floor_ceil(call, a, t):
    if is_int(t[0]):
        return a[0]
    x = a[0]
    if call.name == "floor":
        out = F.floor(x)
    elif call.name == "ceil":
        out = F.ceil(x)
    else:
        out = F.when(x >= 0, F.floor(x)).otherwise(F.ceil(x))
    # Spark gives a long; keep NaN/inf (which a long cannot hold) as they are
    out = F.when(F.isnan(x) | (F.abs(x) == float("inf")), x).otherwise(out)
    return as_call_type(call, out) if call.type is not None else out.cast("double")


@register("sign")
def _sign(call, a, t):
    return as_call_type(call, F.signum(a[0]))


@register("exp")
def _exp(call, a, t):
    return as_call_type(call, F.exp(a[0]))


@register("ln")
def _ln(call, a, t):
    """Arrow's unchecked ln: ln(0) = -inf, ln(x < 0) = NaN (Spark gives null for both)."""
    x = a[0]
    return as_call_type(call, F.when(x == 0, F.lit(float("-inf")))
                         .when(x < 0, F.lit(float("nan"))).otherwise(F.ln(x)))


@register("round")
def _round(call, a, t):
    values = options_of(call)
    ndigits = int(values.get("ndigits", 0))
    mode = _round_mode(values.get("round_mode", 0))
    x = a[0]
    if mode == "half_to_even":
        out = F.bround(x, ndigits)
    elif mode == "half_towards_infinity":
        out = F.round(x, ndigits)
    elif ndigits == 0 and mode in ("down", "up", "towards_zero"):
        out = {"down": F.floor(x), "up": F.ceil(x),
               "towards_zero": F.when(x >= 0, F.floor(x)).otherwise(F.ceil(x))}[mode]
    else:
        raise untranslatable("round", f"round mode {mode} with ndigits={ndigits} has no "
                             "Spark function")
    if is_float(t[0]):
        out = F.when(F.isnan(x) | (F.abs(x) == float("inf")), x).otherwise(out)
    return as_call_type(call, out)


_ROUND_MODES = ["down", "up", "towards_zero", "towards_infinity", "half_down", "half_up",
                "half_towards_zero", "half_towards_infinity", "half_to_even", "half_to_odd"]


def _round_mode(value) -> str:
    if isinstance(value, str):
        return value
    return _ROUND_MODES[int(value)]
