"""A traced fused group over the data's own columns runs its untraced loop and writes its
forms' branch codes when the trace is read: the rows and counts read then, and the
sample taken at once, are those of the unfused trace, and a trace kept longer than its
data holds the codes, not the columns."""

from __future__ import annotations

import gc

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.tracing.nulls_table import nulls_table
from toolkit.execution.fused_branches import _CodesMask
from toolkit.execution.fused_codes import LazyCodes


def _table(rows: int, seed: int, chunks: int = 3) -> pa.Table:
    return nulls_table(rows, seed, chunks)


def _traced(text: str, table, fuse: bool):
    with tk.trace() as t:
        value = tk.evaluate(text, table, fuse=fuse)
    return value, t.evaluations[-1]


def _codes(event) -> list:
    """The codes the event's fused branches were recorded with (before any is read)."""
    return [piece.picked.values[0] for b in event.branches for piece in b.pieces or ()
            if isinstance(piece.picked, _CodesMask)]


def _rows(event) -> dict:
    return {(tuple(b.path), b.branch): (b.count, b.rows.to_pylist()) for b in event.branches}


_SHAPES = [
    "k > 20 and b < 90 and a != 0 and x > 0.1",
    "k = 7 or k = 14 or a = 3 or b < 1",
    "case when k < 100 then b * 2 when k < 500 then b + 1 when a = 0 then x else 0.5 end",
    "case when k < 3 then b when a > 4 then b * 2 else coalesce(x, b / 3, 0.5) end",
    "coalesce(x, b * 2, 0.5)",
    "if(a != 0, b / a, 0.0)",
    "if(k > 995, b * 2, b + 1) > 3 or a = 1",
]


@settings(max_examples=14, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_SHAPES), st.integers(0, 2**16), st.sampled_from([1, 3]),
       st.sampled_from([30_000, 120_000]))
def test_codes_written_on_read_give_the_unfused_rows_and_sample(text, seed, chunks, rows):
    """Recorded without its codes, the fused trace reads the rows, counts and sample the
    unfused trace has, over tables of one chunk or several, nulls everywhere."""
    table = _table(rows, seed, chunks)
    fused_value, fused = _traced(text, table, fuse=True)
    codes = _codes(fused)
    assert codes and all(isinstance(c, LazyCodes) for c in codes), text
    unfused_value, unfused = _traced(text, table, fuse=False)
    assert fused_value.equals(unfused_value), text
    assert fused.sample.equals(unfused.sample), text
    assert _rows(fused) == _rows(unfused), text


def test_a_trace_not_read_never_writes_every_rows_codes():
    """Recording a million rows' trace writes no code but the first rows' (the sample's
    first rows of each branch); reading a branch's rows writes them all."""
    table = _table(1_000_000, 5, chunks=1)
    text = "k > 20 and b < 90 and a != 0"
    _, event = _traced(text, table, fuse=True)
    codes = _codes(event)
    assert codes and all(c._made is None for c in codes)
    assert all(c._head is None or c._head.shape[1] < c.rows for c in codes)
    _, unfused = _traced(text, table, fuse=False)
    assert _rows(event) == _rows(unfused)
    assert all(c._made is not None and c.arguments is None for c in codes)


def test_a_trace_kept_after_its_data_holds_the_codes_and_not_the_columns():
    """Once the caller lets its table go, the trace's codes are written from the columns
    it kept, and the columns are let go: the rows read later are still the unfused ones."""
    table = _table(200_000, 9)
    text = "case when k < 100 then b * 2 when k < 500 then b + 1 else 0.5 end"
    _, unfused = _traced(text, table, fuse=False)
    want = _rows(unfused)
    _, event = _traced(text, table, fuse=True)
    codes = _codes(event)
    assert codes and all(c._made is None for c in codes)
    del table
    gc.collect()
    assert all(c._made is not None and c.arguments is None for c in codes)
    assert _rows(event) == want


def test_morsels_fused_and_not_in_one_trace_read_as_the_unfused_one():
    """A loop casting int64 to double runs only where the morsel's values are exact as
    doubles: a chunk holding 2**60 (on a row the cast does not take) runs unfused, the
    others fused, codes on read. The
    branches' rows and the sample join both kinds of morsel in row order."""
    rng = np.random.default_rng(3)
    chunks = []
    for i in range(3):
        k, b = rng.integers(0, 1000, 50_000), rng.random(50_000)
        if i == 1:
            k[7], b[7] = 2**60, 0.25
        chunks.append(pa.record_batch({"k": pa.array(k), "b": pa.array(b)}))
    table = pa.Table.from_batches(chunks)
    text = "if(b > 0.5, cast(k as double) * 2, b) > 100 and b < 0.9"
    fused_value, fused = _traced(text, table, fuse=True)
    assert any(isinstance(c, LazyCodes) for c in _codes(fused))
    unfused_value, unfused = _traced(text, table, fuse=False)
    assert fused_value.equals(unfused_value)
    assert fused.sample.equals(unfused.sample)
    assert _rows(fused) == _rows(unfused)


def test_a_rare_branch_s_first_rows_are_found_past_the_first_prefixes():
    """A 300,000-row morsel: one branch's only rows lie past row 200,000, another branch
    takes no row, a third takes half. The sample holds the rare branch's rows, searched
    for over the rest of the morsel once the prefixes did not hold them, as the unfused
    trace's sample does."""
    n = 300_000
    rng = np.random.default_rng(8)
    k = rng.integers(0, 1000, n)
    k[[200_003, 250_000, 299_999]] = 5000
    table = pa.table({"k": pa.array(k), "b": pa.array(rng.random(n))})
    text = ("case when k = 5000 then b * 2 when k = 7000 then b * 3 when k < 500 then b "
            "else 0.5 end")
    fused_value, fused = _traced(text, table, fuse=True)
    assert all(isinstance(c, LazyCodes) for c in _codes(fused))
    unfused_value, unfused = _traced(text, table, fuse=False)
    assert {200_003, 250_000, 299_999} <= set(fused.sample.to_pylist())
    assert fused.sample.equals(unfused.sample)
    assert fused_value.equals(unfused_value)
    assert _rows(fused) == _rows(unfused)
