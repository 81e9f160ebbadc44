"""The observer protocol: how the engine tells anyone listening what it did.

The engine never imports the tracer or any UI. It builds small event records
(defined here) and hands them to the observers that are active: one passed in
explicitly (`optimize(..., observer=obs)`) and any installed for a block of code
with `observing(obs)` (a context variable; `toolkit.trace()` uses it). When no
observer is active nothing is built, so untraced work pays almost nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .rewrite import RuleApplied
from .rewrite.positions import TreePath, TreePositions

__all__ = [
    "FUSED_MEMBER",
    "BranchSelection",
    "Deferred",
    "ErrorFacts",
    "EvalEvent",
    "InvariantCheck",
    "MaskOnRead",
    "NodeStats",
    "Observer",
    "PassEvent",
    "PlanRuleEvent",
    "RuleApplied",
    "active_observers",
    "notify",
    "observing",
    "silenced",
]

Path = tuple[int, ...]


@dataclass(frozen=True)
class PassEvent:
    name: str
    before: Any
    after: Any
    changed: bool
    rewrites: tuple[RuleApplied, ...] = ()
    elapsed: float = 0.0


FUSED_MEMBER = "in the fused group above"  # NodeStats.fused of a group's nodes but its top


@dataclass
class NodeStats:
    """One node of an evaluation: the rows it ran on and the rows whose value was used.

    `rows` counts the rows computed; `used_rows` the rows whose value reached the
    result (a lazy branch's root: exactly its selection; never more than its
    parent's). They differ when a branch ran over more rows than it was selected
    for: `how` is "selected" (gathered, computed, scattered back), "dense" (computed
    on every row of its domain, the unused ones dropped), "masked" (the same, with
    the unselected rows made null first so no failing kernel sees them), "literal"
    (one value standing for the rows it is used on: nothing computed) or "all
    rows" (no special form above it); `why` says what decided it.

    `fused` marks the nodes that ran together in one fused pass: every one still ran
    on its `rows`; the group's top node holds the group's time and says why.

    `elapsed` is the seconds the node's own work took, summed over the morsels it
    ran on; `threads` says over how many threads. From one thread the sum is wall
    time (at most the evaluation's `elapsed`); from several, their times overlap
    and the sum is busy time that may pass the evaluation's wall time, so every
    printer names it as summed (`render.labels.time_text`).
    """

    path: Path
    label: str
    rows: int
    out_type: Any = None
    elapsed: float = 0.0
    calls: int = 0  # how many kernel invocations (chunks, branches) it took
    used_rows: int | None = None  # None: not recorded (a trace from before), read as `rows`
    how: str = ""
    why: str = ""
    threads: int = 1  # the threads whose times `elapsed` sums
    # "" unless it ran in a fused group (one pass for several calls): on the group's top
    # node the reason, on the nodes under it FUSED_MEMBER (a picture marks the group once)
    fused: str = ""

    @property
    def used(self) -> int:
        return self.rows if self.used_rows is None else self.used_rows


class MaskOnRead:
    """A boolean mask made when first read, by an elementwise rule from arrays the
    engine had anyway.

    A traced `and`/`or` hands its right side the rows its left side does not decide:
    a mask over the domain that untraced evaluation never builds. The left side's
    values already say it, so the trace keeps them and the rule and builds the mask
    only when someone reads the rows (a trace is recorded far more often than read).
    A funnel's `when i` rows are its `when i-1` rows less the rows `then i-1` took:
    the trace keeps the `then` masks only, each `when` a link to the one before
    (`values[0]` may be another MaskOnRead, or None for every row).

    The rule being elementwise, the first rows are the rule applied to the first
    values (`head`: what an evaluation's sample reads). The mask, once made, is kept;
    a chain is made link by link, with no recursion however long.
    """

    __slots__ = ("_length", "_made", "rule", "values")
    type = pa.bool_()

    def __init__(self, rule, values: tuple, length: int):
        self.rule = rule  # (*values) -> boolean array without nulls, row by row
        self.values = values
        self._made = None
        self._length = length

    def __len__(self) -> int:
        return self._length

    def array(self) -> pa.Array:
        return self._make(None)

    def head(self, n: int) -> pa.Array:
        """The first `n` rows of the mask, making only those unless it is made already."""
        return self._make(n)

    def count(self) -> int:
        """How many rows the mask selects (made to count them, and kept)."""
        return self.array().true_count

    def head_bools(self, n: int) -> np.ndarray:
        """The first `n` rows of the mask as numpy booleans (what a sample reads)."""
        return _bools(self.head(n))

    def _make(self, n: int | None) -> pa.Array:
        chain, link = [], self
        while isinstance(link, MaskOnRead) and link._made is None:
            chain.append(link)
            link = link.values[0]
        current = link._made if isinstance(link, MaskOnRead) else link
        if n is not None and current is not None:
            current = current.slice(0, n)
        for link in reversed(chain):
            rest = link.values[1:]
            if n is not None:
                rest = tuple(v.slice(0, n) for v in rest)
            current = link.rule(current, *rest)
            if n is None:
                link._made = current
        return current


def as_array(rows):
    """Recorded rows as an array: a MaskOnRead made now, anything else as it is."""
    return rows.array() if isinstance(rows, MaskOnRead) else rows


class RowPiece(NamedTuple):
    """The rows one slice of the batch gave a branch, as the form had them: plain arrays.

    `offset` is the slice's first batch row and `length` its rows; `domain` the
    slice rows the form ran on (int64 indices or a boolean mask over the slice;
    None: all of them); `picked` which of those the branch got: a boolean mask or
    int64 positions over the domain (None: all). Either may be a `MaskOnRead`, made
    into its mask by the first method that reads it.
    Turning a mask into indices costs more than the form's own work on a million
    rows, so it happens when someone reads the rows, with no engine code. (A named
    tuple: a traced evaluation makes one per branch per slice.)
    """

    offset: int
    length: int
    domain: Any = None
    picked: Any = None

    def indices(self) -> pa.Array:
        """The batch row indices (int64, sorted) of this piece."""
        return self._shifted(self._within(self.length))

    def count(self) -> int:
        """How many rows the piece holds, without building their indices."""
        picked = self.picked if self.picked is not None else self.domain
        if picked is None:
            return self.length
        if isinstance(picked, MaskOnRead):
            return picked.count()
        return picked.true_count if picked.type == pa.bool_() else len(picked)

    def first(self, n: int) -> pa.Array:
        """The first `n` batch row indices of this piece, converting only a prefix of its arrays.

        A sample of a traced evaluation wants the first rows of every branch; building
        all of a million-row piece's indices for them would cost more than the form's
        own work. The prefix of slice rows looked at grows eightfold until it holds `n`.
        """
        return pa.array(self.first_rows(n), pa.int64())

    def rows_below(self, bound: int) -> int | None:
        """How many of the piece's rows lie below slice row `bound`, when that is cheap to
        know (no domain); None otherwise. A sample keeps the first rows of the batch: a
        branch whose first rows all lie among them adds nothing, and this says so without
        building any of its rows."""
        if self.domain is not None:
            return None
        picked = self.picked
        if picked is None:
            return min(bound, self.length)
        if isinstance(picked, MaskOnRead):
            return int(np.count_nonzero(picked.head_bools(bound)))
        if picked.type == pa.bool_():
            return _head(picked, bound).true_count
        return _count_below(picked, bound)

    def first_rows(self, n: int) -> np.ndarray:
        """`first` as numpy int64 (what the sample of an evaluation is built from)."""
        seen = min(self.length, 4096)
        while True:
            found = self._prefix_within(seen)
            if len(found) >= n or seen >= self.length:
                return found[:n] + self.offset
            seen = min(self.length, seen * 8)

    def _prefix_within(self, seen: int) -> np.ndarray:
        """`_within` for a short prefix, in numpy: a few microseconds where the kernels'
        fixed costs add up over every branch of a wide case_when."""
        domain, picked = as_array(self.domain), self.picked
        if domain is None:  # the positions over the domain are slice rows
            if picked is None:
                return np.arange(seen, dtype=np.int64)
            if isinstance(picked, MaskOnRead):
                return np.flatnonzero(picked.head_bools(seen))
            if picked.type == pa.bool_():
                return np.flatnonzero(_bools(_head(picked, seen)))
            return _ints(picked.slice(0, _count_below(picked, seen)))
        if domain.type == pa.bool_():
            base = np.flatnonzero(_bools(domain.slice(0, seen)))
        else:
            base = _ints(domain.slice(0, _count_below(domain, seen)))
        if picked is None:
            return base
        if picked.type == pa.bool_():
            return base[_bools(_head(picked, len(base)))]
        return base[_ints(picked.slice(0, _count_below(picked, len(base))))]

    def _within(self, seen: int) -> pa.Array:
        """The piece's rows among its first `seen` slice rows (domain and picked are sorted)."""
        domain = as_array(self.domain)
        if domain is None:
            base = pa.arange(0, seen)
        elif pa.types.is_boolean(domain.type):
            base = pc.filter(pa.arange(0, seen), domain.slice(0, seen))
        else:
            base = domain.slice(0, _count_below(domain, seen))
        picked = as_array(self.picked)
        if picked is None:
            out = base
        elif pa.types.is_boolean(picked.type):
            out = pc.filter(base, picked.slice(0, len(base)))
        else:
            positions = picked.slice(0, _count_below(picked, len(base)))
            out = positions if domain is None else pc.take(base, positions)
        return out if out.type == pa.int64() else out.cast(pa.int64())

    def _shifted(self, rows: pa.Array) -> pa.Array:
        return pc.add(rows, self.offset) if self.offset else rows


def _head(mask, n: int) -> pa.Array:
    """The first `n` rows of a boolean array or of a MaskOnRead (made for those rows only)."""
    return mask.head(n) if isinstance(mask, MaskOnRead) else mask.slice(0, n)


def _bools(mask: pa.Array) -> np.ndarray:
    """A boolean array as numpy booleans, a null read as false (as `filter` drops it)."""
    if mask.null_count:
        mask = pc.fill_null(mask, False)
    return mask.to_numpy(zero_copy_only=False)


def _ints(values: pa.Array) -> np.ndarray:
    return values.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _count_below(sorted_values: pa.Array, bound: int) -> int:
    """How many of the sorted integers are below `bound` (a binary search, no copy)."""
    values = sorted_values.to_numpy(zero_copy_only=False)
    return int(np.searchsorted(values, bound, side="left"))


class BranchSelection:
    """The rows a special form handed to one of its branches (indices of the batch).

    `rows` is a pyarrow int64 array of row indices into the evaluated batch. The
    engine hands over `RowPiece`s instead (plain arrays, one per slice of the batch);
    they become indices on the first read of `rows`. `count` is known without it (the
    engine gives it, or leaves it to be counted from the pieces when first read).
    """

    __slots__ = ("_count", "_pieces", "_rows", "arg_index", "branch", "path", "total_rows")

    def __init__(self, path: Path, branch: str, arg_index: int, rows: Any, total_rows: int,
                 count: int | None = None):
        self.path = path  # the special form's path
        self.branch = branch  # e.g. "then", "else", "when 0", "arg 1", "right"; numbered
        # from 0, as Arrow's ToString numbers case_when's conditions
        self.arg_index = arg_index
        self.total_rows = total_rows
        pieces = isinstance(rows, tuple) and all(isinstance(p, RowPiece) for p in rows)
        self._rows, self._pieces = (None, rows) if pieces and rows else (rows, None)
        self._count = count

    @property
    def pieces(self) -> tuple[RowPiece, ...] | None:
        """The rows as the engine recorded them, until they are first read as indices."""
        return self._pieces

    def as_pieces(self) -> tuple[RowPiece, ...]:
        """The rows as pieces: the recorded ones, or one piece of the indices once read."""
        if self._pieces is not None:
            return self._pieces
        return (RowPiece(0, self.total_rows, None, self.rows),)

    def first(self, n: int) -> pa.Array:
        """The first `n` row indices (sorted), without building the rest when not yet read."""
        if self._pieces is None:
            return self.rows.slice(0, n) if self.rows is not None else pa.array([], pa.int64())
        parts, left = [], n
        for piece in sorted(self._pieces, key=lambda p: p.offset):
            if left <= 0:
                break
            part = piece.first(left)
            parts.append(part)
            left -= len(part)
        return pa.concat_arrays(parts) if parts else pa.array([], pa.int64())

    @property
    def rows(self):
        if self._pieces is not None:
            parts = [p.indices() for p in self._pieces]
            self._rows = parts[0] if len(parts) == 1 else pa.concat_arrays(parts)
            self._pieces = None
        return self._rows

    @property
    def count(self) -> int:
        """How many rows the branch got (without building the indices: given by the
        engine, or counted from the recorded pieces when first read)."""
        if self._count is None:
            if self._pieces is not None:
                self._count = sum(piece.count() for piece in self._pieces)
            else:
                self._count = 0 if self.rows is None else len(self.rows)
        return self._count

    def __eq__(self, other) -> bool:
        if not isinstance(other, BranchSelection):
            return NotImplemented
        mine, theirs = self.rows, other.rows
        same_rows = (mine is theirs or (mine is not None and theirs is not None
                                        and len(mine) == len(theirs) and mine.equals(theirs)))
        return ((self.path, self.branch, self.arg_index, self.total_rows)
                == (other.path, other.branch, other.arg_index, other.total_rows)) and same_rows

    __hash__ = None

    def __repr__(self) -> str:
        return (f"BranchSelection(path={self.path!r}, branch={self.branch!r}, "
                f"arg_index={self.arg_index}, count={self.count}, total_rows={self.total_rows})")


@dataclass(frozen=True)
class ErrorFacts:
    """What an evaluation's error said, as plain values: a trace keeps these, not the exception.

    `kind` is the exception's class name, `path` the failing node's position (None
    when the error names no node), `row` the first failing row of the input.
    """

    kind: str
    message: str
    path: tuple | None = None
    row: int | None = None
    node: Any = field(default=None, compare=False)  # the failing node, when known

    @classmethod
    def of(cls, error) -> ErrorFacts | None:
        if error is None or isinstance(error, ErrorFacts):
            return error
        path = getattr(error, "path", None)
        node = getattr(error, "node", None)
        has_node = node is not None or bool(path)
        return cls(getattr(error, "kind", None) or type(error).__name__, str(error),
                   (tuple(path) if path is not None else ()) if has_node else None,
                   getattr(error, "row", None), node)

    def __str__(self) -> str:
        return self.message


class Deferred:
    """A value an event makes on its first read (`EvalEvent.nodes`): a trace is recorded
    far more often than it is read, so recording keeps the plain figures and reading
    makes the records."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


@dataclass
class EvalEvent:
    expr: Any
    num_rows: int
    mode: str
    nodes: list[NodeStats] = field(default_factory=list)
    branches: list[BranchSelection] = field(default_factory=list)
    error: ErrorFacts | None = None  # what the KernelError said, when evaluation failed
    result: Any = None  # small results are kept for the selection view
    # the evaluated batch when small, else a sample of its rows (of the columns it reads)
    data: Any = None
    sample: Any = None  # the batch rows `data` and `result` hold (int64), when a sample
    elapsed: float = 0.0  # wall time, seconds
    threads: int = 1  # the threads its morsels ran on
    # with a sample: weak references to the whole batch and result, so a view can look
    # any row up while the caller still holds them (never saved, never kept alive)
    live_data: Any = field(default=None, repr=False, compare=False)
    live_result: Any = field(default=None, repr=False, compare=False)

    # `nodes`, `branches`, `data`, `result` and `sample` are properties (set below, after
    # the dataclass is made): each may be given as a Deferred, made on first read

    def root_path(self) -> TreePath:
        """The root's path in the table its nodes' and branches' paths live in.

        A renderer walks the tree from here with `child(i)`, so its paths are the
        recorded ones (constant-time lookups at any depth). Paths given as tuples
        get a table of their own; they still find their statistics, by value.
        """
        for item in (*self.nodes[:1], *self.branches[:1]):
            if isinstance(item.path, TreePath):
                return item.path.table.root
        return TreePositions().root

    def failed_path(self) -> TreePath | None:
        """The failing node's path in the table of `root_path`, when the error names a node."""
        facts = ErrorFacts.of(self.error)
        path = facts.path if facts is not None else None
        if path is None:
            return None
        return self.root_path().table.of(path)


def _made_on_read(name: str, doc: str) -> property:
    """The field `name` of an EvalEvent, given as a value or as a Deferred made into its
    value on first read."""
    key = "_" + name

    def get(event: EvalEvent):
        value = event.__dict__[key]
        if isinstance(value, Deferred):
            value = event.__dict__[key] = value.make()
        return value

    def put(event: EvalEvent, value) -> None:
        event.__dict__[key] = value

    return property(get, put, doc=doc)


EvalEvent.nodes = _made_on_read("nodes", "The evaluation's NodeStats, in evaluation order.")
EvalEvent.branches = _made_on_read("branches", "The rows each branch of each form got.")
EvalEvent.data = _made_on_read("data", "The batch when small, else a sample of its rows.")
EvalEvent.result = _made_on_read("result", "The result when small, else the sample's rows.")
EvalEvent.sample = _made_on_read("sample", "The batch rows `data` and `result` hold.")


@dataclass(frozen=True)
class InvariantCheck:
    name: str
    level: str  # "MUST", "SHOULD" or "CAN"
    subject: str  # the plan node or plan the check was made on
    passed: bool
    details: str = ""
    expected: Any = None
    actual: Any = None


@dataclass(frozen=True)
class PlanRuleEvent:
    """A logical-plan rule applied (DataFusion's EXPLAIN VERBOSE step), with what fired where."""

    rule: str
    before: Any
    after: Any
    changed: bool
    applied: tuple[RuleApplied, ...] = ()

    @property
    def reason(self) -> str:
        """Every firing's reason, in order (one line of EXPLAIN VERBOSE)."""
        return "; ".join(a.reason for a in self.applied if a.reason)


class Observer:
    """Override what you care about; every hook defaults to doing nothing."""

    def on_pass(self, event: PassEvent) -> None:
        pass

    def on_eval(self, event: EvalEvent) -> None:
        pass

    def on_invariant(self, event: InvariantCheck) -> None:
        pass

    def on_plan_rule(self, event: PlanRuleEvent) -> None:
        pass


_ACTIVE: contextvars.ContextVar[tuple] = contextvars.ContextVar("exprscope_observers", default=())


@contextlib.contextmanager
def observing(observer) -> Iterator[Any]:
    """Make `observer` see everything the engine does inside the block."""
    token = _ACTIVE.set(_ACTIVE.get() + (observer,))
    try:
        yield observer
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """No block observer sees the engine's work inside (a check recomputing a value)."""
    token = _ACTIVE.set(())
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_observers(explicit=None) -> tuple:
    """The observers to tell: the block's, plus an explicit one (once)."""
    active = _ACTIVE.get()
    if explicit is not None and explicit not in active:
        return active + (explicit,)
    return active


def notify(hook: str, event, explicit=None) -> None:
    for observer in active_observers(explicit):
        method = getattr(observer, hook, None)
        if method is not None:
            method(event)
        elif callable(observer) and hook == "on_pass":
            # a plain function observes passes: (pass name, before, after, changed, rewrites)
            observer(event.name, event.before, event.after, event.changed, event.rewrites)
