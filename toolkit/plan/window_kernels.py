"""Window functions computed with numpy and pyarrow kernels over sorted rows.

The rows are sorted by partition keys then order keys (pc.sort_indices); partition and
peer-group boundaries come from comparing adjacent keys; every function is then vector
arithmetic on row positions: ranks from boundary positions, lag/lead as shifted takes
masked at partition edges, sum/count/avg over any frame as differences of prefix sums
(decimals exactly, as 32-bit limbs), the variances with Spark's running update
(`window_moments.py`), min/max over any frame from a sparse table (the minimum of each
power-of-two span, so every frame is two overlapping spans), first_value/last_value as
a take at the frame's edge (ignoring nulls: at the nearest non-null row inside the
frame, from running maxima/minima of non-null positions). A RANGE frame's edges
come from a vectorised binary search of the sorted order key. Results go back to the
input's row order at the end.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .errors import PlanError
from .nan_order import SortColumn, sql_sort_columns
from .window import OFFSET_FUNCTIONS, VALUE_FUNCTIONS, VARIANCE_WINDOWS, WindowExpr
from .window_moments import frame_moments

__all__ = ["Boundaries", "SortedInputs", "WindowSort", "compute_window"]


@dataclass(frozen=True)
class Boundaries:
    """Per sorted row: where its partition starts and ends (exclusive) and where its peer
    group (rows equal on every order key) starts and ends."""

    part_start: np.ndarray
    part_end: np.ndarray
    peer_start: np.ndarray
    peer_end: np.ndarray


@dataclass(frozen=True)
class SortedInputs:
    """A function's inputs in sorted row order: its argument, lag/lead's default and the
    first order key (read by RANGE frames with offsets); None where it has none."""

    values: pa.Array | None
    default: pa.Array | None = None
    order_key: pa.Array | None = None


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
            both_nan = pc.fill_null(pc.and_(pc.is_nan(a), pc.is_nan(b)), False)
            both_null = pc.or_(both_null, both_nan)
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
    keys = sql_sort_columns([SortColumn(k, True, False) for k in partition]
                            + [SortColumn(*k) for k in order])
    if not keys:
        return np.arange(n, dtype=np.int64)
    indices = pa.array(np.arange(n, dtype=np.int64))
    for column, asc, nulls_first in reversed(keys):  # stable passes, the last key first
        step = pc.sort_indices(column.take(indices), sort_keys=[
            ("", "ascending" if asc else "descending", "at_start" if nulls_first else "at_end")])
        indices = indices.take(step)
    return indices.to_numpy().astype(np.int64)


@dataclass(frozen=True)
class WindowSort:
    """The rows sorted once for every function over the same partition and order keys:
    the permutation (as an Arrow array to take with), its inverse, the sorted order keys
    and the partition and peer boundaries."""

    taken: pa.Array
    back: pa.Array
    order_keys: tuple[pa.Array, ...]
    bounds: Boundaries

    @staticmethod
    def of(partition: Sequence[pa.Array], order: Sequence[tuple[pa.Array, bool, bool]],
           n: int) -> WindowSort:
        perm = sort_order(partition, order, n)
        taken = pa.array(perm)
        back = np.empty(n, dtype=np.int64)
        back[perm] = np.arange(n, dtype=np.int64)
        order_keys = tuple(c.take(taken) for c, _, _ in order)
        bounds = boundaries([c.take(taken) for c in partition], order_keys, n)
        return WindowSort(taken, pa.array(back), order_keys, bounds)


def _frame(w: WindowExpr, b: Boundaries, n: int,
           order_key: pa.Array | None) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive (first, last) sorted row of each row's frame; first > last: empty."""
    positions = np.arange(n, dtype=np.int64)
    if w.frame is None:
        if w.order_by:  # RANGE UNBOUNDED PRECEDING .. CURRENT ROW: through the last peer
            return b.part_start, b.peer_end - 1
        return b.part_start, b.part_end - 1
    if w.frame.unit == "range":
        return _range_frame(w, b, n, order_key)
    lo = b.part_start if w.frame.start is None else np.maximum(positions + w.frame.start,
                                                                b.part_start)
    hi = b.part_end - 1 if w.frame.end is None else np.minimum(positions + w.frame.end,
                                                                b.part_end - 1)
    return lo, hi


