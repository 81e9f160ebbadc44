"""The one timing rule the benchmark scripts share: the best of N runs.

The minimum is the run least disturbed by the rest of the machine, which is
what a ratio against a peer measured the same way should compare.
"""

from __future__ import annotations

import time


def best_of(fn, repeat: int) -> float:
    """Seconds of the fastest of `repeat` calls of `fn()`."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best
