"""Merging a special form's compact branches by writing each one's values at its rows.

For fixed-width results (integers, floats, temporal types) the branches' values
are written at their rows of one fresh buffer with numpy's indexed assignment:
each value is written once. Arrow has no kernel for that; through Arrow the
merge takes three passes (the inverse permutation of every branch's positions,
a concatenation of the values, a `take` through the permutation). When the
branches cover the whole domain, the branch covering the most rows that is one
value (a case_when's `else 0.0`) or was computed on every row (a column) is
copied first, as the fill, and needs no row positions at all: the
mask-to-positions filter it would take is skipped.
Writing in place is several times faster than the merge through Arrow (a
permutation, a concatenation and a take).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .value_type import as_type

__all__ = ["placeable", "write_parts"]

_WIDTHS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def placeable(out_type: pa.DataType) -> bool:
    """Whether values of this type are one fixed-width values buffer numpy can write."""
    return (pa.types.is_integer(out_type) or pa.types.is_floating(out_type)
            or pa.types.is_temporal(out_type)) and out_type.bit_width in (8, 16, 32, 64)


def write_parts(domain: int, parts: list, out_type: pa.DataType) -> pa.Array:
    """One `domain`-row array of `out_type` from `parts`, a list of `(rows, value, is_full)`:
    `rows` a SelectionVector (disjoint across parts); `value` one scalar, or an array
    compact over the rows, or, when `is_full`, over the whole domain (a branch that ran
    on every row: only its `rows` are used).

    Rows no part covers are null. The list is consumed, so each branch's arrays can go
    as soon as they are written.
    """
    given = parts
    parts = [(rows, as_type(value, out_type), full) for rows, value, full in given
             if rows.count]
    given.clear()
    width = out_type.bit_width // 8
    dtype = _WIDTHS[width]
    buffer = pa.allocate_buffer(domain * width, resizable=False)
    out = np.ndarray((domain,), dtype=dtype, buffer=buffer)
    covered = sum(rows.count for rows, _, _ in parts) == domain
    # the base every other part is written over: a one-value or whole-domain part covering
    # the most rows, read without its rows' positions (only when the parts cover the domain)
    fill = None
    if covered:
        fill = max((p for p in parts if isinstance(p[1], pa.Scalar) or p[2]),
                   key=lambda p: p[0].count, default=None)
    valid = None if covered else np.zeros(domain, dtype=bool)  # one bool per row, once needed
    if fill is None:
        out[:] = 0  # rows no part covers: null, and no stray memory behind them
    elif isinstance(fill[1], pa.Scalar):
        out[:] = _bits(fill[1], dtype) if fill[1].is_valid else 0
        if not fill[1].is_valid:
            valid = np.zeros(domain, dtype=bool)
    else:
        out[:] = _values(fill[1], dtype)
        if fill[1].null_count:
            valid = _validity(fill[1])
    for part in parts:
        if part is fill:
            continue
        rows, value, full = part
        positions = rows.indices.to_numpy()
        if isinstance(value, pa.Scalar):
            if value.is_valid:
                out[positions] = _bits(value, dtype)
                if valid is not None:
                    valid[positions] = True
            else:
                if valid is None:
                    valid = np.ones(domain, dtype=bool)
                valid[positions] = False
            continue
        values = _values(value, dtype)
        out[positions] = values[positions] if full else values
        if value.null_count:
            if valid is None:  # every row written so far was valid, and the parts cover all
                valid = np.ones(domain, dtype=bool)
            flags = _validity(value)
            valid[positions] = flags[positions] if full else flags
        elif valid is not None:
            valid[positions] = True
    bitmap = None
    if valid is not None and not valid.all():
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(out_type, domain, [bitmap, buffer])


def _validity(array: pa.Array) -> np.ndarray:
    """One bool per row of an array with nulls, writable."""
    return np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool).copy()


def _values(array: pa.Array, dtype) -> np.ndarray:
    """The values buffer of a fixed-width array as numpy (null slots hold any value)."""
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array),
                         offset=array.offset * np.dtype(dtype).itemsize)


def _bits(value: pa.Scalar, dtype):
    """A valid scalar's value (already of the result type) as the unsigned integer of its bits."""
    return _values(pa.repeat(value, 1), dtype)[0]
