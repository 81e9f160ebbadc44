"""if_else of fixed-width values by a vectorized select equals Arrow's kernel: the same
values bit for bit (NaN payloads, -0.0), the same nulls (a null condition, a null side,
a null scalar), for every primitive width, arrays and scalars on either side, sliced
inputs at any bit offset; types it does not take go to Arrow's kernel unchanged."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.functions import select_values as sv

TYPES = [pa.int8(), pa.uint16(), pa.int32(), pa.int64(), pa.uint64(), pa.float16(),
         pa.float32(), pa.float64(), pa.date32(), pa.date64(), pa.timestamp("us", "UTC"),
         pa.duration("ns"), pa.time32("s")]


def _random(type_, n: int, rng, null_share: float) -> pa.Array:
    width = type_.bit_width // 8
    raw = rng.integers(0, 256, n * width, dtype=np.uint8)
    if pa.types.is_floating(type_):  # NaNs with payloads, -0.0, infinities among them
        words = raw.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[width])
        special = np.array([0x7FF8000000000123, 0x8000000000000000, 0x7FF0000000000000]
                           if width == 8 else [0x7FC00123, 0x80000000] if width == 4
                           else [0x7E01, 0x8000], dtype=words.dtype)
        picks = rng.random(n) < 0.2
        words[picks] = special[rng.integers(0, len(special), picks.sum())]
    if pa.types.is_time32(type_):  # a time of day: within a day's seconds
        raw = (raw.view(np.uint32) % 86400).view(np.uint8)
    if pa.types.is_date64(type_):  # whole days, in milliseconds
        raw = (raw.view(np.int64) // 86_400_000 * 86_400_000).view(np.uint8)
    valid = rng.random(n) >= null_share
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if null_share else None
    return pa.Array.from_buffers(type_, n, [bitmap, pa.py_buffer(raw.tobytes())])


def _bits(array: pa.Array) -> list:
    """Each row's value bits (None where null): floats compared as bits, not by value."""
    width = array.type.bit_width // 8
    words = np.frombuffer(array.buffers()[1], {1: np.uint8, 2: np.uint16, 4: np.uint32,
                                               8: np.uint64}[width], count=len(array),
                          offset=array.offset * width)
    valid = array.is_valid().to_pylist()
    return [int(w) if ok else None for w, ok in zip(words, valid)]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(TYPES), st.integers(sv.SELECT_MIN_ROWS, sv.SELECT_MIN_ROWS + 300),
       st.integers(0, 13), st.sampled_from([0.0, 0.1, 0.7]), st.sampled_from([0.0, 0.3]),
       st.sampled_from(["columns", "true scalar", "false scalar", "scalars",
                        "null scalar"]), st.integers(0, 2**32 - 1))
def test_the_select_is_arrows_if_else(type_, n, offset, cond_nulls, side_nulls, shape,
                                      seed):
    rng = np.random.default_rng(seed)
    cond = pa.array(rng.random(n + offset) < 0.4,
                    mask=rng.random(n + offset) < cond_nulls).slice(offset)
    a = _random(type_, n + offset, rng, side_nulls).slice(offset)
    b = _random(type_, n + 3, rng, side_nulls).slice(3)
    scalar = a[int(rng.integers(0, n))]
    left, right = {"columns": (a, b), "true scalar": (scalar, b),
                   "false scalar": (a, scalar), "scalars": (scalar, b[0]),
                   "null scalar": (a, pa.scalar(None, type_))}[shape]
    ours = sv.select_values(cond, left, right)
    assert ours is not None
    ours.validate(full=True)
    want = pc.if_else(cond, left, right)
    assert ours.type == want.type and _bits(ours) == _bits(want)


@pytest.mark.parametrize("left", [pa.array([True, False] * 3000),
                                  pa.array(["a", "b"] * 3000),
                                  pa.array([1, 2] * 3000, pa.decimal128(5, 0))])
def test_other_types_and_small_arrays_go_to_arrows_kernel(left):
    cond = pa.array([True, False, None] * 2000)
    assert sv.select_values(cond, left, left) is None
    assert sv.if_else_values(cond, left, left).equals(pc.if_else(cond, left, left))
    small = pa.array([True, None])
    assert sv.select_values(small, pa.array([1, 2]), pa.array([3, 4])) is None
