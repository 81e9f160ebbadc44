"""Arithmetic: add, subtract, multiply, divide, negate, abs, power, sqrt and the `_checked` forms.

Signatures follow Arrow's registrations: one kernel per numeric type `(T, T) -> T`,
a null kernel, decimal kernels whose output precision and scale follow Arrow's
(Redshift's) rules, and the temporal kernels (timestamp +/- duration, date -
date, time +/- duration, duration * int64). `_checked` forms raise on overflow
instead of wrapping around; integer division raises on a zero divisor either way.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

from .dispatch import best_arithmetic, best_decimal_to_float, best_floating
from .function import Kernel
from .registry import definer
from .types import (
    FLOATS,
    NUMERIC,
    SIGNED_INTS,
    TIME_UNITS,
    UNSIGNED_INTS,
    cast_binary_decimal_args,
    computed,
    exact,
    fixed,
    make_decimal,
    of_kind,
    same_as,
    timestamp_unit,
)

define = definer("math")

__all__: list[str] = []

DECIMAL128 = of_kind("decimal128", pat.is_decimal128)
DECIMAL256 = of_kind("decimal256", pat.is_decimal256)
NULL = exact(pa.null())


def _decimal_output(promotion: str, rule_name: str, rule) -> object:
    """Arrow's decimal output rule, applied after Arrow's scale promotion of the operands."""

    def resolve(types, options):
        promoted = cast_binary_decimal_args(promotion, types)
        (p1, s1), (p2, s2) = [(t.precision, t.scale) for t in promoted]
        precision, scale = rule(p1, s1, p2, s2)
        return make_decimal(pat.is_decimal256(promoted[0]), precision, scale)

    return computed(rule_name, resolve)


_DECIMAL_RULES = {
    # see Arrow's ResolveDecimal{AdditionOrSubtraction,Multiplication,Division}Output
    "add": _decimal_output("add", "decimal(max(p1-s1, p2-s2) + s + 1, s), s = max(s1, s2)",
                           lambda p1, s1, p2, s2: (max(p1 - s1, p2 - s2) + s1 + 1, s1)),
    "multiply": _decimal_output("multiply", "decimal(p1 + p2 + 1, s1 + s2)",
                                lambda p1, s1, p2, s2: (p1 + p2 + 1, s1 + s2)),
    "divide": _decimal_output("divide", "decimal(p1 - s1 + s2 + s, s), s = max(4, s1 + p2 - s2 + 1)",
                              lambda p1, s1, p2, s2: (p1, s1 - s2)),
}


def _numeric_binary_kernels(name: str, decimal_rule: str | None) -> list[Kernel]:
    kernels = [Kernel(name, (exact(t), exact(t)), same_as(0, str(t))) for t in NUMERIC]
    kernels.append(Kernel(name, (NULL, NULL), fixed(pa.null())))
    if decimal_rule is not None:
        for pattern in (DECIMAL128, DECIMAL256):
            kernels.append(Kernel(name, (pattern, pattern), _DECIMAL_RULES[decimal_rule]))
    return kernels


def _timestamp_of(i: int):
    return computed(f"timestamp of arg {i}", lambda types, options, i=i: types[i])


def _duration_of_unit():
    return computed("duration(unit)", lambda types, options: pa.duration(types[0].unit))


def _time_duration_kernels(name: str, both_orders: bool) -> list[Kernel]:
    out = []
    times = [pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns")]
    for t in times:
        # a time of day that leaves [0, 24h) is an error, row by row
        out.append(Kernel(name, (exact(t), exact(pa.duration(t.unit))), same_as(0, str(t)),
                          can_fail=True))
    if both_orders:
        for t in times:
            out.append(Kernel(name, (exact(pa.duration(t.unit)), exact(t)), same_as(1, str(t)),
                              can_fail=True))
    return out


def _add_kernels(name: str) -> list[Kernel]:
    kernels = _numeric_binary_kernels(name, "add")
    for u in TIME_UNITS:
        kernels.append(Kernel(name, (timestamp_unit(u), exact(pa.duration(u))), _timestamp_of(0)))
        kernels.append(Kernel(name, (exact(pa.duration(u)), timestamp_unit(u)), _timestamp_of(1)))
    for u in TIME_UNITS:
        d = pa.duration(u)
        kernels.append(Kernel(name, (exact(d), exact(d)), fixed(d)))
    return kernels + _time_duration_kernels(name, both_orders=True)


def _subtract_kernels(name: str) -> list[Kernel]:
    kernels = _numeric_binary_kernels(name, "add")
    for u in TIME_UNITS:
        kernels.append(Kernel(name, (timestamp_unit(u), timestamp_unit(u)), fixed(pa.duration(u)),
                              check=_same_tz_presence, check_name="both or neither have a time zone"))
    for u in TIME_UNITS:
        kernels.append(Kernel(name, (timestamp_unit(u), exact(pa.duration(u))), _timestamp_of(0)))
    for u in TIME_UNITS:
        d = pa.duration(u)
        kernels.append(Kernel(name, (exact(d), exact(d)), fixed(d)))
    for t in (pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns")):
        kernels.append(Kernel(name, (exact(t), exact(t)), fixed(pa.duration(t.unit))))
    kernels.append(Kernel(name, (exact(pa.date32()), exact(pa.date32())), fixed(pa.duration("s"))))
    kernels.append(Kernel(name, (exact(pa.date64()), exact(pa.date64())), fixed(pa.duration("ms"))))
    return kernels + _time_duration_kernels(name, both_orders=False)


def _same_tz_presence(types) -> bool:
    return (types[0].tz is None) == (types[1].tz is None)


def _multiply_kernels(name: str) -> list[Kernel]:
    kernels = _numeric_binary_kernels(name, "multiply")
    for u in TIME_UNITS:
        d = pa.duration(u)
        kernels.append(Kernel(name, (exact(d), exact(pa.int64())), fixed(d)))
        kernels.append(Kernel(name, (exact(pa.int64()), exact(d)), fixed(d)))
    return kernels


def _divide_kernels(name: str) -> list[Kernel]:
    kernels = _numeric_binary_kernels(name, "divide")
    if name == "divide":  # IEEE: a float divided by zero is inf or NaN, never an error
        for kernel in kernels:
            if all(any(i.accepts(t) for t in FLOATS) for i in kernel.inputs):
                kernel.can_fail = False
    for u in TIME_UNITS:
        d = pa.duration(u)
        kernels.append(Kernel(name, (exact(d), exact(pa.int64())), fixed(d)))
    for u in TIME_UNITS:
        d = pa.duration(u)
        kernels.append(Kernel(name, (exact(d), exact(d)), fixed(pa.float64())))
    return kernels


def _unary_kernels(name: str, types, decimals: bool = True, durations: bool = True) -> list[Kernel]:
    kernels = [Kernel(name, (exact(t),), same_as(0, str(t))) for t in types]
    kernels.append(Kernel(name, (NULL,), fixed(pa.null())))
    if decimals:
        kernels.append(Kernel(name, (DECIMAL128,), same_as(0)))
        kernels.append(Kernel(name, (DECIMAL256,), same_as(0)))
    if durations:
        kernels += [Kernel(name, (exact(pa.duration(u)),), same_as(0, f"duration[{u}]"))
                    for u in TIME_UNITS]
    return kernels


_BINARY = [
    ("add", _add_kernels, "Add the arguments element-wise (integers wrap around on overflow)."),
    ("subtract", _subtract_kernels, "Subtract the second argument from the first, element-wise."),
    ("multiply", _multiply_kernels, "Multiply the arguments element-wise."),
    ("divide", _divide_kernels,
     "Divide the first argument by the second; integer division truncates, fails on zero."),
]

def _floats_cannot_fail(kernels: list[Kernel]) -> list[Kernel]:
    """Checked add, subtract and multiply check integers only: on floats they give inf or
    NaN as the unchecked ones do, so their float kernels cannot fail."""
    for kernel in kernels:
        if all(any(i.accepts(t) for t in FLOATS) for i in kernel.inputs):
            kernel.can_fail = False
    return kernels


for _name, _make, _doc in _BINARY:
    for _checked in (False, True):
        _full = f"{_name}_checked" if _checked else _name
        _kernels = _make(_full)
        if _checked and _name != "divide":  # a checked float division fails on zero
            _kernels = _floats_cannot_fail(_kernels)
        define(
            _full, _kernels,
            _doc + (" Fails on overflow." if _checked else ""),
            dispatch_best=best_arithmetic,
            can_fail=_checked or _name == "divide",
        )

for _checked in (False, True):
    _suffix = "_checked" if _checked else ""
    define(f"negate{_suffix}",
           _unary_kernels(f"negate{_suffix}", (SIGNED_INTS + FLOATS if _checked else NUMERIC)
                          + [pa.float16()]),
           "Negate the argument element-wise" + (" (fails on overflow)." if _checked else
                                                 " (integers wrap around)."),
           dispatch_best=best_arithmetic, can_fail=_checked)
    define(f"abs{_suffix}", _unary_kernels(f"abs{_suffix}", NUMERIC),
           "Absolute value, element-wise" + (" (fails on overflow)." if _checked else "."),
           dispatch_best=best_arithmetic, can_fail=_checked)
    define(f"power{_suffix}",
           # IEEE: a float power is NaN or inf, never an error (even checked)
           [Kernel(f"power{_suffix}", (exact(t), exact(t)), same_as(0, str(t)),
                   can_fail=False if t in FLOATS else None) for t in NUMERIC]
           + [Kernel(f"power{_suffix}", (NULL, NULL), fixed(pa.null()))],
           "Raise the base to the exponent element-wise; integer bases reject negative exponents"
           + (" and overflow." if _checked else "."),
           dispatch_best=best_decimal_to_float, can_fail=True)  # int ** negative int fails
    define(f"sqrt{_suffix}",
           [Kernel(f"sqrt{_suffix}", (exact(t),), same_as(0, str(t))) for t in FLOATS]
           + [Kernel(f"sqrt{_suffix}", (NULL,), fixed(pa.null()))],
           "Square root element-wise; integers and decimals are computed as float64"
           + (" (fails on negative input)." if _checked else " (NaN for negative input)."),
           dispatch_best=best_floating, can_fail=_checked)

for _name, _doc in [("ln", "Natural logarithm element-wise (-inf at 0, NaN below)."),
                    ("exp", "e raised to the argument, element-wise.")]:
    define(_name, [Kernel(_name, (exact(t),), same_as(0, str(t))) for t in FLOATS]
           + [Kernel(_name, (NULL,), fixed(pa.null()))],
           _doc + " Integers and decimals are computed as float64.", dispatch_best=best_floating)

define("sign",
       [Kernel("sign", (exact(t),), fixed(pa.int8())) for t in UNSIGNED_INTS + SIGNED_INTS]
       + [Kernel("sign", (exact(t),), same_as(0, str(t))) for t in FLOATS]
       + [Kernel("sign", (p,), fixed(pa.int64())) for p in (DECIMAL128, DECIMAL256)]
       + [Kernel("sign", (NULL,), fixed(pa.null()))]
       + [Kernel("sign", (exact(pa.duration(u)),), fixed(pa.int8())) for u in TIME_UNITS]
       + [Kernel("sign", (exact(pa.float16()),), fixed(pa.float16()))],
       "The sign (-1, 0 or 1) element-wise; int8 for integers and durations, int64 for "
       "decimals, the input type for floats.",
       dispatch_best=best_arithmetic)

del _name, _make, _doc, _checked, _full, _kernels, _suffix
