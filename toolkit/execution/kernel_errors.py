"""Turning a failed kernel into a KernelError that names the node and the first bad row.

pyarrow reports "divide by zero" but not where. The first offending row is found
by bisection over slices of the kernel's own (compact) inputs: re-run the
kernel on the first half; if it fails the row is there, otherwise in the second
half. Halving each time costs about one extra pass over the inputs in total,
and no Python loop ever touches a row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyarrow as pa

from ..errors import KernelError

__all__ = ["ROW_ERRORS", "first_failing_position", "kernel_error"]

# errors that depend on row values (bad values, overflow, division by zero, a choose
# index out of range)
ROW_ERRORS = (pa.ArrowInvalid, pa.ArrowIndexError)


def _slice_args(args: Sequence, start: int, stop: int) -> list:
    return [a if isinstance(a, pa.Scalar) else a.slice(start, stop - start) for a in args]


def _fails(run: Callable, args: Sequence, start: int, stop: int) -> bool:
    try:
        run(_slice_args(args, start, stop))
    except ROW_ERRORS:
        return True
    return False


def first_failing_position(run: Callable, args: Sequence) -> int | None:
    """The smallest position whose row makes `run(args)` fail, or None if no single row does.

    `args` are the kernel's inputs: arrays of one common length and scalars. The
    search assumes a failure in a range shows up in the half that holds it,
    which holds for per-row errors; the final single row is re-checked.
    """
    lengths = {len(a) for a in args if not isinstance(a, pa.Scalar)}
    if len(lengths) != 1:
        return None
    lo, hi = 0, lengths.pop()
    if hi == 0:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fails(run, args, lo, mid):
            hi = mid
        elif _fails(run, args, mid, hi):
            lo = mid
        else:  # the error needs rows from both halves: not a per-row error
            return None
    return lo if _fails(run, args, lo, hi) else None


def kernel_error(exc: Exception, node, path, row: int | None) -> KernelError:
    """A KernelError for `node` (its to_string is in the message) with the original cause."""
    name = getattr(node, "name", None) or node.kind
    message = f"{name} failed: {exc}"
    return KernelError(message, node=node, path=path, row=row, cause=exc)
