"""What one evaluation of one batch slice knows: its columns, caches and statistics.

Columns are fetched once per (column, selection, mask): every consumer under
the same selection shares the one gathered copy. Statistics and branch
selections are only kept when an observer listens (`observing`), so untraced
evaluation does no bookkeeping.
"""

from __future__ import annotations

import threading
import time
from typing import NamedTuple

import pyarrow as pa
import pyarrow.compute as pc

from ..observe import NodeStats, RowPiece
from ..rewrite.positions import TreePositions
from .forms.requests import DENSE, LITERAL, LITERAL_WHY, MASKED
from .gather_scatter import null_out_unselected
from .selection import SelectionVector

__all__ = ["BatchContext"]


class BatchContext:
    __slots__ = (
        "_alive",
        "_columns",
        "_gathered",
        "batch",
        "branches",
        "case_methods",
        "casts_in_range",
        "density",
        "fused",
        "lazy",
        "observing",
        "offset",
        "positions",
        "proven_casts",
        "run",
        "stats",
        "thread",
        "took_trust",
        "trusting",
    )

    def __init__(self, batch: pa.RecordBatch, offset: int, lazy: bool, observing: bool,
                 prepared, positions: TreePositions | None = None,
                 trusting: bool = True, fuse: bool = False):
        self.batch = batch
        self.offset = offset  # row of the original data where this slice starts
        self.lazy = lazy
        self.observing = observing
        self.stats: dict[int, NodeTally] = {}
        # the thread this slice runs on: a node's times from slices of several threads
        # overlap in time, so their sum is no wall time (see `NodeStats.threads`)
        self.thread = threading.get_ident()
        self.branches: list[BranchPiece] = []
        # what the tree's preparation learnt (`prepare.PreparedTree`): read, never written
        self.density = prepared.density
        self.case_methods = prepared.case_methods
        # id(group root) -> the cheap subtree that runs as one pass (empty: fusion off, or
        # eager, which runs every node's kernel as Arrow does)
        self.fused = {} if not (fuse and lazy) else (
            prepared.fused.traced if observing else prepared.fused.untraced)
        self.casts_in_range: dict[tuple, bool] = {}  # (column, low, high) -> all values in it
        # id(cast node) -> its options with the range check off: its column was proven in range
        # on this slice, and any part of that column is in range too
        self.proven_casts: dict[int, object] = {}
        # untraced: small forms may take their casts on trust (`forms.runs_eagerly`);
        # `took_trust` says one did, so a failure means: evaluate again without trust
        self.trusting = trusting and not observing
        self.took_trust = False
        self.positions = positions if positions is not None else TreePositions()
        self.run: RunAs | None = None  # while a special form runs: how it runs (traced only)
        self._columns: dict[tuple, pa.Array] = {}
        self._gathered: dict[tuple, pa.Array] = {}
        # (id(sel), id(mask)) -> (sel, mask, the _gathered keys under them): keeps each
        # selection and mask alive while its id() keys a cache entry
        self._alive: dict[tuple, tuple] = {}

    def release(self) -> None:
        """Drop the caches of gathered columns and the selections they hang on.

        Called once the tree has run over this slice: the context lives on until the
        whole evaluation ends (its statistics and branch selections feed the trace),
        but the compact copies it gathered for each selection would otherwise stay
        with it, one per branch of every special form of every morsel (a 20-case
        `case_when` kept its values' columns and their row indices for every morsel:
        about the input's size again).
        """
        self._columns = {}
        self._gathered = {}
        self._alive = {}
        self.run = None

    def forget(self, sel: SelectionVector | None, mask=None) -> None:
        """Drop the columns gathered under `sel` (and `mask`): a special form calls this
        once the branch it made that selection for has its value, so each branch's
        compact copies go with it instead of living as long as the morsel."""
        held = self._alive.pop((id(sel), id(mask)), None)
        if held is not None:
            for key in held[2]:
                del self._gathered[key]

    @property
    def num_rows(self) -> int:
        return self.batch.num_rows

    def size(self, sel: SelectionVector | None) -> int:
        return self.batch.num_rows if sel is None else sel.count

    # -- leaves ------------------------------------------------------------------
    def column(self, param) -> pa.Array:
        """The whole column a bound field ref points to (nested struct fields included)."""
        path = param.path
        if path is None:
            path = param.ref.find_one(self.batch.schema)
        indices = path.indices
        found = self._columns.get(indices)
        if found is None:
            found = self.batch.column(indices[0])
            if len(indices) > 1:
                found = pc.struct_field(found, list(indices[1:]))
            self._columns[indices] = found
        return found

    def field(self, param, sel: SelectionVector | None, mask) -> pa.Array:
        """The field's values under `sel` (compact), with unselected rows nulled if `mask`."""
        column = self.column(param)
        if sel is None and mask is None:
            return column
        key = (param.path.indices if param.path is not None else param.ref, id(sel), id(mask))
        found = self._gathered.get(key)
        if found is None:
            found = column if sel is None else pc.take(column, sel.indices)
            if mask is not None:
                found = null_out_unselected(found, mask)
            self._gathered[key] = found
            held = self._alive.get(key[1:])
            if held is None:
                self._alive[key[1:]] = (sel, mask, [key])
            else:
                held[2].append(key)
        return found

    # -- rows --------------------------------------------------------------------
    def original_row(self, sel: SelectionVector | None, position: int) -> int:
        """The row of the original data behind `position` of a compact result under `sel`."""
        row = position if sel is None else sel.indices[position].as_py()
        return self.offset + row

    # -- statistics (only when observing) ----------------------------------------
    def position(self, parent: int | None, rel: tuple) -> int:
        return self.positions.id(parent, rel)

    def record(self, pos: int, node, rows: int, out_type, elapsed: float, calls: int,
               run: RunAs | None = None, fused: str = "") -> None:
        """Statistics for the node at position id `pos` (its path is filled in later).

        Plain numbers added up per slice (`NodeTally`): the NodeStats a trace keeps is
        made once per node of the evaluation, not once per node of every slice.
        """
        if run is None:
            used, how, why = rows, ALL_ROWS, ""
        else:
            used = rows if run.used is None else run.used_count()
            how, why = run.how, run.why
        tally = self.stats.get(pos)
        if tally is None:
            self.stats[pos] = NodeTally(node, out_type, rows, used, elapsed, calls, how, why,
                                        fused)
        else:
            tally.add(rows, used, elapsed, calls, how, why, fused)

    def record_literal(self, pos: int, node, rows: int, run: RunAs | None) -> None:
        """A literal computes nothing: under a call that ran densely it stands for the rows
        its value was used for, and says so, instead of taking its parent's reason."""
        if run is not None and run.used is not None and run.how in (DENSE, MASKED):
            rows = run.used_count()
            run = LITERAL_RUN
        self.record(pos, node, rows, node.type, 0.0, 0, run)

    def record_branch(self, form_pos: int, branch: str, arg_index: int,
                      sel: SelectionVector | None, rows: SelectionVector | None) -> None:
        """The rows of the domain `sel` a branch got (`None`: all of them).

        Kept as the form had them (a bitmap or positions); the batch row indices
        are built only when someone reads them (see `observe.BranchSelection`).
        """
        num_rows = self.batch.num_rows
        count = (num_rows if sel is None else sel.count) if rows is None else rows.count
        picked = None if rows is None or rows.is_all else rows.as_recorded()
        piece = RowPiece(self.offset, num_rows, sel.as_recorded() if sel is not None else None,
                         picked)
        self.branches.append(BranchPiece(form_pos, branch, arg_index, piece, count))


