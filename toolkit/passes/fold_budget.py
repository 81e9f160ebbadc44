"""What constant folding may spend: a folded value becomes a literal of the tree.

Folding runs the call's kernel now, on its literal arguments, and puts the value
into the expression: it is printed, copied by every pass, traced and exported. A
constant whose value would be huge (`binary_repeat('x', 1000000000)`, a pad to a
width of a billion) is left unfolded: evaluation computes it only if a row needs
it. The size of the functions that can grow far beyond their inputs is judged
from their arguments before running them; every other value is measured after.
"""

from __future__ import annotations

import pyarrow as pa

from ..model.options import option_values

__all__ = ["FOLD_BUDGET_BYTES", "affordable", "fits_budget"]

FOLD_BUDGET_BYTES = 1 << 20  # the largest value folding puts into a tree

_WIDTH_OPTION = ("ascii_center", "ascii_lpad", "ascii_rpad", "utf8_center", "utf8_lpad",
                 "utf8_rpad", "utf8_zero_fill")
_REPLACING = ("replace_substring", "replace_substring_regex")


def affordable(name: str, values: list, options) -> bool:
    """False when the call's result would exceed the budget, judged from its arguments;
    True when it fits or cannot grow much beyond its inputs."""
    try:
        return _estimate(name, values, options) <= FOLD_BUDGET_BYTES
    except (TypeError, ValueError, OverflowError, pa.ArrowException):
        return True  # arguments the kernel will refuse itself: folding then leaves the call


def _estimate(name: str, values: list, options) -> int:
    sizes = [_size(v) for v in values]
    if name == "binary_repeat" and len(values) == 2:
        count = values[1].as_py() if values[1].is_valid else 0
        return sizes[0] * max(0, int(count or 0))
    if name in _WIDTH_OPTION and options is not None:
        width = option_values(options).get("width") or 0
        return max(sizes[0], int(width) * 4)  # up to four bytes a padding character
    if name in _REPLACING and options is not None:
        replacement = option_values(options).get("replacement") or ""
        return sizes[0] * (len(replacement.encode("utf-8")) + 1) + len(replacement)
    return sum(sizes)


def _size(value) -> int:
    if isinstance(value, pa.Scalar):
        if not value.is_valid:
            return 0
        if pa.types.is_string(value.type) or pa.types.is_large_string(value.type) or \
                pa.types.is_binary(value.type) or pa.types.is_large_binary(value.type):
            return value.as_buffer().size
        nested = getattr(value, "values", None)  # a list's items
        return int(nested.nbytes) if isinstance(nested, pa.Array) else 16
    return int(getattr(value, "nbytes", 16))


def fits_budget(value: pa.Scalar) -> bool:
    """Whether a computed value is small enough to become a literal of the tree."""
    return _size(value) <= FOLD_BUDGET_BYTES
