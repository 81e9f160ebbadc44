"""Cutting the data into morsels and evaluating them on a thread pool.

A *morsel* (a run of rows of one input chunk) is the unit of work: the whole
tree runs over one morsel before the next, so a chain of kernels passes 2 MB
intermediates through the cache instead of 8 MB ones through memory, as
Acero's batches do. Its size is chosen per tree by `morsel_size.py`; trees
that gain nothing from cutting run in pieces of at most PIECE_ROWS rows, so
that a large input still spreads over the cores.

pyarrow's kernels release the GIL, so morsels evaluate in parallel on plain
threads, every core taking the next morsel as it finishes one: a single large
RecordBatch uses every core, and a core the hypervisor slows down takes fewer
morsels. The caller's thread is one of them, and each of the others is handed one
task that takes morsels until none is left (never a task per morsel). Small inputs never touch the pool: below PARALLEL_MIN_ROWS the
morsels run in the caller's thread, in order (as do those of a tree that runs faster
so: `thread_choice.py`), and so does everything inside `serial()`: a caller that is already one of several parallel workers (a Spark
task in engine mode, one per core) would only oversubscribe the cores; two
such processes each splitting 262,144-row batches over two threads ran 20%
slower than with one thread each.

Output chunks are the caller's chunks. The thread that finishes the last
morsel of a chunk joins that chunk's results, in parallel with the others
still evaluating; the morsels' own arrays are dropped as soon as they are
joined. Once a morsel fails, morsels after it are not started: only the first
failure in row order is reported, and it cannot come from later rows.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import pyarrow as pa

__all__ = ["MORSEL_ROWS", "PARALLEL_MIN_ROWS", "PIECE_ROWS", "WORKERS", "Morsel", "Outcome",
           "may_pool", "run_morsels", "serial", "split"]

PIECE_ROWS = 1 << 20  # the largest morsel: a tree not cut still spreads over the cores
PARALLEL_MIN_ROWS = 131_072
WORKERS = os.cpu_count() or 2
MORSEL_ROWS: int | None = None  # a fixed morsel size over the per-tree rule (tests, benchmarks)

_POOL: ThreadPoolExecutor | None = None
_LOCAL = threading.local()  # .depth: how many serial() blocks this thread is in


@contextmanager
def serial() -> Iterator[None]:
    """Evaluate in the caller's thread only, for the duration of the block (this thread)."""
    _LOCAL.depth = getattr(_LOCAL, "depth", 0) + 1
    try:
        yield
    finally:
        _LOCAL.depth -= 1


def _to_pool(total_rows: int) -> bool:
    return total_rows >= PARALLEL_MIN_ROWS and not getattr(_LOCAL, "depth", 0)


@dataclass
class Morsel:
    """A slice of the data: which output chunk it belongs to and where it starts."""

    chunk: int
    offset: int  # first row, counted over the whole input
    batch: pa.RecordBatch


@dataclass
class Outcome:
    """What evaluating one morsel gave: its values (until joined), its context, or its error."""

    value: object
    context: object
    error: Exception | None = None


