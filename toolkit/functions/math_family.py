"""Math beyond the four operations: trigonometry, logarithms, bits, modulo, rounding, extremes.

Signatures come from pyarrow's registry (`derive`); this module says what Arrow
decides for these functions. Trigonometry and logarithms compute in floating
point (integers and decimals become float64); bit operations, shifts, modulo
and remainder unify their operands as arithmetic does; the element-wise extremes
unify all arguments as comparisons do. Only the `_checked` forms, integer
modulo and remainder (zero divisor), integer and decimal rounding to a multiple
(overflow) and the decimal extremes can fail on a row.
"""

from __future__ import annotations

import pyarrow as pa

from . import arithmetic, rounding  # noqa: F401  (the hand-written functions register first)
from .decimal_rounding import checked_decimal_rounding
from .derive import Family, define_family, first_type
from .dispatch import best_arithmetic, best_element_wise, best_floating, best_round_binary
from .function import NullHandling, call_pyarrow

__all__ = ["MATH_NAMES"]

_FLOATING = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
             "acosh", "atanh", "log10", "log2", "log1p", "expm1", "atan2", "logb", "hypot"]
_FLOATING += [f"{n}_checked" for n in _FLOATING] + ["ln_checked"]
_INTEGER_LIKE = ["bit_wise_and", "bit_wise_or", "bit_wise_xor", "bit_wise_not", "shift_left",
                 "shift_right", "shift_left_checked", "shift_right_checked", "modulo",
                 "modulo_checked", "remainder", "remainder_checked"]
_EXTREMES = ["max_element_wise", "min_element_wise"]
_PREDICATES = ["is_finite", "is_inf"]


def _floats_only(inputs) -> bool:
    return all(any(i.accepts(t) for t in (pa.float32(), pa.float64(), pa.null()))
               for i in inputs)


def _can_fail(name: str, inputs) -> bool:
    if name.endswith("_checked"):
        return True
    if name in ("modulo", "remainder"):
        return not _floats_only(inputs)  # a zero divisor; floats give NaN
    if name in ("round_to_multiple", "round_binary"):
        return not _floats_only(inputs[:1])  # integers and decimals overflow; floats do not
    return False


def _decimal_keeps_type(name: str, inputs) -> object:
    return first_type(name, inputs) if name in ("round_to_multiple", "round_binary",
                                                "max_element_wise", "min_element_wise") else None


def _null_handling(name: str) -> NullHandling:
    return NullHandling.COMPUTED if name in _EXTREMES else NullHandling.INTERSECTION


def _extremes(function, args, options, kernel):
    """Arrow's element-wise extremes read a fixed_size_binary array from its buffer's start,
    not from its offset (a slice, a later batch of a chunk: [b"abc"] sliced from
    [null, null, b"abc"] came back as zeros), so such an array is given re-based."""
    args = [pa.concat_arrays([a]) if isinstance(a, pa.Array) and a.offset
            and pa.types.is_fixed_size_binary(a.type) else a for a in args]
    return call_pyarrow(function, args, options, kernel)


_ARITHMETIC = Family("math", best_arithmetic, _null_handling, _can_fail, _decimal_keeps_type)

MATH_NAMES = (define_family(Family("math", best_floating, _null_handling, _can_fail), _FLOATING)
              + define_family(_ARITHMETIC, _INTEGER_LIKE)
              + define_family(Family("math", best_arithmetic, _null_handling, _can_fail,
                                     _decimal_keeps_type, checked_decimal_rounding),
                              ["round_to_multiple"])
              + define_family(Family("math", None, _null_handling, _can_fail), _PREDICATES)
              + define_family(Family("math", best_round_binary, _null_handling, _can_fail,
                                     _decimal_keeps_type, checked_decimal_rounding),
                              ["round_binary"])
              + define_family(Family("math", best_element_wise, _null_handling, _can_fail,
                                     _decimal_keeps_type, _extremes), _EXTREMES))
