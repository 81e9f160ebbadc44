"""The six comparisons of fixed-width numbers by exprscope's loop equal Arrow's kernels:
every integer and float width and the temporal types, a value on either side or two
columns, nulls on either side, arrays sliced at any offset (the result sharing a
column's validity from its bit), chunked arrays, NaN, -0.0 and infinities; what the
loop does not take goes to Arrow's kernel unchanged; and evaluation runs it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.functions import number_compare as nc
from toolkit.functions import registry

NAMES = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(),
         pa.uint32(), pa.uint64(), pa.float32(), pa.float64(), pa.date32(), pa.date64(),
         pa.time32("ms"), pa.time64("ns"), pa.timestamp("us"), pa.timestamp("s", "UTC"),
         pa.duration("ms")]


def _numbers(type_, n: int, rng) -> np.ndarray:
    """A few distinct values, each many times (so equal rows are common), with the
    extremes of the type and, for floats, NaN, -0.0 and infinities."""
    if pa.types.is_floating(type_):
        pool = np.array([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 3.0],
                        np.float32 if type_.bit_width == 32 else np.float64)
    else:
        dtype = nc._dtype(type_)
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 2, info.max - 1], dtype)
    return pool[rng.integers(0, len(pool), n)]


def _array(type_, n: int, rng, null_share: float) -> pa.Array:
    values = _numbers(type_, n, rng)
    valid = rng.random(n) >= null_share
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if null_share else None
    return pa.Array.from_buffers(type_, n, [bitmap, pa.py_buffer(values.tobytes())])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(NAMES), st.sampled_from(TYPES), st.integers(0, 700),
       st.integers(0, 70), st.integers(0, 70), st.sampled_from([0.0, 0.2, 0.9]),
       st.sampled_from([0.0, 0.3]),
       st.sampled_from(["columns", "value right", "value left", "chunked"]),
       st.integers(0, 2**32 - 1))
def test_the_loop_is_arrows_comparison(name, type_, n, left_offset, right_offset,
                                       left_nulls, right_nulls, shape, seed):
    rng = np.random.default_rng(seed)
    a = _array(type_, n + left_offset, rng, left_nulls).slice(left_offset)
    b = _array(type_, n + right_offset, rng, right_nulls).slice(right_offset)
    value = pa.scalar(_numbers(type_, 1, rng)[0].item(), pa.from_numpy_dtype(
        nc._dtype(type_))).cast(type_) if not pa.types.is_temporal(type_) else \
        pa.Array.from_buffers(type_, 1, [None, pa.py_buffer(_numbers(type_, 1, rng))])[0]
    if shape == "chunked":
        cut = int(rng.integers(0, n + 1))
        left = pa.chunked_array([a.slice(0, cut), a.slice(cut)], type_)
        right = pa.chunked_array([b.slice(0, cut), b.slice(cut)], type_)
    else:
        left, right = {"columns": (a, b), "value right": (a, value),
                       "value left": (value, b)}[shape]
    saved, nc.COMPARE_MIN_ROWS = nc.COMPARE_MIN_ROWS, 0  # small arrays too
    try:
        ours = nc.compare_numbers(name, left, right)
    finally:
        nc.COMPARE_MIN_ROWS = saved
    assert ours is not None
    ours.validate(full=True)
    want = getattr(pc, name)(left, right)
    assert ours.type == want.type and ours.equals(want), (name, type_, shape)


@pytest.mark.parametrize("left, right", [
    (pa.array([True, False] * 3000), pa.scalar(True)),
    (pa.array([1, 2] * 3000, pa.decimal128(5, 0)), pa.scalar(1, pa.decimal128(5, 0))),
    (pa.array([1, 2] * 3000, pa.int32()), pa.scalar(None, pa.int32())),
    (pa.array([1, 2] * 3000, pa.int32()), pa.scalar(1, pa.int64())),
    (pa.array([1, 2] * 100, pa.int32()), pa.scalar(1, pa.int32())),
    (pa.chunked_array([[1] * 5000, [2] * 5000]), pa.chunked_array([[1] * 4000, [2] * 6000])),
])
def test_what_the_loop_does_not_take_goes_to_arrows_kernel(left, right):
    """Booleans, decimals, a null value, two types, a small array, chunks
    that do not line up: no answer from the loop, so the kernel asks Arrow's."""
    assert nc.compare_numbers("less", left, right) is None
    less = registry.get_function("less")
    got = less.execute(less, [left, right], None, None)
    assert got.equals(pc.less(left, right))


def test_a_filter_s_date_test_runs_the_loop_with_arrows_result():
    """A date comparison over a million rows with nulls, as a filter writes it, evaluated
    lazily and eagerly, is Arrow's comparison."""
    rng = np.random.default_rng(3)
    n = 1_000_003
    days = pa.array(rng.integers(8000, 10600, n).astype(np.int32), pa.int32(),
                    mask=rng.random(n) < 0.1).cast(pa.date32())
    table = pa.table({"d": days, "e": days.take(pa.array(rng.permutation(n)))})
    for text, want in [("d > date '1995-03-15'", pc.greater(days, pa.scalar(9204, pa.date32()))),
                       ("e <= d", pc.less_equal(table["e"], table["d"]))]:
        for mode in ("lazy", "eager"):
            got = tk.evaluate(text, table, mode=mode)
            assert got.equals(want if isinstance(want, pa.ChunkedArray)
                              else pa.chunked_array([want])), (text, mode)
