"""Arrow bitmaps as numpy reads them, and back: one bool per row, or a bitmap from bit 0.

A loop over rows reads a validity or boolean bitmap as one bool per row (numpy unpacks
the bytes holding the rows, then slices off the bits before the first); a buffer handed
to `Array.from_buffers` beside one that starts at row 0 must start at bit 0 too.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["bitmap_bools", "bitmap_from_bit_zero"]


def bitmap_bools(buffer, first: int, rows: int) -> np.ndarray:
    """A bitmap's bits `first` .. `first + rows` as one bool per row (read-only: every
    input of a compiled loop has the one type)."""
    bits = np.frombuffer(buffer, np.uint8)
    unpacked = np.unpackbits(bits[first // 8:(first + rows + 7) // 8], bitorder="little")
    unpacked.flags.writeable = False
    return unpacked[first % 8:first % 8 + rows].view(np.bool_)


def bitmap_from_bit_zero(bools: pa.Array):
    """A boolean array's values as a bitmap starting at bit 0."""
    if bools.offset:
        bools = pa.concat_arrays([pa.array([], pa.bool_()), bools])
    return bools.buffers()[1]
