"""Variances and standard deviations over window frames, as Spark computes them.

A frame's variance from prefix sums of x and x*x (how sum and avg are done over any
frame, `window_kernels.py`) cancels catastrophically: values near 1e9 with a spread
of 1 lose every digit. So each frame is aggregated with the update Spark's
`CentralMomentAgg` applies per value (a running count, mean and sum of squared
deviations, Welford's), in the order Spark adds them, which keeps every digit Spark
keeps. The update is a loop from value to value, so it is compiled by numba.

A frame that grows from the previous row's (the same first row, a later last row:
UNBOUNDED PRECEDING frames, whole partitions) only adds its new rows, as Spark's
growing frames do; a frame anchored at the partition's end (a bounded start and
UNBOUNDED FOLLOWING) is walked from the last row back, so it grows too. Any other
frame (a sliding one) is aggregated afresh from its first row, as Spark's sliding
frames are: the cost is the sum of the frames' widths.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ..support import late

numba = late.module("numba")  # loaded by the first variance computed: its import is slow

__all__ = ["FrameMoments", "frame_moments"]


class FrameMoments(NamedTuple):
    """Per row: how many valid values its frame holds and the sum of their squared
    deviations from the frame's mean (Spark's `n` and `m2`)."""

    count: np.ndarray  # float64, as Spark counts
    m2: np.ndarray


def frame_moments(values: np.ndarray, valid: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                  backward: bool) -> FrameMoments:
    """The moments of each row's frame `values[lo[i]..hi[i]]` (inclusive; empty where
    lo > hi), null values (`valid` false) skipped; `backward`: the frames share their
    last row within a partition, so the rows are visited from the last."""
    count = np.empty(len(lo), np.float64)
    m2 = np.empty(len(lo), np.float64)
    _kernel()(np.ascontiguousarray(values, np.float64), np.ascontiguousarray(valid, np.bool_),
              np.ascontiguousarray(lo, np.int64), np.ascontiguousarray(hi, np.int64),
              backward, count, m2)
    return FrameMoments(count, m2)


@functools.cache
def _kernel():
    """The loop, compiled once per process (and kept on disk by numba between them)."""
    return numba.njit(nogil=True, cache=True, error_model="numpy")(_moments)


def _moments(values, valid, lo, hi, backward, count_out, m2_out):  # pragma: no cover - compiled
    rows = len(lo)
    first, last = 0, -1  # the rows aggregated now: values[first..last]
    n = avg = m2 = 0.0
    for step in range(rows):
        i = rows - 1 - step if backward else step
        a, b = lo[i], hi[i]
        # the rows to add, in order: a frame that grows from the last one adds its new
        # rows; any other starts again from its first
        if a > b:
            n = avg = m2 = 0.0
            first, last = a, a - 1
            start, stop, step_by = 0, 0, 1
        elif not backward and a == first and b >= last:
            start, stop, step_by = last + 1, b + 1, 1
            last = b
        elif backward and b == last and a <= first:
            start, stop, step_by = first - 1, a - 1, -1
            first = a
        else:
            n = avg = m2 = 0.0
            start, stop, step_by = a, b + 1, 1
            first, last = a, b
        for j in range(start, stop, step_by):
            if valid[j]:
                n += 1.0
                delta = values[j] - avg
                delta_n = delta / n
                avg += delta_n
                m2 += delta * (delta - delta_n)
        count_out[i] = n
        m2_out[i] = m2
