"""The sample a large traced evaluation keeps: its first rows, the first rows of every
branch of every special form, and the rows around a failing one, of the columns the
tree reads and of the result.

It is taken when the trace is first read, or when the caller lets go of its data or
its result, whichever comes first (`support.when_let_go`): until then the sample holds
its own handles on the caller's columns and result (new objects over the same
buffers: nothing is copied), so a traced evaluation whose trace is never read takes
no rows at all, and one read later shows the same rows as if taken at once (the
arrays are immutable). Taken, it lets the handles go.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from ..support.when_let_go import when_let_go
from .gather_scatter import take_sorted
from .recorded_branches import first_rows_of_branches

__all__ = ["EvaluationSample", "SampleSizes", "sample_rows"]

_ARRAYS = (pa.Array, pa.ChunkedArray)


class SampleSizes(NamedTuple):
    """How many rows a sample keeps: the first ones, each branch's first ones, and the
    rows on each side of a failing one."""

    first: int
    per_branch: int
    around_error: int


class SampleTaken(NamedTuple):
    rows: pa.Array  # the batch rows kept (sorted, distinct int64)
    data: Any  # those rows of the columns the tree reads
    result: Any  # those rows of the result (a scalar result as it is)


class EvaluationSample:
    """The sample of one evaluation over `data` (the columns it reads) giving `value`,
    its branches as the morsels recorded them (`recorded`), taken on first read."""

    __slots__ = ("__weakref__", "_data", "_failed_row", "_recorded", "_sizes", "_taken",
                 "_value")

    def __init__(self, data, value, recorded: list, failed_row: int | None,
                 sizes: SampleSizes, owners=()):
        self._data = data.select(range(data.num_columns))  # a handle of our own
        self._value = _handle(value)
        self._recorded = recorded
        self._failed_row = failed_row
        self._sizes = sizes
        self._taken: SampleTaken | None = None
        when_let_go(owners, [self], EvaluationSample.taken)

    def taken(self) -> SampleTaken:
        if self._taken is None:
            total, sizes = self._data.num_rows, self._sizes
            firsts = first_rows_of_branches(self._recorded, sizes.per_branch,
                                            min(total, sizes.first))
            rows = sample_rows(total, firsts, self._failed_row, sizes)
            data, result = _sampled(self._data, self._value, rows)
            self._taken = SampleTaken(rows, data, result)
            self._data = self._value = self._recorded = None
        return self._taken

    def rows(self) -> pa.Array:
        return self.taken().rows

    def data(self):
        return self.taken().data

    def result(self):
        return self.taken().result


def _handle(value):
    """A new object over the same buffers as `value` (the caller's object can be let go
    while this one lives); anything but an array as it is."""
    if isinstance(value, pa.ChunkedArray):
        return pa.chunked_array(value.chunks, type=value.type)
    if isinstance(value, pa.Array):
        return value.slice(0)
    return value


def sample_rows(num_rows: int, firsts: list[np.ndarray], failed_row: int | None,
                sizes: SampleSizes) -> pa.Array:
    """The rows a large evaluation keeps (sorted, distinct int64): an honest sample.

    The first rows, the first rows of every branch of every special form (`firsts`,
    so each branch is seen at work), and the rows around the failing one.
    """
    first = pa.arange(0, min(num_rows, sizes.first))  # int64
    parts = list(firsts)
    if failed_row is not None and 0 <= failed_row < num_rows:
        low = max(0, failed_row - sizes.around_error)
        parts.append(np.arange(low, min(num_rows, failed_row + sizes.around_error + 1)))
    if not parts:  # every branch's first rows are among the first rows
        return first
    rows = np.sort(np.concatenate([first.to_numpy(), *parts]).astype(np.int64, copy=False))
    if len(rows) > 1:  # distinct: np.unique hashes, several times slower on a few hundred
        rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]
    return pa.array(rows, pa.int64())


def _sampled(data, value, rows):
    """The sample's rows of the data and of the result (a scalar result as it is), with
    one `take` of both side by side: Arrow's fixed cost per `take` call is most of what a
    sample of a few hundred rows costs."""
    if not isinstance(value, _ARRAYS) or len(value) != data.num_rows:
        return take_sorted(data, rows), \
            take_sorted(value, rows) if isinstance(value, _ARRAYS) else value
    taken = take_sorted(data.append_column("", value), rows)
    return taken.select(range(data.num_columns)), taken.column(data.num_columns)
