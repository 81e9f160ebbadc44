"""cast: convert to the type named in CastOptions (`to_type`).

Arrow replaces `cast` by a per-target CastFunction at bind time; here one kernel
accepts any input, and binding checks that pyarrow can cast from the input type
to the target (the same check Arrow's dispatch makes). A safe cast fails per row
on overflow, truncation or invalid values, hence `can_fail`.
"""

from __future__ import annotations

import functools

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import BindError, NoKernelError
from ..options import cast_target
from .function import Kernel
from .registry import define
from .types import ANY, computed

__all__ = ["can_cast"]


@functools.lru_cache(maxsize=1024)
def can_cast(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether pyarrow has a cast from `source` to `target` (tried on an empty array)."""
    if source == target:
        return True
    try:
        pa.array([], type=source).cast(target, safe=False)
        return True
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return False


def _target(types, options) -> pa.DataType:
    if options is None or not isinstance(options, pc.CastOptions):
        raise BindError("Cast requires that options be passed with the to_type populated")
    try:
        return cast_target(options)
    except pa.ArrowInvalid:  # CastOptions() without a target cannot even be serialized
        raise BindError("Cast requires that options be passed with the to_type populated") from None


def _init(function, kernel, types, options) -> None:
    target = _target(types, options)
    if not can_cast(types[0], target):
        raise NoKernelError(f"Unsupported cast from {types[0]} to {target} (no kernel for cast)",
                            function="cast", types=types)


define("cast", [Kernel("cast", (ANY,), computed("options.to_type", lambda ts, o: _target(ts, o)))],
       "Convert the argument to the type in CastOptions; a safe cast fails on lost values.",
       options_class=pc.CastOptions, can_fail=True, init=_init, options_required=True)
