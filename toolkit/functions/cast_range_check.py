"""Safe integer casts whose range check one min and max settle.

A safe cast from an integer type checks every valid value against a range:
to a float type, that the integer is exactly representable (|v| <= 2**53 for
double, 2**24 for float, Arrow's `CheckForIntegerToFloatingTruncation`); to a
narrower integer type, that it fits (`IntegersCanFit`). The conversion itself
is the unchecked one either way. Arrow's per-value check costs more than the
conversion, while a vectorized min and max over the values buffer cost a fraction of
either (docs/benchmarks.md, "Figures the code relies on").

So: when the min and max of the raw values buffer lie in the range, run the
same cast with the check turned off; the result is identical. The buffer is
read without its validity bitmap, so a null slot holding an out-of-range value
only sends the cast down Arrow's checked path, which ignores null slots and
raises its own error for a valid value out of range. Nothing else changes:
floats, decimals, temporal types and casts with the check already off run as
before.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..support.bounded_cache import ObjectCache

__all__ = ["RANGE_CHECK_MIN_ROWS", "checked_range", "unchecked_options", "values_in_range"]

RANGE_CHECK_MIN_ROWS = 4096  # below this the extra kernel call costs what it saves

_FLOAT_EXACT = {pa.float32(): 1 << 24, pa.float64(): 1 << 53}  # Arrow's FloatingIntegerBound
_OPTION_NAMES = ("allow_int_overflow", "allow_time_truncate", "allow_time_overflow",
                 "allow_decimal_truncate", "allow_float_truncate", "allow_invalid_utf8")


def checked_range(source: pa.DataType, target: pa.DataType, options) -> tuple[int, int, str] | None:
    """(low, high, the CastOptions flag that turns the check off), if this cast checks a range.

    None when the cast checks no integer range, or when the check is already off.
    """
    if not pa.types.is_integer(source):
        return None
    if target in _FLOAT_EXACT:
        if options.allow_float_truncate:
            return None
        limit = _FLOAT_EXACT[target]
        low, high, flag = (-limit if pa.types.is_signed_integer(source) else 0), limit, \
            "allow_float_truncate"
    elif pa.types.is_integer(target):
        if options.allow_int_overflow:
            return None
        (low, high), flag = _integer_range(target), "allow_int_overflow"
    else:
        return None
    source_low, source_high = _integer_range(source)
    if low <= source_low and source_high <= high:
        return None  # every value of the source type fits: Arrow checks nothing
    return low, high, flag


def values_in_range(array: pa.Array, low: int, high: int) -> bool:
    """Whether every value in the array's values buffer, null slots included, is in [low, high]."""
    if len(array) == 0:
        return True
    # numpy's min and max over a view of the buffer: cheaper than Arrow's min_max on small
    # arrays (its fixed cost), and no slower on large ones
    values = np.frombuffer(array.buffers()[1], dtype=array.type.to_pandas_dtype(),
                           count=len(array), offset=array.offset * array.type.byte_width)
    return int(values.min()) >= low and int(values.max()) <= high


def unchecked_options(options: pc.CastOptions, target: pa.DataType, flag: str) -> pc.CastOptions:
    """The same cast options with one check turned off (remembered per options object)."""
    hit = _UNCHECKED.get(options, flag)
    if hit is not None:
        return hit
    flags = {name: getattr(options, name) for name in _OPTION_NAMES}
    flags[flag] = True
    unchecked = pc.CastOptions(target, **flags)
    return _UNCHECKED.put(options, unchecked, flag)


_UNCHECKED = ObjectCache(1024)  # (options object, flag) -> the options with that check off


def _integer_range(type_: pa.DataType) -> tuple[int, int]:
    bits = type_.bit_width
    if pa.types.is_signed_integer(type_):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1
