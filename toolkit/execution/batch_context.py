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

from ..observe import RowPiece
from ..rewrite.positions import TreePositions
from .forms.requests import DENSE, LITERAL, LITERAL_WHY, MASKED
from .fuse_when import FuseWhen
from .gather_scatter import null_out_unselected
from .selection import SelectionVector
from .tallies import SliceTallies

__all__ = ["BatchContext"]

# positions a slice's tallies make room for at once (more as they are recorded): the
# positions of a tree a renderer walked whole may be many more than one evaluation records
TALLY_ROOM = 4096


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
        "fuse_when",
        "fused",
        "lazy",
        "observing",
        "offset",
        "positions",
        "proven_casts",
        "run",
        "tallies",
        "thread",
        "took_trust",
        "trusting",
        "untraced_fused",
    )

    def __init__(self, batch: pa.RecordBatch, offset: int, lazy: bool, observing: bool,
                 prepared, positions: TreePositions | None = None,
                 trusting: bool = True, fuse_when: FuseWhen = FuseWhen.NEVER):
        self.batch = batch
        self.offset = offset  # row of the original data where this slice starts
        self.lazy = lazy
        self.observing = observing
        self.positions = positions if positions is not None else TreePositions()
        # every node's figures over this slice (`tallies.py`), when observing
        self.tallies = SliceTallies(min(len(self.positions), TALLY_ROOM)) if observing else None
        # the thread this slice runs on: a node's times from slices of several threads
        # overlap in time, so their sum is no wall time (see `NodeStats.threads`)
        self.thread = threading.get_ident()
        self.branches: list = []  # BranchPiece, and a fused group's FusedBranches
        # what the tree's preparation learnt (`prepare.PreparedTree`): read, never written
        self.density = prepared.density
        self.case_methods = prepared.case_methods
        # id(group root) -> the cheap subtree that runs as one loop (empty: fusion off;
        # a morsel small enough to run eagerly fuses alike: a group computes every row
        # of its nodes, as eager evaluation does; one whose loop flags a failed row runs
        # unfused, and fails as unfused evaluation does)
        self.fuse_when = fuse_when
        self.fused = {} if fuse_when is FuseWhen.NEVER else (
            prepared.fused.traced if observing else prepared.fused.untraced)
        # traced: the same groups' untraced loops (one over the morsel's own columns runs
        # them, its forms' branch codes written when the trace is read: `fused_codes`)
        self.untraced_fused = prepared.fused.untraced if observing and self.fused else {}
        self.casts_in_range: dict[tuple, bool] = {}  # (column, low, high) -> all values in it
        # id(cast node) -> its options with the range check off: its column was proven in range
        # on this slice, and any part of that column is in range too
        self.proven_casts: dict[int, object] = {}
        # untraced: small forms may take their casts on trust (`forms.runs_eagerly`);
        # `took_trust` says one did, so a failure means: evaluate again without trust
        self.trusting = trusting and not observing
        self.took_trust = False
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
        return self.positions.below(parent, rel)

    def record(self, pos: int, node, rows: int, elapsed: float, calls: int,
               run: RunAs | None = None, fused: str = "") -> None:
        """Statistics for the node at position id `pos` (its path and type are filled in
        later).

        Plain numbers added into this slice's lists (`tallies.SliceTallies`): the
        NodeStats a trace keeps is made once per node of the evaluation.
        """
        if run is None:
            self.tallies.add(pos, node, rows, rows, elapsed, calls, ALL_ROWS, "", fused)
        else:
            used = rows if run.uses_all else run.used_count()
            self.tallies.add(pos, node, rows, used, elapsed, calls, run.how, run.why, fused)

    def record_literal(self, pos: int, node, rows: int, run: RunAs | None) -> None:
        """A literal computes nothing: under a call that ran densely it stands for the rows
        its value was used for, and says so, instead of taking its parent's reason."""
        if run is not None and not run.uses_all and run.how in (DENSE, MASKED):
            rows = run.used_count()
            run = LITERAL_RUN
        self.record(pos, node, rows, 0.0, 0, run)

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
    count: int | None  # None: counted from the piece when the trace is read


class RunAs:
    """How a subtree runs inside a special form, for the tracer: which of its rows are used.

    `used` is a boolean mask over the subtree's domain (the rows it computes), or
    None when every computed row is used (`uses_all`); `how` and `why` are NodeStats'
    words. Made `over` a selection, the mask is made only if something reads `used`:
    the nodes below count the rows, and a count is known without the mask.
    """

    __slots__ = ("_count", "_rows", "_used", "how", "why")

    def __init__(self, used, how: str, why: str = "", count: int | None = None):
        self._used = used
        self._rows = None
        self.how = how
        self.why = why
        self._count = count  # how many rows `used` selects, when the caller knows

    @classmethod
    def over(cls, rows: SelectionVector, how: str, why: str) -> RunAs:
        """Used on the rows `rows` selects (its mask made when `used` is read)."""
        out = cls(None, how, why, rows.count)
        out._rows = rows
        return out

    def reworded(self, how: str, why: str) -> RunAs:
        """The same rows used, in other words (nothing made)."""
        out = RunAs(self._used, how, why, self._count)
        out._rows = self._rows
        return out

    @property
    def uses_all(self) -> bool:
        return self._used is None and self._rows is None

    @property
    def used(self):
        if self._rows is not None:
            self._used, self._rows = self._rows.mask, None
        return self._used

    def used_count(self) -> int:
        """How many rows `used` selects, counted once for every node that runs this way."""
        if self._count is None:
            self._count = self.used.true_count
        return self._count


ALL_ROWS = "all rows"
TOP = RunAs(None, ALL_ROWS)
LITERAL_RUN = RunAs(None, LITERAL, LITERAL_WHY)


now = time.perf_counter  # a traced node's clock: called twice per node per slice
