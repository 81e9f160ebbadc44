"""The sample a large traced evaluation keeps: its first rows, the first rows of every
branch of every special form, and the rows around a failing one, of the columns the
tree reads and of the result.

It is taken when the trace is first read, or when the caller lets go of its data
(`support.when_let_go`): until then the sample holds its own handles on the caller's
columns and result (new objects over the same buffers: nothing is copied), so a
traced evaluation whose trace is never read takes no rows at all, and one read later
shows the same rows as if taken at once (the arrays are immutable). Taken, it lets the
handles go.

When the caller lets the result go first, its handle is let go too, and the result's
sampled rows are computed again, when read, from the sampled rows of the columns: a
scalar function's value at a row depends on that row alone, so they are the rows the
result held. A tree with an impure call (`random`) cannot be computed again: its
sample is taken when its result goes.
"""

from __future__ import annotations

from collections.abc import Callable
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
    result: Any  # those rows of the result (a scalar result as it is); _AGAIN: not taken


_AGAIN = object()  # the result was let go: its rows are computed again from the data's


class EvaluationSample:
    """The sample of one evaluation over `data` (the columns it reads) giving `value`,
    its branches as the morsels recorded them (`recorded`), taken on first read.

    `value_of(sampled_data)` computes the result again over sampled rows of the data
    (None: it cannot be, the result is sampled when the caller lets it go)."""

    __slots__ = ("__weakref__", "_data", "_failed_row", "_recorded", "_sizes", "_taken",
                 "_value", "_value_of")

    def __init__(self, data, value, recorded: list, failed_row: int | None,
                 sizes: SampleSizes, value_of: Callable[[Any], Any] | None = None):
        self._data = data.select(range(data.num_columns))  # a handle of our own
        self._value = _handle(value)
        self._value_of = value_of
        self._recorded = recorded
        self._failed_row = failed_row
        self._sizes = sizes
        self._taken: SampleTaken | None = None

    def watch(self, data, result) -> EvaluationSample:
        """Take the sample when the caller lets `data` go; when it lets `result` go,
        let the handle on it go too (or, if it cannot be computed again, take the
        sample then)."""
        when_let_go((data,), [self], EvaluationSample.taken)
        when_let_go((result,), [self], EvaluationSample._result_let_go)
        return self

    def _result_let_go(self) -> None:
        if self._value_of is None:
            self.taken()
        elif self._taken is None:
            self._value = _AGAIN

    def taken(self) -> SampleTaken:
        if self._taken is None:
            total, sizes = self._data.num_rows, self._sizes
            firsts = first_rows_of_branches(self._recorded, sizes.per_branch,
                                            min(total, sizes.first))
            rows = sample_rows(total, firsts, self._failed_row, sizes)
            if self._value is _AGAIN:
                data, result = take_sorted(self._data, rows), _AGAIN
            else:
                data, result = _sampled(self._data, self._value, rows)
            self._taken = SampleTaken(rows, data, result)
            self._data = self._value = self._recorded = None
        return self._taken

    def rows(self) -> pa.Array:
        return self.taken().rows

    def data(self):
        return self.taken().data

    def result(self):
        taken = self.taken()
        if taken.result is _AGAIN:
            taken = self._taken = taken._replace(result=self._value_of(taken.data))
            self._value_of = None
        return taken.result


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
