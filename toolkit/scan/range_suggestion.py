"""Beyond Arrow: data a scan could skip if it reasoned with value ranges.

Arrow simplifies a filter under a guarantee by substituting known values and
deciding comparisons of a bare field with a constant; it does not push ranges
through arithmetic. Against statistics `x >= 5000 and x <= 7000`, the filter
`x * 2 < 4000` stays undecided in Arrow, yet `x * 2` lies in [10000, 14000]
and can never be below 4000.

`never_true(filter, guarantee)` evaluates the filter abstractly: every numeric
node becomes an interval (with "may be null" and "may be NaN"), every boolean
node the set of values it can take among true, false and null, with Kleene
logic for `and`/`or`. A filter that can never be true rules the data out.
Anything it does not model (a function it does not know, a possible overflow)
is "could be anything", so the answer errs on the side of reading. This is a
suggestion shown beside Arrow's verdict, never a verdict of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyarrow as pa

from ..functions.facts import conjuncts
from ..model.expression import Expression, postorder
from ..model.field_ref import FieldRef

__all__ = ["never_true"]

T, F, N = True, False, None
ANY = frozenset({T, F, N})


@dataclass(frozen=True)
class Interval:
    """The values a numeric node can take: [low, high], and whether null or NaN may appear."""

    low: float
    high: float
    may_be_null: bool
    may_be_nan: bool = False


def never_true(filter_expr: Expression, guarantee: Expression) -> str | None:
    """Why `filter_expr` is never true where `guarantee` holds, or None if it may be."""
    ranges = _field_ranges(guarantee)
    if not ranges:
        return None
    values: dict[int, object] = {}
    for node in postorder(filter_expr):
        values[id(node)] = _abstract(node, [values[id(a)] for a in node.args], ranges)
    root = values[id(filter_expr)]
    if isinstance(root, frozenset) and T not in root:
        return _explain(filter_expr, values)
    return None


def _explain(filter_expr: Expression, values: dict) -> str:
    """The first arithmetic node with a known range: what makes the filter impossible."""
    for node in postorder(filter_expr):
        value = values[id(node)]
        if (node.is_call and isinstance(value, Interval)
                and any(not a.is_literal for a in node.args)):
            return (f"{node} lies in [{_num(value.low)}, {_num(value.high)}], so "
                    f"{filter_expr} is never true")
    return f"{filter_expr} is never true on these values"


def _num(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


# -- what the guarantee says about each field ----------------------------------------
def _field_ranges(guarantee: Expression) -> dict[FieldRef, Interval]:
    ranges: dict[FieldRef, Interval] = {}
    for member in conjuncts(guarantee):
        nullable = False
        if member.is_call and member.name == "or_kleene" and len(member.args) == 2:
            inner, other = member.args
            if other.is_call and other.name == "is_null" and other.args[0].is_field:
                member, nullable = inner, True
        for part in conjuncts(member):
            found = _bound_of(part)
            if found is None:
                continue
            ref, low, high = found
            old = ranges.get(ref)
            if old is not None:
                low, high = max(low, old.low), min(high, old.high)
                nullable = nullable and old.may_be_null
            ranges[ref] = Interval(low, high, nullable)
    return ranges


def _bound_of(part: Expression):
    """(ref, low, high) from `x >= c`, `x <= c` or `x == c` with a numeric constant."""
    if not (part.is_call and len(part.args) == 2 and part.args[0].is_field
            and part.args[1].is_literal):
        return None
    value = _number(part.args[1].value)
    if value is None:
        return None
    ref = part.args[0].ref
    if part.name == "greater_equal":
        return ref, value, math.inf
    if part.name == "less_equal":
        return ref, -math.inf, value
    if part.name == "equal":
        return ref, value, value
    return None


def _number(scalar) -> float | None:
    if not isinstance(scalar, pa.Scalar) or not scalar.is_valid:
        return None
    if not (pa.types.is_integer(scalar.type) or pa.types.is_floating(scalar.type)):
        return None
    value = scalar.as_py()
    return None if isinstance(value, float) and math.isnan(value) else value


# -- abstract evaluation --------------------------------------------------------------
_ARITHMETIC = {"add", "add_checked", "subtract", "subtract_checked", "multiply",
               "multiply_checked", "negate", "negate_checked"}
_COMPARE = {"less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b,
            "greater": lambda a, b: a > b, "greater_equal": lambda a, b: a >= b}


def _abstract(node: Expression, args: list, ranges: dict):
    if node.is_literal:
        number = _number(node.value)
        if number is not None:
            return Interval(number, number, False)
        if isinstance(node.value, pa.Scalar) and node.value.type == pa.bool_():
            return frozenset({node.value.as_py()})
        return None
    if node.is_field:
        known = ranges.get(node.ref)
        if known is None or node.type is None:
            return None
        if not (pa.types.is_integer(node.type) or pa.types.is_floating(node.type)):
            return None
        return Interval(known.low, known.high, known.may_be_null,
                        pa.types.is_floating(node.type))
    name = node.name
    if name in _ARITHMETIC and all(isinstance(a, Interval) for a in args):
        return _arithmetic(name, args, node.type)
    if name == "cast" and len(args) == 1 and isinstance(args[0], Interval):
        return _cast(args[0], node.args[0].type, node.type)
    if name in _COMPARE or name in ("equal", "not_equal"):
        if len(args) == 2 and all(isinstance(a, Interval) for a in args):
            return _compare(name, *args)
        return ANY
    if name in ("and_kleene", "or_kleene", "invert"):
        sets = [a if isinstance(a, frozenset) else ANY for a in args]
        return _logic(name, sets)
    if name in ("is_null", "is_valid") and len(args) == 1 and isinstance(args[0], Interval):
        null = args[0].may_be_null
        nan_counts = name == "is_null" and _nan_is_null(node) and args[0].may_be_nan
        can_be_null = null or nan_counts
        has_values = args[0].low <= args[0].high
        out = {T} if can_be_null else set()
        out |= {F} if has_values else set()
        return frozenset(out if name == "is_null" else {not v for v in out})
    return ANY if node.type == pa.bool_() else None


def _nan_is_null(node) -> bool:
    return bool(getattr(node.options, "nan_is_null", False))


def _arithmetic(name: str, args: list[Interval], out_type) -> Interval | None:
    if name.startswith("negate"):
        (a,) = args
        result = Interval(-a.high, -a.low, a.may_be_null, a.may_be_nan)
    else:
        a, b = args
        if name.startswith("add"):
            low, high = a.low + b.low, a.high + b.high
        elif name.startswith("subtract"):
            low, high = a.low - b.high, a.high - b.low
        else:
            products = [x * y for x in (a.low, a.high) for y in (b.low, b.high)
                        if not (math.isinf(x) and y == 0) and not (math.isinf(y) and x == 0)]
            if len(products) < 4:
                return None
            low, high = min(products), max(products)
        result = Interval(low, high, a.may_be_null or b.may_be_null,
                          a.may_be_nan or b.may_be_nan)
    if out_type is None or math.isnan(result.low) or math.isnan(result.high):
        return None  # inf - inf: the bounds say nothing
    return _as_type(result, out_type)


def _as_type(value: Interval, target) -> Interval | None:
    """The interval as `target` holds it: floats rounded to the type, past its largest
    value to infinity (rounding and overflow to infinity both keep order); integers
    only when every value fits (wrapping would not keep order); else None."""
    if pa.types.is_floating(target):
        low, high = _to_float(value.low, target), _to_float(value.high, target)
        if low is None or high is None:
            return None
        return Interval(low, high, value.may_be_null, value.may_be_nan)
    if not pa.types.is_integer(target):
        return None
    bits = target.bit_width
    if pa.types.is_signed_integer(target):
        low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    else:
        low, high = 0, 2 ** bits - 1
    return value if low <= value.low and value.high <= high else None


def _to_float(x, target) -> float | None:
    """`x` as Arrow's cast to float32/float64 gives it (nearest value, overflow to inf)."""
    if isinstance(x, float):
        source = pa.float64()
    elif -(2 ** 63) <= x < 2 ** 63:
        source = pa.int64()
    elif 0 <= x < 2 ** 64:
        source = pa.uint64()
    else:
        return None
    try:
        return pa.scalar(x, source).cast(target, safe=False).as_py()
    except (pa.ArrowException, OverflowError):
        return None


