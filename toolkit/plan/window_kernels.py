"""Window functions computed with numpy and pyarrow kernels over sorted rows.

The rows are sorted by partition keys then order keys (pc.sort_indices); partition
and peer-group boundaries come from comparing adjacent keys; every function is
then vector arithmetic on row positions: ranks from boundary positions, lag/lead
as shifted takes masked at partition edges, sum/count/avg over any frame as
differences of prefix sums, min/max over any frame from a sparse table (the
minimum of each power-of-two span, so every frame is two overlapping spans).
Results go back to the input's row order at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .window import OFFSET_FUNCTIONS, WindowExpr

__all__ = ["Boundaries", "compute_window"]


@dataclass(frozen=True)
class Boundaries:
    """Per sorted row: where its partition starts and ends (exclusive) and where its peer
    group (rows equal on every order key) starts and ends."""

    part_start: np.ndarray
    part_end: np.ndarray
    peer_start: np.ndarray
    peer_end: np.ndarray


def _changes(columns: Sequence[pa.Array], n: int) -> np.ndarray:
    """True at each sorted row whose keys differ from the previous row's (nulls equal)."""
    new = np.zeros(n, dtype=bool)
    if n:
        new[0] = True
    if n < 2:
        return new
    for column in columns:
        a, b = column.slice(1), column.slice(0, n - 1)
        same = pc.fill_null(pc.equal(a, b), False)
        both_null = pc.and_(pc.is_null(a), pc.is_null(b))
        if pa.types.is_floating(column.type):
            both_null = pc.or_(both_null, pc.and_(pc.is_nan(a), pc.is_nan(b)))
            both_null = pc.fill_null(both_null, False)
        differ = pc.invert(pc.or_(same, both_null))
        new[1:] |= differ.to_numpy(zero_copy_only=False)
    return new


def _starts_ends(new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = len(new)
    positions = np.arange(n, dtype=np.int64)
    starts = np.maximum.accumulate(np.where(new, positions, 0)) if n else positions
    ends_marker = np.append(new[1:], True) if n else new
    ends = np.minimum.accumulate(np.where(ends_marker, positions + 1, n)[::-1])[::-1] \
        if n else positions
    return starts, ends


def boundaries(partition: Sequence[pa.Array], order: Sequence[pa.Array], n: int) -> Boundaries:
    new_part = _changes(partition, n)
    new_peer = new_part | _changes(order, n)
    part_start, part_end = _starts_ends(new_part)
    peer_start, peer_end = _starts_ends(new_peer)
    return Boundaries(part_start, part_end, peer_start, peer_end)


def sort_order(partition: Sequence[pa.Array], order: Sequence[tuple[pa.Array, bool, bool]],
               n: int) -> np.ndarray:
    """Row positions sorted by partition keys, then order keys (stable)."""
    keys = [(k, True, False) for k in partition] + list(order)
    if not keys:
        return np.arange(n, dtype=np.int64)
    indices = pa.array(np.arange(n, dtype=np.int64))
    for column, asc, nulls_first in reversed(keys):  # stable passes, the last key first
        step = pc.sort_indices(column.take(indices), sort_keys=[
            ("", "ascending" if asc else "descending", "at_start" if nulls_first else "at_end")])
        indices = indices.take(step)
    return indices.to_numpy().astype(np.int64)


def _frame(w: WindowExpr, b: Boundaries, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive (first, last) sorted row of each row's frame; first > last: empty."""
    positions = np.arange(n, dtype=np.int64)
    if w.frame is None:
        if w.order_by:  # RANGE UNBOUNDED PRECEDING .. CURRENT ROW: through the last peer
            return b.part_start, b.peer_end - 1
        return b.part_start, b.part_end - 1
    lo = b.part_start if w.frame.start is None else np.maximum(positions + w.frame.start,
                                                                b.part_start)
    hi = b.part_end - 1 if w.frame.end is None else np.minimum(positions + w.frame.end,
                                                                b.part_end - 1)
    return lo, hi


def _prefix(values: np.ndarray) -> np.ndarray:
    return np.concatenate([np.zeros(1, dtype=values.dtype), np.cumsum(values)])


def _float_sums(raw: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                part_start: np.ndarray) -> np.ndarray:
    """Each frame's sum of float values. The prefix sums restart at every partition: a
    prefix over the whole column would carry one partition's magnitude into another's
    rounding. Infinities and NaN are counted apart: inside a prefix they would make every
    later frame infinite or NaN, not only the frames that hold them."""
    n = len(raw)
    finite = np.isfinite(raw)
    clean = np.where(finite, raw, 0.0)
    local = np.empty(n, dtype=np.float64)
    starts = np.flatnonzero(part_start == np.arange(n, dtype=np.int64))
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), n]):
        np.cumsum(clean[start:end], out=local[start:end])  # vectorised within a partition
    upto = local[np.clip(hi, 0, max(n - 1, 0))] if n else local
    before = np.where(lo > part_start, local[np.clip(lo - 1, 0, max(n - 1, 0))], 0.0) if n \
        else local
    total = upto - before

    def in_frame(flags: np.ndarray) -> np.ndarray:
        counts = _prefix(flags.astype(np.int64))
        return counts[hi + 1] - counts[lo]

    nan, up, down = in_frame(np.isnan(raw)), in_frame(raw == np.inf), in_frame(raw == -np.inf)
    total = np.where(down > 0, -np.inf, total)
    total = np.where(up > 0, np.inf, total)
    return np.where((nan > 0) | ((up > 0) & (down > 0)), np.nan, total)


