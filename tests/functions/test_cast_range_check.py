"""Safe integer casts settled by min/max give exactly Arrow's results, and keep its errors."""

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import KernelError
from toolkit.functions.cast_range_check import RANGE_CHECK_MIN_ROWS, checked_range, values_in_range

INTEGERS = [pa.int8(), pa.int16(), pa.int32(), pa.int64(),
            pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
TARGETS = INTEGERS + [pa.float32(), pa.float64()]
SAFE = pc.CastOptions.safe


def type_range(type_):
    bits = type_.bit_width
    if pa.types.is_signed_integer(type_):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def bounds_of(target):
    """The edges Arrow's check tests for a cast to `target`."""
    if target == pa.float32():
        return [-(1 << 24), 1 << 24]
    if target == pa.float64():
        return [-(1 << 53), 1 << 53]
    return list(type_range(target))


@st.composite
def integer_arrays(draw, source, target):
    """Long (so the fast path is tried), sliced, with arbitrary values hidden under nulls.

    Values cluster at the edges of the cast's range (edge - 1, edge, edge + 1).
    """
    low, high = type_range(source)
    edges = sorted({v for e in bounds_of(target) for v in (e - 1, e, e + 1) if low <= v <= high})
    value = st.integers(low, high) | st.integers(max(low, -100), min(high, 100))
    if edges:
        value = value | st.sampled_from(edges)
    sample = draw(st.lists(st.tuples(value, st.booleans()), min_size=1, max_size=6))
    repeat = RANGE_CHECK_MIN_ROWS // len(sample) + 2
    values = [v for v, _ in sample] * repeat
    valid = [ok for _, ok in sample] * repeat
    data = pa.array(values, source).buffers()[1]
    bitmap = pa.array(valid, pa.bool_()).buffers()[1]
    array = pa.Array.from_buffers(source, len(values), [bitmap, data])
    return array.slice(draw(st.integers(0, 7)))


def arrow_or_error(array, target):
    try:
        return pc.cast(array, target, safe=True), None
    except pa.ArrowInvalid as exc:
        return None, exc


@pytest.mark.parametrize("source", INTEGERS, ids=str)
@pytest.mark.parametrize("target", TARGETS, ids=str)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_safe_cast_equals_arrow_success_and_failure(data, source, target):
    array = data.draw(integer_arrays(source, target))
    expected, error = arrow_or_error(array, target)
    batch = pa.record_batch({"x": array})
    expr = tk.field("x").cast(target)
    if error is not None:
        with pytest.raises(KernelError) as info:
            tk.evaluate(expr, batch)
        assert str(error).split(":")[0] in str(info.value)
    else:
        got = tk.evaluate(expr, batch)
        assert got.type == target and got.equals(expected)


def test_a_value_out_of_range_under_a_null_does_not_fail():
    """Arrow checks only valid values; the raw buffer's max sends us to its check."""
    values = pa.array([1, 1 << 60] * RANGE_CHECK_MIN_ROWS, pa.int64()).buffers()[1]
    valid = pa.array([True, False] * RANGE_CHECK_MIN_ROWS).buffers()[1]
    array = pa.Array.from_buffers(pa.int64(), 2 * RANGE_CHECK_MIN_ROWS, [valid, values])
    assert not values_in_range(array, -(1 << 53), 1 << 53)
    got = tk.evaluate(tk.field("x").cast(pa.float64()), pa.record_batch({"x": array}))
    assert got.equals(pc.cast(array, pa.float64()))


def test_a_valid_value_out_of_range_fails_as_in_arrow_naming_the_row():
    values = [7] * RANGE_CHECK_MIN_ROWS
    values[1234] = (1 << 53) + 1
    batch = pa.record_batch({"x": pa.array(values, pa.int64())})
    with pytest.raises(KernelError) as info:
        tk.evaluate(tk.field("x").cast(pa.float64()), batch)
    assert info.value.row == 1234
    assert "Integer value 9007199254740993 not in range" in str(info.value)


@pytest.mark.parametrize("source, target, expected", [
    (pa.int64(), pa.float64(), (-(1 << 53), 1 << 53, "allow_float_truncate")),
    (pa.uint64(), pa.float64(), (0, 1 << 53, "allow_float_truncate")),
    (pa.int64(), pa.float32(), (-(1 << 24), 1 << 24, "allow_float_truncate")),
    (pa.uint32(), pa.float32(), (0, 1 << 24, "allow_float_truncate")),
    (pa.int32(), pa.float64(), None),  # every int32 is exact in a double: Arrow checks nothing
    (pa.int16(), pa.float32(), None),
    (pa.int64(), pa.int8(), (-128, 127, "allow_int_overflow")),
    (pa.int8(), pa.uint8(), (0, 255, "allow_int_overflow")),
    (pa.uint64(), pa.int64(), (-(1 << 63), (1 << 63) - 1, "allow_int_overflow")),
    (pa.int8(), pa.int64(), None),  # widening
    (pa.float64(), pa.int64(), None),  # float to int checks truncation, not a range
    (pa.int64(), pa.decimal128(20, 0), None),
])
def test_which_casts_check_a_range(source, target, expected):
    assert checked_range(source, target, SAFE(target)) == expected


def test_a_cast_whose_check_is_off_is_left_alone():
    assert checked_range(pa.int64(), pa.float64(), pc.CastOptions(
        pa.float64(), allow_float_truncate=True)) is None
    assert checked_range(pa.int64(), pa.int8(), pc.CastOptions.unsafe(pa.int8())) is None
