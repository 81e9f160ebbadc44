"""numpy arrays whose memory comes from Arrow's pool.

The pool keeps freed memory for the next allocation: a fresh numpy array of a morsel's
size is new pages from the system, each faulted in on its first write (several times the
work of a loop that writes it once, measured on 131,072- to 1,000,000-row morsels).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["pool_array"]


def pool_array(count: int, dtype) -> np.ndarray:
    """An uninitialized array of `count` values in Arrow's memory pool (`pa.py_buffer` of
    it hands the same memory back to Arrow without a copy)."""
    dtype = np.dtype(dtype)
    buffer = pa.allocate_buffer(max(count, 1) * dtype.itemsize)
    return np.frombuffer(buffer, dtype=dtype, count=count)
