"""Rounding: round (to ndigits, with a rounding mode), floor, ceil, trunc.

round keeps the input type (integers too); floor, ceil and trunc work on
floating point and decimals, integers are computed as float64 (Arrow's
ArithmeticIntegerToFloatingPointFunction). Decimal rounding fails when the
rounded value no longer fits the precision, hence `can_fail`; it fails whichever rows
follow the failing one (`decimal_rounding`: pyarrow's kernel may return 0 instead).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat

from .decimal_rounding import checked_decimal_rounding
from .dispatch import best_arithmetic, best_integer_to_float
from .function import Kernel
from .registry import definer
from .types import FLOATS, NUMERIC, exact, fixed, of_kind, same_as

define = definer("math")

__all__: list[str] = []

_DECIMALS = [of_kind("decimal128", pat.is_decimal128), of_kind("decimal256", pat.is_decimal256)]


def _kernels(name: str, types) -> list[Kernel]:
    kernels = [Kernel(name, (exact(t),), same_as(0, str(t))) for t in types]
    kernels += [Kernel(name, (p,), same_as(0)) for p in _DECIMALS]
    kernels.append(Kernel(name, (exact(pa.null()),), fixed(pa.null())))
    return kernels


define("round", _kernels("round", NUMERIC),
       "Round to ndigits decimal places with the given rounding mode (half to even by default).",
       options_class=pc.RoundOptions, default_options=pc.RoundOptions(),
       dispatch_best=best_arithmetic, can_fail=True, execute=checked_decimal_rounding)
for _name, _doc in [("floor", "Round down to the nearest integer."),
                    ("ceil", "Round up to the nearest integer."),
                    ("trunc", "The integral part (round towards zero).")]:
    define(_name, _kernels(_name, FLOATS), _doc, dispatch_best=best_integer_to_float,
           can_fail=True,  # decimals that no longer fit their precision
           execute=checked_decimal_rounding)
del _name, _doc
