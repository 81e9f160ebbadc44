"""A traced evaluation's node figures: plain numbers in lists, made into NodeStats once.

Every node of the tree records its figures once per morsel it runs on (and again
for each branch it runs in). Kept as an object per node per morsel and merged node
by node at the end, that bookkeeping cost a wide `case_when` (600 nodes, 8 morsels)
a fifth of its evaluation. Here a morsel adds its figures into lists indexed by
the node's position id, and the evaluation sums the morsels' lists with numpy:
the only Python work per node per morsel is the record itself.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from ..observe import NodeStats

__all__ = ["SliceTallies", "joined", "node_label", "node_stats"]

_WORDS = ("how", "why", "fused")


class SliceTallies:
    """The figures of every node over one morsel, indexed by position id; `order` lists
    the positions as first recorded."""

    __slots__ = ("calls", "elapsed", "fused", "how", "node", "order", "rows", "same", "used",
                 "why")

    def __init__(self, size: int):
        size = max(size, 1)
        self.node: list = [None] * size
        self.rows: list[int] = [0] * size
        self.used: list[int] = [0] * size
        self.elapsed: list[float] = [0.0] * size
        self.calls: list[int] = [0] * size
        self.how: list = [None] * size
        self.why: list = [None] * size
        self.fused: list = [None] * size
        self.order: list[int] = []
        # the records of nodes that ran together in a group (`add_same`), applied when the
        # figures are read (`settle`); -1 - i in `order` stands for the i-th one's members
        self.same: list[tuple] = []

    def grow(self, pos: int) -> None:
        """Room for position `pos` (positions are numbered as the tree is first walked)."""
        more = max(pos + 1, 2 * len(self.node)) - len(self.node)
        for name in ("node", *_WORDS):
            getattr(self, name).extend([None] * more)
        for name in ("rows", "used", "calls"):
            getattr(self, name).extend([0] * more)
        self.elapsed.extend([0.0] * more)

    def add(self, pos: int, node, rows: int, used: int, elapsed: float, calls: int,
            how: str, why: str, fused: str) -> None:
        if pos >= len(self.node):
            self.grow(pos)
        if self.node[pos] is None:
            self.node[pos] = node
            self.how[pos], self.why[pos], self.fused[pos] = how, why, fused
            self.order.append(pos)
        else:
            if how != self.how[pos]:
                self.how[pos] = joined(self.how[pos], how)
            if why != self.why[pos]:
                self.why[pos] = joined(self.why[pos], why)
            if fused != self.fused[pos]:
                self.fused[pos] = joined(self.fused[pos], fused)
        self.rows[pos] += rows
        self.used[pos] += used
        self.elapsed[pos] += elapsed
        self.calls[pos] += calls

    def add_same(self, members, last: int, figures: tuple, literal: tuple, fused: str) -> None:
        """The figures of nodes that ran together in one call of their group (no time,
        no call of their own): `members` are (position, node, is a literal), `last` the
        largest of those positions; `figures` and `literal` (rows, used, how, why) for
        the others and the literals; `fused` the others' mark. Kept as they are, added
        into the lists when the figures are read (`settle`): a wide group's hundreds of
        nodes cost every traced morsel a pass over them, most traces are never read. A
        node of a group runs only in it, once a morsel: its figures come from here alone."""
        self.same.append((members, last, figures, literal, fused))
        self.order.append(-len(self.same))

    def settle(self) -> None:
        """Add the groups' figures kept by `add_same` into the lists, in recording order."""
        if not self.same:
            return
        order, same = self.order, self.same
        self.order, self.same = [], []
        for pos in order:
            if pos >= 0:
                self.order.append(pos)
            else:
                self._add_same(*same[-1 - pos])

    def _add_same(self, members, last: int, figures: tuple, literal: tuple, fused: str) -> None:
        if last >= len(self.node):
            self.grow(last)
        nodes, hows, whys, marks = self.node, self.how, self.why, self.fused
        all_rows, all_used, order = self.rows, self.used, self.order
        for pos, node, is_literal in members:
            rows, used, how, why = literal if is_literal else figures
            mark = "" if is_literal else fused
            if nodes[pos] is None:
                nodes[pos] = node
                hows[pos], whys[pos], marks[pos] = how, why, mark
                order.append(pos)
            else:
                if how != hows[pos]:
                    hows[pos] = joined(hows[pos], how)
                if why != whys[pos]:
                    whys[pos] = joined(whys[pos], why)
                if mark != marks[pos]:
                    marks[pos] = joined(marks[pos], mark)
            all_rows[pos] += rows
            all_used[pos] += used


