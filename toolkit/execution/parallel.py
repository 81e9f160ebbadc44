"""Cutting the data into slices (morsels) and evaluating them on a thread pool.

pyarrow's kernels release the GIL, so slices of one Table evaluate in parallel
on plain threads. Slices also keep each kernel's working set small enough to
stay in cache across a chain of kernels, as Acero's batches do. Small inputs
never touch the pool: below PARALLEL_MIN_ROWS the slices run in the caller's
thread, in order.

Slices are at most MORSEL_ROWS rows; a bigger chunk is cut and its slices
concatenated back, which costs one copy of the result, so slices are large
(measured on 1M-10M rows, 2 shared cores: 16K slices lose to Python overhead,
256K and 1M perform alike on kernels, and 1M avoids most re-concatenation).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa

__all__ = ["MORSEL_ROWS", "PARALLEL_MIN_ROWS", "Piece", "run_pieces", "split"]

MORSEL_ROWS = 1 << 20
PARALLEL_MIN_ROWS = 131_072

_POOL: ThreadPoolExecutor | None = None


@dataclass
class Piece:
    """A slice of the data: which output chunk it belongs to and where it starts."""

    chunk: int
    offset: int  # first row, counted over the whole input
    batch: pa.RecordBatch


def split(data, morsel_rows: int | None = None) -> list[Piece]:
    """The slices to evaluate; a Table's chunk boundaries are kept as output chunks."""
    morsel_rows = morsel_rows or MORSEL_ROWS
    batches = [data] if isinstance(data, pa.RecordBatch) else data.to_batches()
    pieces: list[Piece] = []
    offset = 0
    for chunk, batch in enumerate(batches):
        n = batch.num_rows
        if n <= morsel_rows:
            pieces.append(Piece(chunk, offset, batch))
        else:
            for start in range(0, n, morsel_rows):
                pieces.append(Piece(chunk, offset + start, batch.slice(start, morsel_rows)))
        offset += n
    return pieces


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=os.cpu_count() or 2,
                                   thread_name_prefix="exprscope-eval")
    return _POOL


def run_pieces(work: Callable[[Piece], object], pieces: list[Piece], total_rows: int,
               failed: Callable[[object], bool] = lambda result: False) -> list:
    """`work(piece)` for the pieces, in order; in parallel when the input is large.

    In the caller's thread, the first result that `failed` stops the run.
    """
    if len(pieces) > 1 and total_rows >= PARALLEL_MIN_ROWS:
        return list(_pool().map(work, pieces))
    results = []
    for piece in pieces:
        results.append(work(piece))
        if failed(results[-1]):
            break
    return results
