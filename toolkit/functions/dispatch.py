"""Dispatch: which kernel a call runs, and what its arguments are cast to.

Arrow binds a call in three steps (docs/semantics.md §4): DispatchExact on the
argument types; failing that, scalar literals are narrowed to the smallest type
holding their value, and the function's DispatchBest rewrites the types (common
numeric, decimal promotion, temporal units, dictionary decoding, ...) before a
second exact match. The DispatchBest families here mirror Arrow's function
classes (ArithmeticFunction, CompareFunction, IfElseFunction, ...); each one is
a pure function `(function, types) -> types` so `toolkit.functions.explain_dispatch` can show it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.types as pat

from ..errors import ArityError, BindError, NoKernelError
from ..support.bounded_cache import BoundedCache
from .function import Function, Kernel
from .types import (
    cast_decimal_args,
    common_binary,
    common_numeric,
    common_temporal,
    common_temporal_resolution,
    compare_decimal_operands,
    decimal_operands,
    decode_dictionaries,
    is_decimal,
    replace_null_with_other,
    replace_temporal_types,
    types_text,
)

__all__ = [
    "best_arithmetic",
    "best_case_when",
    "best_coalesce",
    "best_compare",
    "best_decimal_to_float",
    "best_decode",
    "best_element_wise",
    "best_floating",
    "best_if_else",
    "best_integer_to_float",
    "best_repeat",
    "best_round_binary",
    "check_arity",
    "dispatch",
    "dispatch_exact",
    "exact_kernel",
    "no_kernel_error",
    "smallest_type_for",
]


# -- literal narrowing -----------------------------------------------------------------

_SIGNED = [(pa.int8(), 8), (pa.int16(), 16), (pa.int32(), 32), (pa.int64(), 64)]
_UNSIGNED = [(pa.uint8(), 8), (pa.uint16(), 16), (pa.uint32(), 32), (pa.uint64(), 64)]
_UNIT_FACTOR = {"ns": [("s", 10**9), ("ms", 10**6), ("us", 10**3)],
                "us": [("s", 10**6), ("ms", 10**3)],
                "ms": [("s", 10**3)]}


def _raw_value(scalar: pa.Scalar):
    """The stored value, 0 for a null (Arrow reads the value slot regardless of validity)."""
    return scalar.value if scalar.is_valid and hasattr(scalar, "value") else 0


def smallest_type_for(scalar: pa.Scalar) -> pa.DataType:
    """Arrow's SmallestTypeFor: the narrowest type of the same family holding the value.

    Integers keep their signedness; a double narrows to float when exactly
    representable (or not finite); large strings/binaries become their 32-bit
    offset forms; a timestamp takes the coarsest unit dividing its value.
    """
    t = scalar.type
    if pat.is_integer(t):
        value = int(scalar.as_py()) if scalar.is_valid else 0
        for candidate, bits in (_SIGNED if pat.is_signed_integer(t) else _UNSIGNED):
            if bits >= t.bit_width:
                return candidate
            if pat.is_signed_integer(t):
                if -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
                    return candidate
            elif value < (1 << bits):
                return candidate
        return t
    if pat.is_float64(t):
        value = scalar.as_py() if scalar.is_valid else 0.0
        if not math.isfinite(value):
            return pa.float32()
        as_float = pa.scalar(value, pa.float64()).cast(pa.float32(), safe=False).as_py()
        return pa.float32() if as_float == value else pa.float64()
    if pat.is_large_string(t):
        return pa.utf8()
    if pat.is_large_binary(t):
        return pa.binary()
    if pat.is_timestamp(t) and t.unit in _UNIT_FACTOR:
        raw = scalar.cast(pa.int64()).as_py() if scalar.is_valid else 0
        for unit, factor in _UNIT_FACTOR[t.unit]:
            if raw % factor == 0:
                return pa.timestamp(unit, t.tz)
        return t
    return t


# -- the exact match ----------------------------------------------------------------

def check_arity(function: Function, n: int) -> None:
    arity = function.arity
    if arity.accepts(n):
        return
    if arity.max is None:
        raise ArityError(f"VarArgs function '{function.name}' needs at least {arity.min} "
                         f"arguments but only {n} passed")
    expected = str(arity.min) if arity.min == arity.max else f"{arity.min} to {arity.max}"
    raise ArityError(f"Function '{function.name}' accepts {expected} arguments but {n} passed")


_CACHE_LIMIT = 50_000
_EXACT = BoundedCache(_CACHE_LIMIT)  # (function, *types) -> kernel or None
_BEST = BoundedCache(_CACHE_LIMIT)  # (function, *types) -> (kernel, the types it takes)
_NONE = object()


def exact_kernel(function: Function, types: Sequence[pa.DataType]) -> Kernel | None:
    """`function.dispatch_exact(types)`, memoized: binding a deep tree repeats the same
    few signatures thousands of times, and a linear scan over 30+ kernels adds up."""
    key = (function, *types)
    try:
        hit = _EXACT.get(key, _NONE)
    except TypeError:  # an unhashable type (never expected from pyarrow)
        return function.dispatch_exact(types)
    if hit is not _NONE:
        return hit
    return _EXACT.put(key, function.dispatch_exact(types))


def dispatch_exact(function: Function, types: Sequence[pa.DataType]) -> Kernel | None:
    check_arity(function, len(types))
    return exact_kernel(function, types)


def no_kernel_error(function: Function, types: Sequence[pa.DataType]) -> NoKernelError:
    """Arrow's message, then the signatures that do exist, one per line."""
    signatures = function.signatures()
    message = (f"Function '{function.name}' has no kernel matching input types {types_text(types)}\n"
               f"Signatures of '{function.name}':\n" + "\n".join("  " + s for s in signatures))
    return NoKernelError(message, function=function.name, types=types, signatures=signatures)


