"""Cutting the data into pieces and morsels, and evaluating pieces on a thread pool.

Two sizes, for two reasons:

- A *piece* (at most PIECE_ROWS rows of one input chunk) is the unit of
  parallel work. pyarrow's kernels release the GIL, so pieces of one Table
  evaluate in parallel on plain threads. Small inputs never touch the pool:
  below PARALLEL_MIN_ROWS the pieces run in the caller's thread, in order.
- A *morsel* (a run of rows of a piece, sized per tree by `morsel_size.py`)
  is the unit of evaluation: the whole tree runs over one morsel before the
  next, so a chain of kernels passes 2 MB intermediates through the cache
  instead of 8 MB ones through memory, as Acero's batches do. The worker
  concatenates its morsels' results into the piece's result while they are
  still in its cache, in parallel with the other workers; only a chunk bigger
  than a piece is concatenated again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa

__all__ = ["MORSEL_ROWS", "PARALLEL_MIN_ROWS", "PIECE_ROWS", "Piece", "morsels", "run_pieces",
           "split"]

PIECE_ROWS = 1 << 20
PARALLEL_MIN_ROWS = 131_072
MORSEL_ROWS: int | None = None  # a fixed morsel size over the per-tree rule (tests, benchmarks)

_POOL: ThreadPoolExecutor | None = None


@dataclass
class Piece:
    """A slice of the data: which output chunk it belongs to and where it starts."""

    chunk: int
    offset: int  # first row, counted over the whole input
    batch: pa.RecordBatch


def split(data, piece_rows: int | None = None) -> list[Piece]:
    """The pieces to evaluate; a Table's chunk boundaries are kept as output chunks."""
    batches = [data] if isinstance(data, pa.RecordBatch) else data.to_batches()
    pieces: list[Piece] = []
    offset = 0
    for chunk, batch in enumerate(batches):
        for start, piece in _slices(batch, piece_rows or PIECE_ROWS):
            pieces.append(Piece(chunk, offset + start, piece))
        offset += batch.num_rows
    return pieces


def morsels(piece: Piece, morsel_rows: int | None) -> Iterator[tuple[int, pa.RecordBatch]]:
    """(first row over the whole input, batch) for each morsel of the piece, in order.

    `morsel_rows` None: the piece is one morsel. MORSEL_ROWS, when set, wins.
    """
    for start, morsel in _slices(piece.batch, MORSEL_ROWS or morsel_rows):
        yield piece.offset + start, morsel


def _slices(batch: pa.RecordBatch, rows: int | None) -> Iterator[tuple[int, pa.RecordBatch]]:
    """(first row, slice) for consecutive runs of at most `rows` rows (None: the whole batch)."""
    n = batch.num_rows
    if rows is None or n <= rows:
        yield 0, batch
        return
    for start in range(0, n, rows):
        yield start, batch.slice(start, rows)


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