def _span_extreme(keys: np.ndarray, lo: np.ndarray, hi: np.ndarray, pick) -> np.ndarray:
    """pick (np.minimum / np.maximum) of keys[lo..hi] per row, via a sparse table; rows
    with an empty frame get keys[lo] (the caller masks them)."""
    n = len(keys)
    width = np.maximum(hi - lo + 1, 1)
    levels = [keys]
    while (1 << len(levels)) <= int(width.max(initial=1)):
        prev, step = levels[-1], 1 << (len(levels) - 1)
        nxt = prev.copy()
        nxt[:n - step] = pick(prev[:n - step], prev[step:])
        levels.append(nxt)
    k = np.floor(np.log2(width)).astype(np.int64)
    out = np.empty(n, dtype=keys.dtype)
    for level in range(len(levels)):  # a bounded loop over log2(frame width) levels
        rows = np.nonzero(k == level)[0]
        if len(rows):
            table = levels[level]
            right = np.clip(hi[rows] - (1 << level) + 1, 0, n - 1)
            out[rows] = pick(table[np.clip(lo[rows], 0, n - 1)], table[right])
    return out


def _aggregate(w: WindowExpr, values: pa.Array | None, b: Boundaries, n: int,
               out_type: pa.DataType) -> pa.Array:
    lo, hi = _frame(w, b, n)
    empty = lo > hi
    lo_c, hi_c = np.where(empty, 0, lo), np.where(empty, -1, hi)
    if values is None:
        valid = np.ones(n, dtype=np.int64)
    else:
        valid = pc.is_valid(values).to_numpy(zero_copy_only=False).astype(np.int64)
    counts = _prefix(valid)
    count = counts[hi_c + 1] - counts[lo_c]
    if w.func == "count":
        return pa.array(count, pa.int64())
    nothing = count == 0
    if w.func in ("sum", "avg"):
        kind = np.float64 if w.func == "avg" or pa.types.is_floating(values.type) else (
            np.uint64 if pa.types.is_unsigned_integer(values.type) else np.int64)
        raw = pc.fill_null(values, 0).to_numpy(zero_copy_only=False).astype(kind)
        if kind is np.float64:
            total = _float_sums(raw, lo_c, hi_c, b.part_start)
        else:  # wraps as Arrow's sum does; the difference of wrapped prefixes is exact
            sums = _prefix(raw)
            total = sums[hi_c + 1] - sums[lo_c]
        if w.func == "avg":
            total = total / np.where(nothing, 1, count)
        return pa.array(total, out_type, mask=nothing)
    # min / max: over dense ranks of the values, so any orderable type works
    ranks = pc.rank(values, sort_keys=[("", "ascending", "at_end")], tiebreaker="dense").to_numpy().astype(np.int64)
    null_rank = np.iinfo(np.int64).max if w.func == "min" else -1
    keys = np.where(valid.astype(bool), ranks, null_rank)
    best = _span_extreme(keys, lo_c, hi_c, np.minimum if w.func == "min" else np.maximum)
    row_of_rank = np.zeros(int(ranks.max(initial=0)) + 2, dtype=np.int64)
    row_of_rank[ranks] = np.arange(n, dtype=np.int64)
    pick = row_of_rank[np.where(nothing, 0, best)]
    return values.take(pa.array(pick, mask=nothing))


def compute_window(w: WindowExpr, values: pa.Array | None, b: Boundaries, n: int,
                   out_type: pa.DataType) -> pa.Array:
    """The function's values for the sorted rows (values: its argument, sorted)."""
    positions = np.arange(n, dtype=np.int64)
    if w.func == "row_number":
        return pa.array(positions - b.part_start + 1, pa.int64())
    if w.func == "rank":
        return pa.array(b.peer_start - b.part_start + 1, pa.int64())
    if w.func == "dense_rank":
        new_peer = np.zeros(n, dtype=np.int64)
        new_peer[b.peer_start] = 1
        groups = np.cumsum(new_peer)
        return pa.array(groups - groups[b.part_start] + 1, pa.int64())
    if w.func in OFFSET_FUNCTIONS:
        source = positions - w.offset if w.func == "lag" else positions + w.offset
        outside = (source < b.part_start) | (source >= b.part_end)
        return values.take(pa.array(np.where(outside, 0, source), mask=outside))
    return _aggregate(w, values, b, n, out_type)