def dispatch(function: Function, types: Sequence[pa.DataType]) -> tuple[Kernel, list[pa.DataType]]:
    """DispatchBest: the kernel and the types the arguments must be cast to."""
    check_arity(function, len(types))
    key = (function, *types)
    hit = _BEST.get(key)
    if hit is not None:
        return hit[0], list(hit[1])
    types = list(types)
    if function.dispatch_best is not None:
        types = list(function.dispatch_best(function, types))
    kernel = exact_kernel(function, types)
    if kernel is None:
        raise no_kernel_error(function, types)
    _BEST.put(key, (kernel, list(types)))
    return kernel, types


# -- DispatchBest families ---------------------------------------------------------------

def _decimal_promotion(name: str) -> str | None:
    op = name.split("_")[0]
    return {"add": "add", "subtract": "add", "multiply": "multiply", "divide": "divide",
            "modulo": "add", "remainder": "add"}.get(op)


def best_arithmetic(function: Function, types: list) -> list:
    """ArithmeticFunction: dictionaries decoded; for two arguments a null takes the other
    type, decimals meet integers as decimals (floats as float64), then a common time unit
    (an integer multiplying or dividing a duration becomes int64) or else the common
    numeric type."""
    types = decode_dictionaries(types)
    if len(types) == 2:
        # Arrow promotes decimals before replacing a null, which gives nonsense types
        # (add(decimal, null) -> decimal(5, 0)); here the null takes the decimal's type first
        types = replace_null_with_other(types)
        if any(is_decimal(t) for t in types) and all(_is_number(t) for t in types):
            promotion = _decimal_promotion(function.name)
            if promotion is None:
                raise BindError(f"Invalid decimal function: {function.name}")
            return decimal_operands(types, align_scales=promotion == "add")
        if exact_kernel(function, types) is not None:
            return types
        unit = common_temporal_resolution(types)
        if unit is not None:
            types = replace_temporal_types(unit, types)
            if function.name.split("_")[0] in ("multiply", "divide"):
                types = [pa.int64() if pat.is_integer(t) else t for t in types]
        else:
            common = common_numeric(types)
            if common is not None:
                types = [common] * len(types)
    return types


def _is_number(t: pa.DataType) -> bool:
    return is_decimal(t) or pat.is_integer(t) or pat.is_floating(t)


def _to_float64_then_common(function: Function, types: list, promote) -> list:
    if exact_kernel(function, types) is not None:
        return types
    types = decode_dictionaries(types)
    if len(types) == 2:
        types = replace_null_with_other(types)
    types = [pa.float64() if promote(t) else t for t in types]
    common = common_numeric(types)
    return [common] * len(types) if common is not None else types


def best_decimal_to_float(function: Function, types: list) -> list:
    """ArithmeticDecimalToFloatingPointFunction (power): decimals become float64."""
    return _to_float64_then_common(function, types, is_decimal)


def best_integer_to_float(function: Function, types: list) -> list:
    """ArithmeticIntegerToFloatingPointFunction (floor, ceil, trunc): integers become float64."""
    return _to_float64_then_common(function, types, pat.is_integer)


def best_floating(function: Function, types: list) -> list:
    """ArithmeticFloatingPointFunction (sqrt, trigonometry, logarithms): integers and decimals
    become float64."""
    return _to_float64_then_common(function, types, lambda t: pat.is_integer(t) or is_decimal(t))