class BranchPiece(NamedTuple):
    """The rows one slice gave one branch of a form (`piece`, at the slice's offset in the
    data) and how many; the evaluation joins every slice's pieces into a BranchSelection."""

    form: int  # the form's position id
    branch: str
    arg_index: int
    piece: RowPiece
    count: int


class NodeTally:
    """One node's figures over one slice, added to each time it runs there again (another
    branch of a case_when): plain numbers, made a NodeStats once per evaluation."""

    __slots__ = ("calls", "elapsed", "fused", "how", "node", "out_type", "rows", "used", "why")

    def __init__(self, node, out_type, rows: int, used: int, elapsed: float, calls: int,
                 how: str, why: str, fused: str = ""):
        self.node, self.out_type = node, out_type
        self.rows, self.used, self.elapsed, self.calls = rows, used, elapsed, calls
        self.how, self.why, self.fused = how, why, fused

    def add(self, rows: int, used: int, elapsed: float, calls: int, how: str, why: str,
            fused: str = ""):
        self.rows += rows
        self.used += used
        self.elapsed += elapsed
        self.calls += calls
        if how != self.how:
            self.how = _joined(self.how, how)
        if why != self.why:
            self.why = _joined(self.why, why)
        if fused != self.fused:
            self.fused = _joined(self.fused, fused)

    def stats(self, path) -> NodeStats:
        """The node's NodeStats at `path`, from this slice's figures."""
        return NodeStats(path=path, label=node_label(self.node), rows=self.rows,
                         out_type=self.out_type, elapsed=self.elapsed, calls=self.calls,
                         used_rows=self.used, how=self.how, why=self.why, fused=self.fused)

    def add_to(self, stat: NodeStats) -> None:
        """Another slice's figures for the same node, added into its NodeStats."""
        stat.rows += self.rows
        stat.used_rows = stat.used + self.used
        stat.elapsed += self.elapsed
        stat.calls += self.calls
        if stat.out_type is None:
            stat.out_type = self.out_type
        stat.how = _joined(stat.how, self.how)
        stat.why = _joined(stat.why, self.why)
        stat.fused = _joined(stat.fused, self.fused)


class RunAs:
    """How a subtree runs inside a special form, for the tracer: which of its rows are used.

    `used` is a boolean mask over the subtree's domain (the rows it computes), or
    None when every computed row is used; `how` and `why` are NodeStats' words.
    """

    __slots__ = ("_count", "how", "used", "why")

    def __init__(self, used, how: str, why: str = ""):
        self.used = used
        self.how = how
        self.why = why
        self._count = None

    def used_count(self) -> int:
        """How many rows `used` selects, counted once for every node that runs this way."""
        if self._count is None:
            self._count = self.used.true_count
        return self._count


ALL_ROWS = "all rows"
TOP = RunAs(None, ALL_ROWS)
LITERAL_RUN = RunAs(None, LITERAL, LITERAL_WHY)


def _joined(seen: str, new: str) -> str:
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


def now() -> float:
    return time.perf_counter()
