"""Whether a tree's morsels run on the pool's threads or in the caller's thread alone,
chosen by measuring both.

Kernels and compiled loops release the GIL, so morsels run in parallel on threads; but
each morsel also runs Python (the tree's walk, the arrays it makes), which holds the
GIL, and every kernel call hands the GIL to the other thread and back. Where a morsel's
kernels are short, the threads spend more time handing the GIL over than working: over
TPC-H's lineitem (46 row groups of 130,000 rows) a date comparison took 3.6 ms on two
threads against 1.8 ms on one, `l_returnflag = 'R' and l_linestatus = 'F'` 12.4 ms
against 6.7; where they are long (a LIKE, a string case_when, arithmetic on doubles)
two threads take half to two thirds of the time. Which way a tree goes depends on the
tree, the data's chunks and the machine, so it is measured, per prepared tree and way of
running it (lazy or eager, fused or not, traced or not), in seconds per row: its first
evaluation that could use the pool uses it and is not counted (it pays for starting the
pool's threads, for pages touched for the first time, for loops compiled), the second
runs in the caller's thread, the third on the pool; then the faster way runs, the other
tried again at the 4th, 8th and 16th evaluation and every 32nd after (the load of a
shared machine changes). The values are the same either way.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable

__all__ = ["RECHECKS", "RECHECK_EVERY", "TRIALS", "ThreadChoice"]

TRIALS = 3  # the first evaluations: the pool (not counted), the caller's thread, the pool
RECHECKS = frozenset({4, 8, 16})  # the other way tried again at these evaluations,
RECHECK_EVERY = 32  # and at every 32nd
KEPT = 3  # each way's last measurements: the best of them stands for it


class ThreadChoice:
    """One prepared tree's measurements, for each way of running it (`key`). Unlocked:
    evaluations of one tree on several threads at once may miscount a run or lose a
    measurement, which only delays the choice."""

    __slots__ = ("_ways",)

    def __init__(self):
        self._ways: dict[Hashable, _Measured] = {}

    def pooled(self, key: Hashable) -> bool:
        """Whether the next evaluation run the `key` way uses the pool."""
        measured = self._ways.get(key)
        if measured is None:
            measured = self._ways.setdefault(key, _Measured())
        return measured.pooled()

    def record(self, key: Hashable, pooled: bool, rows: int, seconds: float) -> None:
        """An evaluation of `rows` rows run the `key` way took `seconds` (wall time)."""
        measured = self._ways[key]
        if measured.warm and rows > 0:
            measured.seconds_per_row[pooled].append(seconds / rows)
        measured.warm = True


class _Measured:
    __slots__ = ("runs", "seconds_per_row", "warm")

    def __init__(self):
        self.runs = 0
        self.warm = False  # the first evaluation, a warm-up, is not counted
        self.seconds_per_row = {True: deque(maxlen=KEPT), False: deque(maxlen=KEPT)}

    def pooled(self) -> bool:
        run = self.runs
        self.runs = run + 1
        if run < TRIALS:
            return run != 1
        best = {way: min(kept, default=math.inf) for way, kept in self.seconds_per_row.items()}
        faster = best[True] <= best[False]
        again = run in RECHECKS or run % RECHECK_EVERY == 0
        return not faster if again else faster