def split(data, morsel_rows: int | None = None) -> list[Morsel]:
    """The morsels of `data`, in row order; none spans two chunks of a Table.

    `morsel_rows` None (a tree that gains nothing from cutting): pieces of
    PIECE_ROWS. A cut tree over input that goes to the pool but would make
    fewer morsels than there are workers (a 262,144-row batch of Spark's engine
    mode) is cut into one morsel per worker instead, so every core gets a
    share; an uncut one is not (a kernel such as `utf8_upper` costs more in two
    halves than whole). MORSEL_ROWS, when set, wins.
    """
    if morsel_rows is None:
        rows = PIECE_ROWS
    else:
        rows = min(morsel_rows, PIECE_ROWS)
        if _to_pool(data.num_rows):
            rows = min(rows, -(-data.num_rows // WORKERS))
    rows = MORSEL_ROWS or rows
    batches = [data] if isinstance(data, pa.RecordBatch) else data.to_batches()
    out: list[Morsel] = []
    offset = 0
    for chunk, batch in enumerate(batches):
        n = batch.num_rows
        if n <= rows:
            out.append(Morsel(chunk, offset, batch))
        else:
            out.extend(Morsel(chunk, offset + start, batch.slice(start, rows))
                       for start in range(0, n, rows))
        offset += n
    return out


def may_pool(morsels: list[Morsel], total_rows: int) -> bool:
    """Whether these morsels may run on the pool (several, enough rows, not serial())."""
    return len(morsels) > 1 and _to_pool(total_rows)


def run_morsels(work: Callable[[Morsel], Outcome], morsels: list[Morsel], total_rows: int,
                join: Callable[[list], object], buffer: Callable[[int], object] | None = None,
                pooled: bool = True) -> tuple[list[Outcome | None], list]:
    """(each morsel's Outcome, None where it was not run; each chunk's joined value).

    `join(values)` makes one chunk's value from its morsels' values, in order.
    `buffer(rows)`, when given, may return a `ChunkBuffer` for a chunk of several
    morsels: each morsel's value is then written into it as soon as the morsel
    finishes (and dropped), instead of all of them waiting to be joined.
    A chunk with a failed or skipped morsel is not joined (its entry is None).
    `pooled=False` keeps every morsel in the caller's thread.
    """
    run = _Run(work, morsels, join, buffer)
    if pooled and may_pool(morsels, total_rows):
        _drained(run, len(morsels))
    else:
        for i in range(len(morsels)):
            run.one(i)
    return run.outcomes, run.chunks


def _drained(run: _Run, count: int) -> None:
    """Every morsel run by WORKERS threads, the caller's among them, each taking the next
    morsel in row order as it finishes one: one task per thread, not one per morsel (a
    table of 46 row groups handed each to the pool spent as long waking threads as a
    comparison spent on its rows)."""
    claim = itertools.count()

    def drain() -> None:
        while (i := next(claim)) < count:  # next() on a count is atomic
            run.one(i)

    helpers = [_pool().submit(drain) for _ in range(min(WORKERS, count) - 1)]
    try:
        drain()
    finally:
        for helper in helpers:
            if not helper.cancel():  # one that never started has nothing left to take
                helper.result()


class _Run:
    """The shared state of one `run_morsels`: outcomes, chunks left to finish, first failure."""

    def __init__(self, work, morsels: list[Morsel], join, buffer=None):
        self.work, self.morsels, self.join = work, morsels, join
        self.outcomes: list[Outcome | None] = [None] * len(morsels)
        # morsels come in row order, every chunk has at least one: its morsels are one run
        self.spans: list[tuple[int, int]] = []  # (first, stop) morsel index of each chunk
        for i, m in enumerate(morsels):
            if m.chunk == len(self.spans):
                self.spans.append((i, i + 1))
            else:
                self.spans[-1] = (self.spans[-1][0], i + 1)
        self.chunks: list = [None] * len(self.spans)
        self.buffers: list = [None] * len(self.spans)
        if buffer is not None:
            for c, (first, stop) in enumerate(self.spans):
                if stop - first > 1:
                    last = morsels[stop - 1]
                    rows = last.offset + last.batch.num_rows - morsels[first].offset
                    self.buffers[c] = buffer(rows)
        self.left = [stop - first for first, stop in self.spans]  # morsels not finished yet
        self.failed_at = len(morsels)  # the first failed morsel so far
        self.lock = threading.Lock()

    def one(self, i: int) -> None:
        morsel = self.morsels[i]
        # an earlier failure makes this morsel's result moot
        outcome = self.work(morsel) if i < self.failed_at else None
        target = self.buffers[morsel.chunk]
        if target is not None and outcome is not None and outcome.error is None:
            start = morsel.offset - self.morsels[self.spans[morsel.chunk][0]].offset
            target.write(start, outcome.value)
            outcome.value = _WRITTEN  # its rows are in the chunk's buffer: the array can go
        self.outcomes[i] = outcome
        with self.lock:
            if outcome is not None and outcome.error is not None:
                self.failed_at = min(self.failed_at, i)
            self.left[morsel.chunk] -= 1
            last = self.left[morsel.chunk] == 0
        if last:
            self._join(morsel.chunk)

    def _join(self, chunk: int) -> None:
        first, stop = self.spans[chunk]
        mine = self.outcomes[first:stop]
        if any(o is None or o.error is not None for o in mine):
            return
        values = [o.value for o in mine]
        if self.buffers[chunk] is not None:
            self.chunks[chunk] = self.buffers[chunk].finish()
            self.buffers[chunk] = None
        else:
            self.chunks[chunk] = values[0] if len(values) == 1 else self.join(values)
        for o in mine:
            o.value = None  # joined: the morsel's own array can go


_WRITTEN = object()  # a morsel value already copied into its chunk's buffer


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=WORKERS,
                                   thread_name_prefix="exprscope-eval")
    return _POOL
