"""Positions in an expression tree as a parent table, and `TreePath`, a path that shares its prefix.

A trace records statistics for every node it evaluated, keyed by the node's path
from the root. Held as tuples, the paths of a 10,000-deep tree add up to about
200 million integers, and a renderer that extends a tuple per child spends
quadratic time. Here a position is a row of a table (its parent, its index under
the parent, its depth), and a `TreePath` is a handle on such a row: it extends
by one index in constant time and memory, and within one table it compares and
hashes in constant time.

A `TreePath` is a sequence of ints and stands for the tuple of its indices: it
equals that tuple and hashes like it (the running state of CPython's tuple hash
is kept per row, so the hash costs nothing extra; on an interpreter whose tuple
hash differs, checked once at import, the hash is computed from the tuple).
Code that keyed statistics by tuples keeps working; code that walks a tree
should extend paths with `child(i)` rather than `path + (i,)`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["PathRuns", "TreePath", "TreePositions"]

_MASK = (1 << 64) - 1
_PRIME_1 = 11400714785074694791
_PRIME_2 = 14029467366897019727
_PRIME_5 = 2870177450012600261


def _hash_step(acc: int, item: int) -> int:
    acc = (acc + (hash(item) & _MASK) * _PRIME_2) & _MASK
    acc = ((acc << 31) | (acc >> 33)) & _MASK
    return (acc * _PRIME_1) & _MASK


def _hash_finish(acc: int, length: int) -> int:
    acc = (acc + (length ^ (_PRIME_5 ^ 3527539))) & _MASK
    if acc == _MASK:
        return 1546275796
    return acc - (1 << 64) if acc >= (1 << 63) else acc


def _same_as_tuple_hash() -> bool:
    """Whether the running hash above reproduces this interpreter's tuple hash."""
    if sys.hash_info.width != 64:
        return False
    for sample in [(), (0,), (1, 2, 3), (7,) * 40, tuple(range(300))]:
        acc = _PRIME_5
        for i in sample:
            acc = _hash_step(acc, i)
        if _hash_finish(acc, len(sample)) != hash(sample):
            return False
    return True


_TUPLE_HASH = _same_as_tuple_hash()


HEAD_STEPS = 6  # the first indices of a path each position keeps (a long path's head)


class PathRuns(NamedTuple):
    """A path as runs of one index: its last run, where that run began, how many runs."""

    index: int  # the index repeated by the last run (-1 at the root)
    length: int  # how many times
    before: int  # the position the last run starts below (-1 at the root)
    count: int  # runs in the whole path
    head: tuple[int, ...]  # its first HEAD_STEPS indices


class TreePositions:
    """Every position of one tree that anyone asked about, as a parent table.

    Position 0 is the root. `id(parent, rel)` finds or adds the position reached
    from `parent` by the indices in `rel` (safe from several threads: slices of
    one batch are evaluated in parallel); a parent always has a smaller id than
    its children.
    """

    __slots__ = ("_acc", "_below", "_depth", "_ids", "_index", "_lock", "_parent", "_runs")

    def __init__(self):
        self._parent: list[int] = [-1]
        self._index: list[int] = [-1]
        self._depth: list[int] = [0]
        self._acc: list[int] = [_PRIME_5]
        self._ids: dict[tuple[int, int], int] = {}
        self._lock = threading.Lock()
        self._runs: dict[int, PathRuns] = {0: PathRuns(-1, 0, -1, 0, ())}
        self._below: dict[tuple, int] = {}  # (parent, rel) -> id(parent, rel), as asked

    def __len__(self) -> int:
        return len(self._parent)

    @property
    def root(self) -> TreePath:
        return TreePath(self, 0)

    def id(self, parent: int | None, rel: tuple = ()) -> int:
        """The position `rel` below `parent` (None: below nothing, so `rel` is from the root)."""
        pos = 0 if parent is None else parent
        for i in rel:
            pos = self._step(pos, i)
        return pos

    def below(self, parent: int | None, rel: tuple) -> int:
        """`id(parent, rel)` in one lookup once asked: a traced evaluation asks it for every
        node of every slice."""
        found = self._below.get((parent, rel))
        if found is None:
            found = self._below[(parent, rel)] = self.id(parent, rel)
        return found

    def _step(self, parent: int, index: int) -> int:
        key = (parent, index)
        found = self._ids.get(key)
        if found is None:
            with self._lock:
                found = self._ids.get(key)
                if found is None:
                    found = len(self._parent)
                    self._parent.append(parent)
                    self._index.append(index)
                    self._depth.append(self._depth[parent] + 1)
                    self._acc.append(_hash_step(self._acc[parent], index))
                    self._ids[key] = found
        return found

    def find(self, parent: int, index: int) -> int | None:
        """The position below `parent` at `index`, if anyone asked about it."""
        return self._ids.get((parent, index))

    def path(self, pos: int) -> tuple[int, ...]:
        out = []
        while pos > 0:
            out.append(self._index[pos])
            pos = self._parent[pos]
        out.reverse()
        return tuple(out)

    def runs(self, pos: int) -> PathRuns:
        """The path to `pos` as runs of one index (`1*400/0`), known in constant time from
        its parent's: each position's is kept, so printing every position of a deep
        tree costs its size, not its size times its depth."""
        found = self._runs.get(pos)
        if found is not None:
            return found
        chain = []  # the positions above `pos` not yet summarized, deepest first
        while pos not in self._runs:
            chain.append(pos)
            pos = self._parent[pos]
        above = self._runs[pos]
        for pos in reversed(chain):
            index, parent = self._index[pos], self._parent[pos]
            head = above.head if len(above.head) >= HEAD_STEPS else above.head + (index,)
            if index == above.index:
                above = PathRuns(index, above.length + 1, above.before, above.count, head)
            else:
                above = PathRuns(index, 1, parent, above.count + 1, head)
            self._runs[pos] = above
        return above

    def at(self, pos: int) -> TreePath:
        return TreePath(self, pos)

    def of(self, path) -> TreePath:
        """The `TreePath` of `path` (a tuple or a `TreePath`) in this table."""
        if isinstance(path, TreePath) and path._table is self:
            return path
        return TreePath(self, self.id(None, tuple(path)))