def node_stats(slices: list[tuple[SliceTallies, int]], path_of, labels: dict) -> list[NodeStats]:
    """One NodeStats per recorded node, from every morsel's tallies and the thread it ran
    on (in row order), in the order the nodes were first recorded; `path_of(pos)` gives a
    position's path, `labels` keeps each position's label from one evaluation to the next
    (the node at a position of one prepared tree is always the same)."""
    for t, _ in slices:
        t.settle()
    slices = [(t, thread) for t, thread in slices if t.order]
    if not slices:
        return []
    tallies = [t for t, _ in slices]
    if len(tallies) == 1:
        only = tallies[0]
        order = only.order
        rows, used, elapsed, calls = only.rows, only.used, only.elapsed, only.calls
        how, why, fused = only.how, only.why, only.fused
        nodes = only.node
        threads = None
    else:
        order = list(dict.fromkeys(chain.from_iterable(t.order for t in tallies)))
        size = max(len(t.node) for t in tallies)
        rows, used, calls = (_total(tallies, n, size, np.int64) for n in ("rows", "used", "calls"))
        elapsed = _total(tallies, "elapsed", size, np.float64)
        how, why, fused = (_words(tallies, name, size) for name in _WORDS)
        later = order[len(tallies[0].order):]  # positions the first morsel did not record
        nodes = _first_known(tallies, "node", size, later)
        threads = _threads(slices, size)
    for pos in order:
        if pos not in labels:
            labels[pos] = node_label(nodes[pos])
    return [NodeStats(path=path_of(pos), label=labels[pos], rows=rows[pos],
                      out_type=nodes[pos].type, elapsed=elapsed[pos], calls=calls[pos],
                      used_rows=used[pos], how=how[pos], why=why[pos], fused=fused[pos],
                      threads=1 if threads is None else threads[pos])
            for pos in order]


def _total(tallies: list[SliceTallies], name: str, size: int, dtype) -> list:
    """A figure summed over the morsels, per position (as Python numbers): in numpy for a
    large tree, in Python for a small one (where numpy's fixed cost per call would rule)."""
    if size * len(tallies) <= _SMALL:
        lists = [getattr(t, name) for t in tallies]
        if any(len(v) != size for v in lists):
            lists = [_padded(v, size, 0) for v in lists]
        return [sum(column) for column in zip(*lists)]
    out = np.zeros(size, dtype=dtype)
    for t in tallies:
        values = getattr(t, name)
        out[:len(values)] += np.asarray(values, dtype=dtype)
    return out.tolist()


_SMALL = 4096  # positions times morsels up to which Python sums faster than numpy


def _first_known(tallies: list[SliceTallies], name: str, size: int, later: list[int]) -> list:
    """Per position, the value the first morsel that recorded it gave (`later`: the
    positions the first morsel did not record)."""
    out = getattr(tallies[0], name)
    if not later:
        return out
    out = _padded(out, size)
    for pos in later:
        out[pos] = next(getattr(t, name)[pos] for t in tallies
                        if pos < len(t.node) and t.node[pos] is not None)
    return out


def _words(tallies: list[SliceTallies], name: str, size: int) -> list:
    """`how`, `why` or `fused` per position over the morsels: each word once, in the order
    the morsels said it (morsels that agree, the usual case, cost one list compare)."""
    first = getattr(tallies[0], name)
    merged = first if len(first) == size else _padded(first, size)
    for t in tallies[1:]:
        values = getattr(t, name)
        if values == merged or values == merged[:len(values)]:
            continue
        if merged is first:
            merged = list(first)
        for pos in t.order:
            word = values[pos]
            if word != merged[pos]:
                merged[pos] = word if merged[pos] is None else joined(merged[pos], word)
    return merged


def _threads(slices: list[tuple[SliceTallies, int]], size: int) -> list[int]:
    """Per position, over how many threads its morsels ran."""
    by_thread: dict[int, set] = {}
    for t, thread in slices:
        by_thread.setdefault(thread, set()).update(t.order)
    if len(by_thread) == 1:
        return [1] * size
    out = [0] * size
    for seen in by_thread.values():
        for pos in seen:
            out[pos] += 1
    return out


def _padded(values: list, size: int, fill=None) -> list:
    return list(values) + [fill] * (size - len(values))


def joined(seen: str, new: str) -> str:
    """Distinct words in the order first seen (morsels of one node may run differently)."""
    if not new or new == seen:
        return seen
    parts = seen.split(" / ") if seen else []
    return seen if new in parts else " / ".join(parts + [new])


def node_label(node) -> str:
    """A short label: a call's name, a field's name, a literal's text."""
    if node.is_call:
        return node.name
    return node.to_string()
