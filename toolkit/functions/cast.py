"""cast: convert to the type named in CastOptions (`to_type`).

Arrow replaces `cast` by a per-target CastFunction at bind time; here one kernel
accepts any input, and binding checks that pyarrow can cast from the input type
to the target (the same check Arrow's dispatch makes). A safe cast fails per row
on overflow, truncation or invalid values, hence `can_fail`. Safe integer casts
take a faster, identical path where one min/max settles their range check
(`cast_range_check.py`).
"""

from __future__ import annotations

import functools

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import BindError, NoKernelError
from ..model.options import cast_target
from ..support.bounded_cache import ObjectCache
from .cast_range_check import (
    RANGE_CHECK_MIN_ROWS,
    checked_range,
    unchecked_options,
    values_in_range,
)
from .function import Kernel
from .registry import definer
from .types import ANY, computed

define = definer("cast")

__all__ = ["can_cast", "cast_can_fail", "cast_options_target", "safe_cast_options"]

# Reading `to_type` out of CastOptions costs a serialization; binding a
# deep tree reads the same options objects again and again, so the target is
# remembered per options object (kept alive here, so its id cannot be reused).
_TARGETS = ObjectCache(4096)  # options object -> its target type


def cast_options_target(options: pc.CastOptions) -> pa.DataType:
    hit = _TARGETS.get(options)
    if hit is not None:
        return hit
    try:
        target = cast_target(options)
    except pa.ArrowInvalid:  # CastOptions() without a target cannot even be serialized
        raise BindError("Cast requires that options be passed with the to_type populated") from None
    return _TARGETS.put(options, target)


@functools.lru_cache(maxsize=1024)
def safe_cast_options(target: pa.DataType) -> pc.CastOptions:
    """The (shared, immutable) CastOptions.safe(target) of implicit casts."""
    options = pc.CastOptions.safe(target)
    _TARGETS.put(options, target)
    return options


@functools.lru_cache(maxsize=1024)
def can_cast(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether pyarrow has a cast from `source` to `target` (tried on an empty array)."""
    if source == target:
        return True
    try:
        pa.nulls(0, source).cast(target, safe=False)
        return True
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return False


def _target(types, options) -> pa.DataType:
    if options is None or not isinstance(options, pc.CastOptions):
        raise BindError("Cast requires that options be passed with the to_type populated")
    return cast_options_target(options)


def _init(function, kernel, types, options) -> None:
    target = _target(types, options)
    if not can_cast(types[0], target):
        raise NoKernelError(f"Unsupported cast from {types[0]} to {target} (no kernel for cast)",
                            function="cast", types=types)


def cast_can_fail(call) -> bool:
    """Whether this bound cast can fail on some value, from its types and options alone.

    A safe cast checks only what can be lost: an integer that does not fit the target
    (`checked_range`: an int64 beyond 2**53 is not exactly a double, so int64 -> double
    CAN fail), a float truncated to an integer, a string that does not parse. Casts
    that lose nothing for any value of the source type cannot: the same type, a null,
    a wider integer or float, an integer that every value of fits the float's mantissa
    (int32 -> double), a decimal made a float (Arrow rounds it, checking nothing: the
    decimal columns of TPC-H compared with `0.05`), a number or boolean written as a string.
    """
    source, target = call.args[0].type, call.type
    if source is None or target is None:
        return True
    if source == target or pa.types.is_null(source):
        return False
    if pa.types.is_integer(source) and (pa.types.is_integer(target)
                                        or pa.types.is_floating(target)):
        return checked_range(source, target, call.options) is not None
    if pa.types.is_floating(source) and pa.types.is_floating(target):
        return target.bit_width < source.bit_width and not call.options.allow_float_truncate
    if pa.types.is_boolean(source):
        return not (pa.types.is_integer(target) or pa.types.is_floating(target)
                    or _is_text(target))
    if pa.types.is_integer(source) or pa.types.is_floating(source):
        return not _is_text(target)
    if pa.types.is_decimal(source) and pa.types.is_floating(target):
        return False  # rounded to the nearest float, never checked (past float32's range: inf)
    return True


def _is_text(type_: pa.DataType) -> bool:
    return pa.types.is_string(type_) or pa.types.is_large_string(type_)


def _execute(function, args, options, kernel):
    """pyarrow's cast; a safe integer cast whose range min/max settle skips the per-value check."""
    value = args[0]
    if isinstance(value, pa.Array) and len(value) >= RANGE_CHECK_MIN_ROWS:
        target = cast_options_target(options)
        checked = checked_range(value.type, target, options)
        if checked is not None and values_in_range(value, checked[0], checked[1]):
            options = unchecked_options(options, target, checked[2])
    return _CAST.call(args, options)


_CAST = pc.get_function("cast")

define("cast", [Kernel("cast", (ANY,), computed("options.to_type", lambda ts, o: _target(ts, o)))],
       "Convert the argument to the type in CastOptions; a safe cast fails on lost values.",
       options_class=pc.CastOptions, can_fail=True, can_fail_for=cast_can_fail, init=_init,
       options_required=True, execute=_execute)
