"""Chunks written morsel by morsel give exactly what joining the morsels gave.

Large fixed-width results are written into one buffer per chunk as each morsel
finishes (the peak memory drops from twice the output to the output). The
values, nulls, types and the caller's chunking must be what they were.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution import parallel
from toolkit.execution.chunk_buffer import ChunkBuffer, writable


@pytest.fixture
def small_morsels(monkeypatch):
    from toolkit.execution import chunk_buffer

    monkeypatch.setattr(parallel, "MORSEL_ROWS", 1_000)
    monkeypatch.setattr(chunk_buffer, "MIN_BYTES", 0)  # every chunk written in place


@pytest.mark.parametrize("t", [pa.int8(), pa.uint16(), pa.int32(), pa.int64(), pa.float32(),
                               pa.float64(), pa.date32(), pa.timestamp("ms", "UTC"),
                               pa.duration("s"), pa.time64("us")])
def test_every_fixed_width_type_round_trips(small_morsels, t):
    n = 5_500
    base = pa.array(np.arange(n) % 100, pa.int64())
    column = base.cast(pa.int32()).cast(t) if pa.types.is_date32(t) else base.cast(t, safe=False)
    nulls = pc.equal(pc.bit_wise_and(pa.array(np.arange(n)), 127), 3)
    column = pc.if_else(nulls, pa.nulls(n, t), column)
    table = pa.table({"x": column})
    expr = tk.if_else(tk.field("x").is_valid(), tk.field("x"), tk.field("x"))
    got = tk.evaluate(expr, table)
    assert got.type == t and got.num_chunks == 1
    assert got.equals(table["x"]) and got.null_count == column.null_count


def test_nulls_only_in_a_late_morsel_and_sliced_input(small_morsels):
    values = [None if i == 4_321 else i for i in range(6_000)]
    table = pa.table({"a": pa.array(values, pa.int64())}).slice(123)
    got = tk.evaluate(tk.field("a") * 2, table)
    assert got.to_pylist() == [None if v is None else v * 2 for v in values[123:]]


def test_the_callers_chunks_are_kept(small_morsels):
    table = pa.concat_tables([pa.table({"a": pa.array(range(k), pa.int64())})
                              for k in (2_500, 0, 1, 4_000)])
    got = tk.evaluate(tk.field("a") + 1, table)
    assert [len(c) for c in got.chunks] == [len(c) for c in table["a"].chunks]
    assert got.to_pylist() == [v + 1 for v in table["a"].to_pylist()]


def test_a_failing_morsel_still_names_its_row(small_morsels):
    table = pa.table({"a": pa.array([1] * 4_000 + [0] + [1] * 1_000, pa.int64())})
    with pytest.raises(tk.KernelError) as info:
        tk.evaluate(tk.call("divide", [tk.literal(10), tk.field("a")]), table)
    assert info.value.row == 4_000


def test_writable_types():
    assert writable(pa.int64()) and writable(pa.float32()) and writable(pa.date32())
    assert not writable(pa.bool_()) and not writable(pa.utf8())
    assert not writable(pa.decimal128(5, 2)) and not writable(pa.list_(pa.int8()))


@given(st.lists(st.lists(st.one_of(st.none(), st.integers(-2 ** 63, 2 ** 63 - 1)),
                         max_size=30), min_size=1, max_size=8), st.permutations(range(8)))
def test_morsels_written_in_any_order_make_the_concatenation(pieces, order):
    arrays = [pa.array(p, pa.int64()) for p in pieces]
    buffer = ChunkBuffer(sum(len(a) for a in arrays), pa.int64())
    starts = np.cumsum([0] + [len(a) for a in arrays])
    for i in [k for k in order if k < len(arrays)]:
        buffer.write(int(starts[i]), arrays[i])
    assert buffer.finish().equals(pa.concat_arrays(arrays))



def _real_sized_table() -> pa.Table:
    """A 3.2M-row chunk (its int64 output, 25.6 MB, is written in place) and a 1M-row one
    (joined), with nulls in both, as pyarrow builds them."""
    rng = np.random.default_rng(11)
    chunks = []
    for rows in (3_200_000, 1_000_000):
        a = pa.array(rng.integers(-1_000, 1_000, rows), mask=rng.random(rows) < 0.05)
        b = pa.array(rng.integers(1, 1_000, rows))
        chunks.append(pa.table({"a": a, "b": b}))
    return pa.concat_tables(chunks)


def test_real_sized_chunks_at_the_default_threshold_match_pyarrow():
    from toolkit.execution import chunk_buffer

    table = _real_sized_table()
    assert len(table["a"].chunks[0]) * 8 >= chunk_buffer.MIN_BYTES > len(table["a"].chunks[1]) * 8
    a, b = tk.field("a"), tk.field("b")
    cases = {
        (a + 1) * 2 - b: pc.subtract(pc.multiply(pc.add(table["a"], 1), 2), table["b"]),
        tk.if_else(a > b, a, b): pc.if_else(pc.greater(table["a"], table["b"]),
                                             table["a"], table["b"]),
        a.cast(pa.float64()) / b: pc.divide(table["a"].cast(pa.float64()), table["b"]),
    }
    for expr, expected in cases.items():
        got = tk.evaluate(expr, table)
        assert [len(c) for c in got.chunks] == [len(c) for c in table["a"].chunks]
        assert got.type == expected.type and got.equals(expected), str(expr)


def test_real_sized_written_chunk_names_the_failing_row():
    table = _real_sized_table()
    zero_at = 2_345_678  # inside the chunk written in place, in a late morsel
    b = table["b"].combine_chunks().to_numpy().copy()
    b[zero_at] = 0
    table = table.set_column(1, "b", pa.chunked_array([pa.array(b[:3_200_000]),
                                                       pa.array(b[3_200_000:])]))
    with pytest.raises(tk.KernelError) as info:
        tk.evaluate(tk.call("divide", [tk.field("b") * 3, tk.field("b")]), table)
    assert info.value.row == zero_at
    assert "divide by zero" in str(info.value) and f"at row {zero_at}" in str(info.value)
