"""Rebuilding a bound call with new arguments, rebinding only when the kernel no longer fits.

Arrow's HandleInconsistentTypes (ARROW-18334): reordering `ts + duration` into
`duration + ts` leaves a kernel whose signature no longer matches, so the call is
bound again without implicit casts. When the kernel still matches, the copy keeps
kernel and type (docs/semantics.md §6), which is cheaper and keeps equality with the original.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..functions.bind import bind_call
from ..model.expression import Call, Expression

__all__ = ["bind_new_call", "with_args_rebound"]


def with_args_rebound(call: Call, args: Sequence[Expression]) -> Call:
    """`call` with `args`, rebound without casts if its kernel does not accept them."""
    kernel = call.kernel
    if kernel is not None and kernel.matches([a.type for a in args]):
        return call.with_args(args)
    return bind_call(Call(call.name, args, call.options), insert_implicit_casts=False)


def bind_new_call(name: str, args: Sequence[Expression], options=None) -> Call:
    """A new call over bound arguments, bound exactly (no implicit casts), as the passes need."""
    return bind_call(Call(name, args, options), insert_implicit_casts=False)
