"""The one timing rule the benchmark scripts share: the best of N runs.

The minimum is the run least disturbed by the rest of the machine, which is
what a ratio against a peer measured the same way should compare. Peers are
best timed interleaved (`best_of_each`), so a slow stretch or a warm-up hits
both sides alike.
"""

from __future__ import annotations

import random
import time


def best_of(fn, repeat: int) -> float:
    """Seconds of the fastest of `repeat` calls of `fn()`."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def best_of_each(fns: list, repeat: int, shuffle: bool = False,
                 clock=time.perf_counter) -> list[float]:
    """Seconds of the fastest call of each function, the calls interleaved round by round.

    `shuffle`: each round runs the functions in a new random order (seeded, so runs
    repeat), so that none always runs first (the first call of a round was measured
    ~10% slower, whichever engine it was) and none always follows the same peer (on a
    1,000-row batch, the call right after DataFusion or DuckDB, whose thread pools
    had just run, took twice as long: merely rotating the start kept each engine's
    predecessor fixed). `clock=time.process_time`: CPU seconds of the whole process (every
    thread's), the work a call costs however loaded the machine is.
    """
    best = [float("inf")] * len(fns)
    order = list(range(len(fns)))
    rng = random.Random(len(fns) * 7919 + repeat)
    for _ in range(repeat):
        if shuffle:
            rng.shuffle(order)
        for i in order:
            fn = fns[i]
            started = clock()
            fn()
            best[i] = min(best[i], clock() - started)
    return best