def _valid_region(valid: np.ndarray, b: Boundaries, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the first and one-past-last row of its partition whose order key is a
    number: the sort puts the numbers together (nulls at one end, NaN above them), so
    they are contiguous."""
    positions = np.arange(n, dtype=np.int64)
    starts = np.flatnonzero(b.part_start == positions)
    first = np.minimum.reduceat(np.where(valid, positions, n), starts)
    after = np.maximum.reduceat(np.where(valid, positions + 1, -1), starts)
    empty = after < 0
    first, after = np.where(empty, starts, first), np.where(empty, starts, after)
    partition = np.cumsum(b.part_start == positions) - 1
    return first[partition], after[partition]


def _first_not(keys: np.ndarray, lo: np.ndarray, hi: np.ndarray, before) -> np.ndarray:
    """Per row, the first index in [lo, hi) where `before(keys[index], row)` is false
    (the sorted keys make it true on a prefix): a binary search run for all rows at once."""
    lo, hi = lo.copy(), hi.copy()
    rows = np.arange(len(lo), dtype=np.int64)
    for _ in range(int(max(hi - lo, default=0)).bit_length() + 1):
        open_ = lo < hi
        if not open_.any():
            break
        mid = (lo + hi) // 2
        go_right = open_ & before(keys[np.minimum(mid, len(keys) - 1)], rows)
        lo = np.where(go_right, mid + 1, lo)
        hi = np.where(open_ & ~go_right, mid, hi)
    return lo


def _shifted(keys: np.ndarray, offset) -> np.ndarray:
    """keys + offset, saturating at an integer type's ends (a bound past the end reaches
    every row on that side). The plan checks that |offset| fits the key's type."""
    if keys.dtype.kind == "f":
        return keys + offset
    info, magnitude = np.iinfo(keys.dtype), abs(int(offset))
    step = keys.dtype.type(magnitude)
    if offset >= 0:
        return np.where(keys > info.max - magnitude, info.max, keys + step)
    return np.where(keys < info.min + magnitude, info.min, keys - step)


def _range_frame(w: WindowExpr, b: Boundaries, n: int,
                 order_key: pa.Array | None) -> tuple[np.ndarray, np.ndarray]:
    """RANGE BETWEEN bounds as values: a row's frame holds the rows of its partition whose
    order key lies within [key + start, key + end] (mirrored for a descending key), and a
    CURRENT ROW bound is the current row's first or last peer. A row whose key is null or
    NaN has no distance to the others: its offset bounds stop at its peers, as Spark's."""
    frame = w.frame
    if not frame.has_offsets:
        lo = b.part_start if frame.start is None else b.peer_start
        hi = b.part_end - 1 if frame.end is None else b.peer_end - 1
        return lo, hi
    valid = pc.is_valid(order_key)
    if pa.types.is_floating(order_key.type):
        valid = pc.and_(valid, pc.invert(pc.fill_null(pc.is_nan(order_key), True)))
    valid = valid.to_numpy(zero_copy_only=False)
    keys = order_key.fill_null(0).to_numpy(zero_copy_only=False)
    if keys.dtype.kind == "f":
        keys = np.where(valid, keys, 0.0)
    ascending = w.order_by[0].ascending
    first, after = _valid_region(valid, b, n)

    def bound(offset, upper: bool) -> np.ndarray:
        if offset is None:
            return b.part_end if upper else b.part_start
        if offset == 0:
            return b.peer_end if upper else b.peer_start
        target = _shifted(keys, offset if ascending else -offset)
        if ascending:
            before = (lambda k, r: k <= target[r]) if upper else (lambda k, r: k < target[r])
        else:
            before = (lambda k, r: k >= target[r]) if upper else (lambda k, r: k > target[r])
        found = _first_not(keys, first, after, before)
        at_peers = b.peer_end if upper else b.peer_start
        return np.where(valid, found, at_peers)

    return bound(frame.start, upper=False), bound(frame.end, upper=True) - 1


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


_LIMB = 32


def _decimal_limbs(values: pa.Array) -> np.ndarray:
    """A decimal128 array's unscaled values as four 32-bit limbs per row (least significant
    first, the top one signed), nulls as zero: each limb's prefix sums stay exact in int64
    for up to 2**31 rows."""
    words = np.frombuffer(values.buffers()[1], dtype=np.uint32)
    words = words[values.offset * 4:(values.offset + len(values)) * 4].reshape(-1, 4)
    limbs = words.astype(np.int64)
    limbs[:, 3] = words[:, 3].view(np.int32)
    return limbs * pc.is_valid(values).to_numpy(zero_copy_only=False)[:, None]


def _decimal_sums(values: pa.Array, lo: np.ndarray, hi: np.ndarray, nothing: np.ndarray,
                  out_type: pa.DataType) -> pa.Array:
    """Each frame's exact sum of decimal128 values, as `out_type` (null where `nothing`)."""
    limbs = _decimal_limbs(values)
    prefix = np.vstack([np.zeros((1, 4), np.int64), np.cumsum(limbs, axis=0)])
    total = prefix[hi + 1] - prefix[lo]
    for limb in range(3):  # carry each limb's excess into the next, leaving 0 <= limb < 2**32
        carry = total[:, limb] >> _LIMB
        total[:, limb] -= carry << _LIMB
        total[:, limb + 1] += carry
    top = total[:, 3]
    if ((top < -(1 << 31)) | (top >= (1 << 31))).any():
        raise PlanError(f"a window sum overflows {out_type}")
    words = np.empty((len(total), 4), dtype=np.uint32)
    words[:, :3] = total[:, :3].astype(np.uint32)
    words[:, 3] = top.astype(np.int32).view(np.uint32)
    validity = pa.array(~nothing).buffers()[1] if nothing.any() else None
    sums = pa.Array.from_buffers(out_type, len(total),
                                 [validity, pa.py_buffer(words.tobytes())])
    widest = decimal.Decimal(10 ** out_type.precision - 1).scaleb(-out_type.scale)
    limit = pa.scalar(widest, pa.decimal256(76, out_type.scale))
    wide = sums.cast(pa.decimal256(76, out_type.scale))
    if pc.any(pc.or_(pc.greater(wide, limit), pc.less(wide, pc.negate(limit)))).as_py():
        raise PlanError(f"a window sum overflows {out_type}")
    return sums