def best_compare(function: Function, types: list) -> list:
    """CompareFunction: dictionaries decoded; null takes the other type; decimals of
    any width meet decimals and integers as one decimal of one scale (floats as
    float64); then the common numeric, else the common temporal, else the common
    binary type."""
    types = replace_null_with_other(decode_dictionaries(types))
    if any(pat.is_decimal(t) for t in types) and all(
            pat.is_decimal(t) or pat.is_integer(t) or pat.is_floating(t) for t in types):
        return compare_decimal_operands(types)
    for common in (common_numeric, common_temporal, common_binary):
        t = common(types)
        if t is not None:
            return [t] * len(types)
    return types


def best_if_else(function: Function, types: list) -> list:
    """IfElseFunction: a null condition is boolean; the branches share one type."""
    cond = pa.bool_() if pat.is_null(types[0]) else types[0]
    values = replace_null_with_other(types[1:])
    if pat.is_dictionary(values[0]) and values[0] == values[1]:
        return [cond, *values]
    values = decode_dictionaries(values)
    for common in (common_numeric, common_temporal, common_binary):
        t = common(values)
        if t is not None:
            return [cond, t, t]
    if any(is_decimal(t) for t in values):
        values = cast_decimal_args(values)
    return [cond, *values]


def best_case_when(function: Function, types: list) -> list:
    """CaseWhenFunction: the first argument is a struct of booleans, one per case
    (plus an optional else value); the values share one type."""
    first = types[0]
    if not pat.is_struct(first):
        raise BindError(f"case_when: first argument must be STRUCT, not {first}")
    n_fields = first.num_fields
    if n_fields < len(types) - 2 or n_fields >= len(types):
        raise BindError("case_when: number of struct fields must be equal to or one less than "
                        f"count of remaining arguments ({len(types) - 1}), got: {n_fields}")
    for i in range(n_fields):
        f = first.field(i)
        if not pat.is_boolean(f.type):
            raise BindError(f"case_when: all fields of first argument must be BOOL, but {f.name} "
                            f"was of type: {f.type}")
    values = types[1:]
    if pat.is_dictionary(values[0]) and all(t == values[0] for t in values[1:]):
        return types
    values = _common_of_values(decode_dictionaries(values))
    return [first, *values]


def _common_of_values(values: list) -> list:
    for common in (common_numeric, common_binary, common_temporal):
        t = common(values)
        if t is not None:
            values = [t] * len(values)
    if any(is_decimal(t) for t in values):
        values = cast_decimal_args(values)
    return values


def best_coalesce(function: Function, types: list) -> list:
    """CoalesceFunction: dictionaries decoded, then one common type for all arguments."""
    if len(types) and pat.is_dictionary(types[0]) and all(t == types[0] for t in types[1:]):
        return types
    return _common_of_values(decode_dictionaries(types))


def best_choose(function: Function, types: list) -> list:
    """ChooseFunction: dictionaries decoded, the index cast to int64 whatever its type (a
    float or string index casts, failing on a row that is not a whole number; a date has no
    cast to int64 and is refused), one common type for the values."""
    types = decode_dictionaries(types)
    if not types:
        return types
    return [pa.int64(), *_common_of_values(types[1:])]


def best_element_wise(function: Function, types: list) -> list:
    """VarArgsCompareFunction (max/min_element_wise): dictionaries decoded, then one common
    numeric, temporal or binary type; decimals (with nothing but decimals) to one decimal."""
    types = decode_dictionaries(types)
    for common in (common_numeric, common_temporal, common_binary):
        t = common(types)
        if t is not None:
            return [t] * len(types)
    if types and all(is_decimal(t) for t in types):
        return cast_decimal_args(types)
    return types


def best_round_binary(function: Function, types: list) -> list:
    """RoundBinary: dictionaries decoded, the number of digits cast to int32 whatever its
    type (Arrow casts a string or a date there too; a value that does not parse fails
    in the cast, row by row)."""
    types = decode_dictionaries(types)
    if len(types) == 2:
        return [types[0], pa.int32()]
    return types


def best_repeat(function: Function, types: list) -> list:
    """binary_repeat: dictionaries decoded, any integer count as int64."""
    types = decode_dictionaries(types)
    if len(types) == 2 and (pat.is_integer(types[1]) or pat.is_null(types[1])):
        return [types[0], pa.int64()]
    return types


def best_decode(function: Function, types: list) -> list:
    """SetLookupFunction (is_in, index_in): a dictionary input is looked up through its values."""
    return decode_dictionaries(types)


def best_join(function: Function, types: list) -> list:
    """Beyond Arrow (which has no implicit casts here): dictionaries decoded, null takes
    the other type, then one common string/binary type, so `a || ' '` works on
    large_string columns (pandas-made tables) with a plain string separator."""
    types = decode_dictionaries(types)
    known = [t for t in types if not pat.is_null(t)]
    t = common_binary(known) if known else None
    return [t] * len(types) if t is not None else types
