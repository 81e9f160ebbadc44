"""Decimal rounding that no longer fits its type fails, whichever rows follow it.

Arrow's decimal kernels of `round`, `round_binary`, `round_to_multiple`, `ceil`, `floor`
and `trunc` keep the input's type, so a value whose rounding carries into one more
digit (99999999.99 as decimal128(10, 2) rounded to 0 digits is 100000000) does not fit,
and the kernel means to fail: "Rounded value 100000000.00 does not fit in precision of
decimal128(10, 2)". But each row's division overwrites the kernel's status, so a
failing row followed by any row that rounds comes out as 0 and the call succeeds
(pyarrow 26; `round_binary` loses its "Rounding to n digits will not fit" the same
way). Whether pyarrow raises depends on which rows follow: exprscope raises for the row
whatever follows it, so a batch, a slice and one row (a row's story) agree.

The rows pyarrow gave 0 are checked after its kernel. A correct 0 needs |x| below the
rounding step, and the step is at most 10^(p-s-1) (a `round` to fewer digits than that
is Arrow's own error for every row); a row that overflowed has |x| > 10^(p-s) - step >=
9 * 10^(p-s-1). So a 0 where |x| >= 10^(p-s-1) is a lost error. For `round_to_multiple`
the bound is the multiple: a correct 0 needs |x| below it, an overflow (a multiple past
10^(p-s), so at least twice the multiple) needs |x| at least the multiple.
"""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

from ..model.options import option_scalars, option_values
from .function import call_pyarrow

__all__ = ["checked_decimal_rounding"]

def checked_decimal_rounding(function, args, options, kernel):
    """pyarrow's kernel, then an error for the first decimal row it silently gave 0."""
    result = call_pyarrow(function, args, options, kernel)
    value = args[0]
    if not pa.types.is_decimal(value.type) or isinstance(result, pa.Scalar):
        return result  # one value: pyarrow's own status stands
    zero = pc.equal(result, pa.scalar(Decimal(0), result.type))
    if not pc.any(zero).as_py():
        return result
    failing = _lost_errors(function.name, value, args, options, zero)
    if failing is not None and pc.any(failing).as_py():
        position = pc.index(failing, True).as_py()
        raise pa.ArrowInvalid(_message(function, args, options, kernel, position))
    return result


def _lost_errors(name, value, args, options, zero):
    """The rows whose 0 is a lost error (a boolean mask), or None when none can be."""
    t = value.type
    precision, scale = t.precision, t.scale
    if name == "round_to_multiple":
        # Arrow casts the multiple to the value's type (safely) before any row runs
        multiple = option_scalars(options)["multiple"] if options is not None \
            else pa.scalar(1.0)
        bound = pc.cast(multiple, t)
    else:
        digits = _digits(name, args, options)
        if isinstance(digits, int) and not 0 < scale - digits < precision:
            return None  # no rounding (pow <= 0), or Arrow's error on every row
        bound = pa.scalar(Decimal(10) ** (precision - scale - 1), t)
    failing = pc.and_(zero, pc.greater_equal(pc.abs(value), bound))
    if name == "round_binary":
        # "Rounding to n digits will not fit": every valid value, lost as an overflow is
        failing = pc.or_(failing, pc.and_(zero, pc.less_equal(args[1], scale - precision)))
    return pc.fill_null(failing, False)


def _digits(name, args, options):
    """The digits rounded to: an int, or round_binary's argument (an array or scalar)."""
    if name == "round":
        return option_values(options)["ndigits"] if options is not None else 0
    if name == "round_binary":
        digits = args[1]
        return digits.as_py() if isinstance(digits, pa.Scalar) and digits.is_valid else digits
    return 0  # ceil, floor, trunc


def _row(value, position: int):
    return value if isinstance(value, pa.Scalar) else value[position]


def _message(function, args, options, kernel, position: int) -> str:
    """Arrow's words for the row at `position`, with the value it should have rounded to
    (computed one digit wider) and how to make room for it."""
    value = _row(args[0], position)
    t = value.type
    if function.name == "round_binary":
        digits = _row(args[1], position).as_py()
        if t.scale - digits >= t.precision:
            return f"Rounding to {digits} digits will not fit in precision of {t}"
    wider = _wider(t)
    if wider is None:
        return f"A rounded value of {value.as_py()} does not fit in precision of {t}"
    row_args = [pc.cast(value, wider)] + [_row(a, position) for a in args[1:]]
    rounded = call_pyarrow(function, row_args, options, kernel)
    return (f"Rounded value {rounded.as_py()} does not fit in precision of {t} "
            f"(cast the value to {wider} first to leave room for the carried digit)")


def _wider(t: pa.DataType) -> pa.DataType | None:
    """The decimal with one more digit of precision and the same scale, or None."""
    if pa.types.is_decimal128(t) and t.precision < 38:
        return pa.decimal128(t.precision + 1, t.scale)
    if t.precision < 76:
        return pa.decimal256(t.precision + 1, t.scale)
    return None