def _decimal_means(sums: pa.Array, count: np.ndarray, nothing: np.ndarray,
                   out_type: pa.DataType) -> pa.Array:
    """Each frame's mean as `out_type`, rounded half away from zero as Arrow's and Spark's
    decimal averages round."""
    divisor = pa.array(np.where(nothing, 1, count)).cast(pa.decimal128(19, 0))
    # Arrow's quotient keeps 20 more digits than the sum, truncated: rounding it to the
    # result's scale then gives the same digits as rounding the exact quotient
    exact = pc.divide(sums.cast(pa.decimal256(40, sums.type.scale)), divisor)
    return pc.round(exact, ndigits=out_type.scale, round_mode="half_towards_infinity").cast(
        out_type)


def _aggregate(w: WindowExpr, inputs: SortedInputs, b: Boundaries, n: int,
               out_type: pa.DataType) -> pa.Array:
    values = inputs.values
    lo, hi = _frame(w, b, n, inputs.order_key)
    if w.func in VALUE_FUNCTIONS:
        return _edge_values(w, values, lo, hi, n)
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
    if w.func in VARIANCE_WINDOWS:
        return _variances(w, values, valid.astype(bool), lo_c, hi_c)
    if w.func in ("sum", "avg") and pa.types.is_decimal(values.type):
        sum_type = out_type if w.func == "sum" else pa.decimal128(38, values.type.scale)
        sums = _decimal_sums(values, lo_c, hi_c, nothing, sum_type)
        return sums if w.func == "sum" else _decimal_means(sums, count, nothing, out_type)
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


def _edge_values(w: WindowExpr, values: pa.Array, lo: np.ndarray, hi: np.ndarray,
                 n: int) -> pa.Array:
    """first_value / last_value: the value of each frame's first (last) row, or with
    ignore_nulls of its first (last) row holding a value; null for an empty frame."""
    first = w.func == "first_value"
    empty = lo > hi
    edge = lo if first else hi
    if w.ignore_nulls:
        positions = np.arange(n, dtype=np.int64)
        valid = pc.is_valid(values).to_numpy(zero_copy_only=False)
        if first:  # the next row at or after each position that holds a value
            at_or_after = np.where(valid, positions, n)[::-1]
            nearest = np.minimum.accumulate(at_or_after)[::-1] if n else positions
        else:  # the last row at or before each position that holds a value
            nearest = np.maximum.accumulate(np.where(valid, positions, -1)) if n else positions
        edge = nearest[np.clip(edge, 0, max(n - 1, 0))] if n else edge
        empty = empty | (edge > hi) | (edge < lo)
    return values.take(pa.array(np.where(empty, 0, edge), mask=empty))


def _variances(w: WindowExpr, values: pa.Array, valid: np.ndarray, lo: np.ndarray,
               hi: np.ndarray) -> pa.Array:
    """var_samp, var_pop, stddev_samp or stddev_pop of each frame, over the values as
    doubles (Spark casts them so); null where the frame has no value (or, for the sample
    ones, one value)."""
    doubles = pc.fill_null(values.cast(pa.float64()), 0.0).to_numpy(zero_copy_only=False)
    suffixes = w.frame is not None and w.frame.start is not None and w.frame.end is None
    moments = frame_moments(doubles, valid, lo, hi, backward=suffixes)
    sample = w.func.endswith("_samp")
    divisor = moments.count - 1.0 if sample else moments.count
    undefined = divisor <= 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        result = moments.m2 / np.where(undefined, 1.0, divisor)
    if w.func.startswith("stddev"):
        with np.errstate(invalid="ignore"):
            result = np.sqrt(result)
    return pa.array(result, pa.float64(), mask=undefined)


def compute_window(w: WindowExpr, inputs: SortedInputs, b: Boundaries, n: int,
                   out_type: pa.DataType) -> pa.Array:
    """The function's values for the sorted rows."""
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
        taken = inputs.values.take(pa.array(np.where(outside, 0, source), mask=outside))
        if inputs.default is None:
            return taken
        return pc.if_else(pa.array(outside), inputs.default, taken)
    return _aggregate(w, inputs, b, n, out_type)
