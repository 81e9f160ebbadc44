"""Merging a special form's compact branches by writing each one's values at its rows.

For fixed-width results (integers, floats, temporal types) the branches' values
are written at their rows of one fresh buffer with numpy's indexed assignment:
each value is written once. Arrow has no kernel for that; through Arrow the
merge takes three passes (the inverse permutation of every branch's positions,
a concatenation of the values, a `take` through the permutation). When the
branches cover the whole domain, the one-value branch covering the most rows
(a case_when's `else 0.0`) is written first, as the fill, and needs no row
positions at all: the mask-to-positions filter it would take is skipped.

Measured on a 131,072-row morsel of a 20-case case_when whose values are
compact: the merge took 533 us through Arrow (140 permutation, 28 concatenation,
365 take) and 150 us here, plus the 129 us filter of the `else` rows saved.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["placeable", "write_parts"]

_WIDTHS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def placeable(out_type: pa.DataType) -> bool:
    """Whether values of this type are one fixed-width values buffer numpy can write."""
    return (pa.types.is_integer(out_type) or pa.types.is_floating(out_type)
            or pa.types.is_temporal(out_type)) and out_type.bit_width in (8, 16, 32, 64)


def write_parts(domain: int, parts: list, out_type: pa.DataType) -> pa.Array:
    """One `domain`-row array of `out_type` from `parts`, a list of `(rows, value)`: `rows` a
    SelectionVector (disjoint across parts), `value` compact over them (or one scalar).

    Rows no part covers are null. The list is consumed, so each branch's arrays can go
    as soon as they are written.
    """
    given = parts
    parts = [(rows, value) for rows, value in given if rows.count]
    given.clear()
    width = out_type.bit_width // 8
    dtype = _WIDTHS[width]
    buffer = pa.allocate_buffer(domain * width, resizable=False)
    out = np.ndarray((domain,), dtype=dtype, buffer=buffer)
    covered = sum(rows.count for rows, _ in parts) == domain
    valid = None if covered else np.zeros(domain, dtype=bool)  # one bool per row, once needed
    fill = None
    if covered:
        scalars = [p for p in parts if isinstance(p[1], pa.Scalar)]
        fill = max(scalars, key=lambda p: p[0].count, default=None)
    if fill is not None:
        if fill[1].is_valid:
            out[:] = _bits(fill[1], out_type, dtype)
        else:
            out[:] = 0
            valid = np.zeros(domain, dtype=bool)
    else:
        out[:] = 0  # rows no part covers: null, and no stray memory behind them
    for part in parts:
        if part is fill:
            continue
        rows, value = part
        positions = rows.indices.to_numpy()
        if isinstance(value, pa.Scalar):
            if value.is_valid:
                out[positions] = _bits(value, out_type, dtype)
                if valid is not None:
                    valid[positions] = True
            else:
                if valid is None:
                    valid = np.ones(domain, dtype=bool)
                valid[positions] = False
            continue
        if value.type != out_type:
            value = value.cast(out_type)
        out[positions] = _values(value, dtype)
        if value.null_count:
            if valid is None:  # every row written so far was valid, and the parts cover all
                valid = np.ones(domain, dtype=bool)
            valid[positions] = value.is_valid().to_numpy(zero_copy_only=False)
        elif valid is not None:
            valid[positions] = True
    bitmap = None
    if valid is not None and not valid.all():
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(out_type, domain, [bitmap, buffer])


def _values(array: pa.Array, dtype) -> np.ndarray:
    """The values buffer of a fixed-width array as numpy (null slots hold any value)."""
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array),
                         offset=array.offset * np.dtype(dtype).itemsize)


def _bits(value: pa.Scalar, out_type: pa.DataType, dtype):
    """A valid scalar's value as the unsigned integer holding its bits."""
    if value.type != out_type:
        value = value.cast(out_type)
    return _values(pa.repeat(value, 1), dtype)[0]
