"""The loops of `number_compare`: a comparison of fixed-width numbers, 64 rows a word.

Each word of the result bitmap is made from 64 rows compared in a row of selects LLVM
vectorizes (a comparison per lane, the lanes' bits gathered into the word), and stored
once: no byte per row written and packed after. Row `r` goes to bit `base + r`, so the
result can share its input's validity bitmap from the same bit. The words that hold
row 0 or the last row (bits outside the rows set to 0) take a loop that checks every
bit's row. numba compiles one loop per type of the values (integers, floats, and the
temporal types as the integers they are), its machine code cached on disk.

`op` is the comparison: EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL.
Floats compare as IEEE 754 does, as Arrow's kernels do: NaN equals nothing, is unequal
to everything, and is neither less nor greater than any value; -0.0 equals 0.0.
"""

from __future__ import annotations

import numba
import numpy as np

from .cached_loops import compiled as _compiled

__all__ = ["EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "NOT_EQUAL",
           "column_column", "column_value"]

EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL = range(6)


@numba.njit(nogil=True, inline="always", cache=True)
def _holds(op, x, y):
    if op == EQUAL:
        return x == y
    if op == NOT_EQUAL:
        return x != y
    if op == LESS:
        return x < y
    if op == LESS_EQUAL:
        return x <= y
    if op == GREATER:
        return x > y
    return x >= y


@_compiled
def column_value(op, x, value, base, out):
    """Bit `base + r` of the words `out`: row r of `x` compared with `value`."""
    n = x.shape[0]
    total = base + n
    whole_from = 1 if base else 0  # the first word whose 64 bits are all rows
    whole_to = total // 64  # the words before it are whole at the end
    for j in (0, whole_to):  # the words holding row 0 and the last row
        if j >= whole_from and j < whole_to or j * 64 >= total:
            continue
        word = np.uint64(0)
        for bit in range(64):
            r = j * 64 + bit - base
            if 0 <= r < n and _holds(op, x[r], value):
                word |= np.uint64(1) << np.uint64(bit)
        out[j] = word
    for j in range(whole_from, whole_to):
        start = j * 64 - base
        rows = x[start:start + 64]
        word = np.uint64(0)
        for bit in range(64):
            word |= np.uint64(_holds(op, rows[bit], value)) << np.uint64(bit)
        out[j] = word


@_compiled
def column_column(op, x, y, base, out):
    """Bit `base + r` of the words `out`: row r of `x` compared with row r of `y`."""
    n = x.shape[0]
    total = base + n
    whole_from = 1 if base else 0
    whole_to = total // 64
    for j in (0, whole_to):
        if j >= whole_from and j < whole_to or j * 64 >= total:
            continue
        word = np.uint64(0)
        for bit in range(64):
            r = j * 64 + bit - base
            if 0 <= r < n and _holds(op, x[r], y[r]):
                word |= np.uint64(1) << np.uint64(bit)
        out[j] = word
    for j in range(whole_from, whole_to):
        start = j * 64 - base
        left = x[start:start + 64]
        right = y[start:start + 64]
        word = np.uint64(0)
        for bit in range(64):
            word |= np.uint64(_holds(op, left[bit], right[bit])) << np.uint64(bit)
        out[j] = word