def _cast(value: Interval, source, target) -> Interval | None:
    """A cast of the interval: floats to integers truncate toward zero (which keeps
    order) and must then fit; NaN cast to an integer is any value, so no interval."""
    if pa.types.is_integer(target) and source is not None and pa.types.is_floating(source):
        if value.may_be_nan or math.isinf(value.low) or math.isinf(value.high):
            return None
        value = Interval(math.trunc(value.low), math.trunc(value.high), value.may_be_null)
    return _as_type(value, target)


def _compare(name: str, a: Interval, b: Interval) -> frozenset:
    out: set = set()
    if a.may_be_null or b.may_be_null:
        out.add(N)
    if a.low > a.high or b.low > b.high:
        return frozenset(out)
    if a.may_be_nan or b.may_be_nan:  # NaN compares false to everything but !=
        out.add(T if name == "not_equal" else F)
    if name in _COMPARE:
        test = _COMPARE[name]
        if name.startswith("less"):  # best case: a smallest, b largest
            best, worst = (a.low, b.high), (a.high, b.low)
        else:
            best, worst = (a.high, b.low), (a.low, b.high)
        if test(*best):
            out.add(T)
        if not test(*worst):
            out.add(F)
    elif name == "equal":
        if a.low <= b.high and b.low <= a.high:
            out.add(T)
        if not (a.low == a.high == b.low == b.high):
            out.add(F)
    else:
        if not (a.low == a.high == b.low == b.high):
            out.add(T)
        if a.low <= b.high and b.low <= a.high:
            out.add(F)
    return frozenset(out)


def _kleene_and(x, y):
    if x is F or y is F:
        return F
    if x is N or y is N:
        return N
    return T


def _kleene_or(x, y):
    if x is T or y is T:
        return T
    if x is N or y is N:
        return N
    return F


def _logic(name: str, sets: list[frozenset]) -> frozenset:
    if name == "invert":
        return frozenset(N if v is N else (not v) for v in sets[0])
    combine = _kleene_and if name == "and_kleene" else _kleene_or
    return frozenset(combine(x, y) for x in sets[0] for y in sets[1])