class TreePath(Sequence):
    """A path from the root (indices into each node's arguments), sharing its prefix.

    Equal to, and hashed like, the tuple of its indices. Within one table,
    comparing, hashing, `len`, `parent` and `child` cost constant time; turning it
    into a tuple (iterating, indexing, slicing) costs its depth.
    """

    __slots__ = ("_pos", "_table")

    def __init__(self, table: TreePositions, pos: int):
        self._table = table
        self._pos = pos

    @property
    def table(self) -> TreePositions:
        return self._table

    @property
    def pos(self) -> int:
        return self._pos

    def child(self, index: int) -> TreePath:
        return TreePath(self._table, self._table._step(self._pos, index))

    @property
    def parent(self) -> TreePath | None:
        up = self._table._parent[self._pos]
        return None if up < 0 else TreePath(self._table, up)

    @property
    def last(self) -> int | None:
        """The index of this position under its parent (None at the root)."""
        return None if self._pos == 0 else self._table._index[self._pos]

    def ancestors(self):
        """This path and every path above it, deepest first."""
        path = self
        while path is not None:
            yield path
            path = path.parent

    def is_prefix_of(self, other: TreePath) -> bool:
        """Whether `other` lies at or below this path (both in one table: cost of the depth gap)."""
        other = self._table.of(other)
        gap = len(other) - len(self)
        if gap < 0:
            return False
        pos, parents = other._pos, self._table._parent
        for _ in range(gap):
            pos = parents[pos]
        return pos == self._pos

    def as_tuple(self) -> tuple[int, ...]:
        return self._table.path(self._pos)

    def __len__(self) -> int:
        return self._table._depth[self._pos]

    def __bool__(self) -> bool:
        return self._pos != 0

    def __iter__(self):
        return iter(self.as_tuple())

    def __getitem__(self, item):
        return self.as_tuple()[item]

    def __hash__(self) -> int:
        if _TUPLE_HASH:
            return _hash_finish(self._table._acc[self._pos], len(self))
        return hash(self.as_tuple())

    def __eq__(self, other) -> bool:
        if isinstance(other, TreePath):
            if other._table is self._table:
                return other._pos == self._pos
            return len(self) == len(other) and self.as_tuple() == other.as_tuple()
        if isinstance(other, tuple):
            return len(self) == len(other) and self.as_tuple() == other
        return NotImplemented

    def __lt__(self, other) -> bool:
        return self.as_tuple() < tuple(other)

    def __le__(self, other) -> bool:
        return self.as_tuple() <= tuple(other)

    def __gt__(self, other) -> bool:
        return self.as_tuple() > tuple(other)

    def __ge__(self, other) -> bool:
        return self.as_tuple() >= tuple(other)

    def __add__(self, other) -> tuple[int, ...]:
        return self.as_tuple() + tuple(other)

    def __radd__(self, other) -> tuple[int, ...]:
        return tuple(other) + self.as_tuple()

    def __repr__(self) -> str:
        return repr(self.as_tuple())

    def __reduce__(self):
        return (tuple, (self.as_tuple(),))

