"""Comparisons as bitmasks (Arrow's `Comparison`): EQUAL=1, LESS=2, GREATER=4.

`x <= 5` is LESS|EQUAL, `x != 5` is LESS|GREATER. With that encoding "does the
guarantee imply the filter" becomes bit arithmetic (see inequality.py). Also here:
the flip used by canonicalize, the comparison of two scalars, and the stripping of
casts that keep order (an int widened to a float compares like the int).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat

from ..model.expression import Expression
from .errors import GuaranteeError

__all__ = [
    "BITS",
    "EQUAL",
    "GREATER",
    "LESS",
    "NAMES",
    "SYMBOLS",
    "compare_scalars",
    "flipped",
    "strip_order_preserving_casts",
]

EQUAL, LESS, GREATER = 1, 2, 4

BITS = {
    "equal": EQUAL,
    "not_equal": LESS | GREATER,
    "less": LESS,
    "less_equal": LESS | EQUAL,
    "greater": GREATER,
    "greater_equal": GREATER | EQUAL,
}
NAMES = {bits: name for name, bits in BITS.items()}
SYMBOLS = {EQUAL: "==", LESS | GREATER: "!=", LESS: "<", LESS | EQUAL: "<=", GREATER: ">",
           GREATER | EQUAL: ">="}


def flipped(bits: int) -> int:
    """The comparison with its sides swapped: less becomes greater, equal stays."""
    return (bits & EQUAL) | ((bits & LESS) << 1) | ((bits & GREATER) >> 1)


def compare_scalars(left: pa.Scalar, right: pa.Scalar) -> int | None:
    """EQUAL, LESS or GREATER for two scalars; None when either is null (Arrow's NA)."""
    try:
        equal = pc.equal(left, right)
        if not equal.is_valid:
            return None
        if equal.as_py():
            return EQUAL
        less = pc.less(left, right)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise GuaranteeError(
            f"cannot compare {left} ({left.type}) with the guarantee's {right} ({right.type}): "
            f"{exc}") from exc
    if not less.is_valid:
        return None
    return LESS if less.as_py() else GREATER


def strip_order_preserving_casts(expr: Expression) -> Expression:
    """Unwrap casts that keep the order of values (Arrow's StripOrderPreservingCasts)."""
    while expr.is_call and expr.name == "cast" and expr.args:
        source = expr.args[0].type
        target = expr.type
        if source is None or target is None or not _keeps_order(source, target):
            break
        expr = expr.args[0]
    return expr


def _keeps_order(source: pa.DataType, target: pa.DataType) -> bool:
    if pat.is_floating(target):
        return pat.is_integer(source) or pat.is_floating(source)
    if pat.is_unsigned_integer(target):
        return pat.is_unsigned_integer(source) and target.bit_width >= source.bit_width
    if pat.is_signed_integer(target):
        return pat.is_integer(source) and target.bit_width >= source.bit_width
    return False
