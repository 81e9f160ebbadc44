"""The ASCII fast paths give exactly Arrow's UTF-8 results, and keep its errors."""

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import KernelError
from toolkit.functions.ascii_fast_path import ASCII_MIN_ROWS, is_ascii

FUNCTIONS = ["utf8_upper", "utf8_lower", "utf8_length"]
ascii_text = st.text(st.characters(max_codepoint=0x7F), max_size=6)
any_text = st.text(max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FUNCTIONS), st.lists(st.none() | ascii_text, min_size=1, max_size=30),
       st.lists(st.none() | any_text, max_size=3), st.integers(0, 5),
       st.sampled_from([pa.string(), pa.large_string()]))
def test_fast_path_equals_arrow(name, ascii_values, other_values, cut, type_):
    """Long arrays (so the fast path is tried), sliced, with or without a non-ASCII value."""
    values = (ascii_values * (ASCII_MIN_ROWS // len(ascii_values) + 2)) + other_values
    array = pa.array(values, type_).slice(cut)
    batch = pa.record_batch({"s": array})
    got = tk.evaluate(tk.call(name, [tk.field("s")]), batch)
    expected = pc.call_function(name, [array])
    assert got.type == expected.type
    assert got.equals(expected)


def test_is_ascii_reads_only_the_bytes_of_the_slice():
    mixed = pa.array(["é", "abc", "ü"])
    assert not is_ascii(mixed)
    assert is_ascii(mixed.slice(1, 1))
    assert not is_ascii(pa.array(["a", "ß"], pa.large_string()))
    assert is_ascii(pa.array([], pa.string()))


def test_invalid_utf8_still_fails_with_the_node_named():
    good = pa.array(["ok"] * ASCII_MIN_ROWS).buffers()
    data = bytearray(good[2].to_pybytes())
    data[-1] = 0xFF  # the last string is no longer valid UTF-8
    array = pa.Array.from_buffers(pa.string(), ASCII_MIN_ROWS,
                                  [None, good[1], pa.py_buffer(bytes(data))])
    with pytest.raises(KernelError) as info:
        tk.evaluate(tk.call("utf8_upper", [tk.field("s")]), pa.record_batch({"s": array}))
    assert "utf8_upper" in str(info.value)
