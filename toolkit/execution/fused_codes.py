"""A traced fused group's branch codes, written when the trace is read.

A traced group's loop writes, per row, the branch each of its forms took
(`fused_branches`). On a cheap group, an and/or chain above all, writing them costs up
to half the loop again (a compare and a select per term, a byte stored per row), on
every traced evaluation, and most traces are never read. A group over the morsel's own
columns runs its untraced loop instead and keeps the columns (slices of the caller's
data: nothing is copied); a loop writing the codes alone (`fused_kernels.codes_loop`:
the forms' conditions, not their values) runs over them when the codes are first
read: over the first rows for a sample, over all of them for a branch's rows. The
same conditions over the same immutable columns give the same codes.

The columns are the caller's own, so keeping them costs nothing while the caller keeps
its data; once it lets the data go, the codes are made and the columns let go too
(`support.when_let_go`): a trace kept longer than its data holds a byte a row, as if the
loop had written them.

A group under a selection reads columns gathered for it; keeping those would hold
eight bytes a row or more where the codes hold one, so its loop writes the codes as
it runs.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .fused_kernels import run_kernel

__all__ = ["LazyCodes", "code_matrix", "sliced"]

# a prefix of at least this share of the rows is made as the whole, and kept
_WHOLE_SHARE = 4
_FIRST_ROWS = 4096  # the fewest rows a prefix is made for


class LazyCodes:
    """The codes matrix (code rows x `rows`, uint8) `kernel` writes over the group's
    inputs (`arguments(start, stop)`: the loop's value type and arguments over those rows),
    made on read: the first rows alone for a prefix, and all of them once (then the
    inputs are let go)."""

    __slots__ = ("__weakref__", "_head", "_made", "arguments", "kernel", "rows")

    def __init__(self, kernel, arguments, rows: int):
        self.kernel = kernel  # the loop writing the codes alone (compiled already)
        self.arguments = arguments  # (first rows) -> the loop's arguments over them
        self.rows = rows
        self._made: np.ndarray | None = None
        self._head: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return (self.kernel.codes, self.rows)

    def whole(self) -> np.ndarray:
        if self._made is None:
            self._made = self._run(0, self.rows)
            self.arguments = self._head = None
        return self._made

    def head(self, n: int) -> np.ndarray:
        """The codes of the first `n` rows (made for those alone when few, the rows made
        before kept: a sample reads a few more each time)."""
        n = min(n, self.rows)
        if self._made is not None:
            return self._made[:, :n]
        have = 0 if self._head is None else self._head.shape[1]
        if have >= n:
            return self._head[:, :n]
        if n * _WHOLE_SHARE >= self.rows:
            return self.whole()[:, :n]
        more = self._run(have, min(self.rows, max(n, have + _FIRST_ROWS)))
        self._head = more if self._head is None else np.concatenate((self._head, more), axis=1)
        return self._head[:, :n]

    def _run(self, start: int, stop: int) -> np.ndarray:
        dtype, arguments = self.arguments(start, stop)
        return run_kernel(self.kernel, stop - start, dtype, arguments).codes


def code_matrix(codes, rows: int) -> np.ndarray:
    """The first `rows` columns of a codes matrix, written (numpy) or made on read."""
    return codes.head(rows) if isinstance(codes, LazyCodes) else codes[:, :rows]


def sliced(value, start: int, stop: int):
    """An input's rows `start` to `stop` (a literal as it is)."""
    return value.slice(start, stop - start) if isinstance(value, pa.Array) else value

