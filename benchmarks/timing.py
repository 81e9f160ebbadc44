"""The one timing rule the benchmark scripts share: the best of N runs.

The minimum is the run least disturbed by the rest of the machine, which is
what a ratio against a peer measured the same way should compare. Peers are
best timed interleaved (`best_of_each`), so a slow stretch or a warm-up hits
both sides alike.
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


def best_of_each(fns: list, repeat: int, rotate: bool = False) -> list[float]:
    """Seconds of the fastest call of each function, the calls interleaved round by round.

    `rotate`: each round starts with the next function, so none always runs first (the
    first call of a round was measured ~10% slower, whichever engine it was).
    """
    best = [float("inf")] * len(fns)
    for round_ in range(repeat):
        start = round_ % len(fns) if rotate else 0
        for i in [*range(start, len(fns)), *range(start)]:
            fn = fns[i]
            started = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - started)
    return best
