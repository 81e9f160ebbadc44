"""Writing branches at their rows, against a plain Python reference, for every fixed-width
type the writer takes: compact, whole-domain and one-value branches, nulls in each, rows no
branch covers, sliced values, and the branch used as the fill."""

from __future__ import annotations

import datetime

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.execution.place_values import placeable, write_parts
from toolkit.execution.selection import SelectionVector

TYPES = {
    pa.int8(): st.integers(-128, 127),
    pa.uint16(): st.integers(0, 65535),
    pa.int32(): st.integers(-(2**31), 2**31 - 1),
    pa.uint64(): st.integers(0, 2**64 - 1),
    pa.int64(): st.integers(-(2**63), 2**63 - 1),
    pa.float32(): st.floats(width=32, allow_nan=False),
    pa.float64(): st.floats(allow_nan=False),
    pa.date32(): st.dates(),
    pa.timestamp("ns"): st.integers(-(2**62), 2**62),
    pa.time64("us"): st.integers(0, 86_400_000_000 - 1),
    pa.duration("ms"): st.integers(-(10**16), 10**16),  # within Python timedelta range
}


@st.composite
def cases(draw):
    out_type = draw(st.sampled_from(list(TYPES)))
    value = st.one_of(st.none(), TYPES[out_type])
    n = draw(st.integers(1, 120))
    uncovered = draw(st.booleans())
    owner = draw(st.lists(st.integers(-1 if uncovered else 0, 3), min_size=n, max_size=n))
    parts, expected = [], [None] * n
    for b in range(4):
        rows = [i for i, o in enumerate(owner) if o == b]
        kind = draw(st.sampled_from(["compact", "full", "scalar"]))
        if kind == "scalar":
            v = draw(value)
            parts.append((rows, pa.scalar(v, out_type), False))
            for i in rows:
                expected[i] = v
            continue
        size = len(rows) if kind == "compact" else n  # full: a value for every row
        lead = draw(st.integers(0, 3))  # values sliced out of a longer array
        vals = draw(st.lists(value, min_size=size + lead, max_size=size + lead))[lead:]
        parts.append((rows, pa.array([None] * lead + vals, out_type).slice(lead),
                      kind == "full"))
        for j, i in enumerate(rows):
            expected[i] = vals[j] if kind == "compact" else vals[i]
    return n, out_type, parts, pa.array(expected, out_type)


@settings(max_examples=300)
@given(cases())
def test_every_value_lands_at_its_row_and_every_null_stays_null(case):
    n, out_type, parts, expected = case
    given_parts = [(SelectionVector(rows, n), value, full) for rows, value, full in parts]
    got = write_parts(n, given_parts, out_type)
    got.validate(full=True)
    assert got.type == out_type
    assert got.to_pylist() == expected.to_pylist()
    assert given_parts == []  # consumed: each branch's arrays can go once written


def test_a_value_of_another_type_is_cast_to_the_result_type():
    rows = SelectionVector([0, 2], 3)
    got = write_parts(3, [(rows, pa.array([1, None], pa.int32()), False),
                          (SelectionVector([1], 3), pa.scalar(7, pa.int8()), False)], pa.int64())
    assert got.to_pylist() == [1, 7, None]


def test_types_without_one_fixed_width_buffer_are_not_taken():
    for t in (pa.bool_(), pa.string(), pa.decimal128(10, 2), pa.list_(pa.int8()),
              pa.month_day_nano_interval(), pa.dictionary(pa.int8(), pa.string())):
        assert not placeable(t)
    for t in (*TYPES, pa.float16(), pa.date64(), pa.time32("s")):
        assert placeable(t)


def test_dates_keep_their_calendar_values():
    day = datetime.date(2024, 2, 29)
    got = write_parts(2, [(SelectionVector([1], 2), pa.scalar(day), False),
                          (SelectionVector([0], 2), pa.array([None], pa.date32()), False)],
                      pa.date32())
    assert got.to_pylist() == [None, day]
