"""An evaluation step read row by row: the branch each row took and the value it got.

The engine records, per special form, the batch rows each branch ran on
(`BranchSelection`), and per node how many rows it ran on (`NodeStats`). This
turns those into what a person reads: for every row, which branch of every
special form produced its value, and for every node, which rows reached it.
Plain Python, so the selection view and its tests share one source of truth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from toolkit.errors import FieldRefError
from toolkit.execution.evaluation import evaluate
from toolkit.explain.records import RowStory
from toolkit.explain.rows import PickedRows, source_kind
from toolkit.explain.story import story_of_batch, written_expression
from toolkit.observe import silenced
from toolkit.render.branch_table import NOT_REACHED, BranchTable, SpecialForm
from toolkit.render.form_heads import reading_order
from toolkit.render.labels import MAX_FORM_COLUMNS, bounded_text, path_text, rows_text
from toolkit.render.selection_strip import row_indices

__all__ = ["NOT_KEPT", "NOT_REACHED", "NodeRows", "SelectionRows", "SpecialForm"]

NOT_KEPT = "(not kept)"  # a sampled-out row's input or value once the batch is gone


@dataclass
class NodeRows:
    path: tuple
    label: str
    text: str
    rows: int  # rows the node was evaluated on (the engine's count)
    total: int
    summary: str  # rows computed and used, in the words every picture uses
    # the first rows that reached it (sorted), when selections tell; None: every row
    row_indices: np.ndarray | None
    reached: int | None = None  # how many rows reached it, when selections tell


class SelectionRows:
    """The rows of one evaluation, with the branch per special form and the result."""

    def __init__(self, step):
        event = step
        self.event = event
        self.expr = event.expr
        self.num_rows = event.num_rows
        self.data = event.data
        self.result = event.result
        sample = getattr(event, "sample", None)
        # a large batch keeps a sample: the original row number of each kept row
        self.sample = None if sample is None else row_indices(sample)
        self.kept_rows = 0 if self.data is None else self.data.num_rows
        self.error = event.error
        self.branch_table = BranchTable(event)
        self.forms = self.branch_table.forms
        # a page shows one branch column per form, for the outermost MAX_FORM_COLUMNS forms
        # (a chain's in the order of its terms)
        self.shown_forms = reading_order(self.forms[:MAX_FORM_COLUMNS])
        self._form_keys = [form_key(f) for f in self.shown_forms]

    # -- the columns a row shows ---------------------------------------------------
    @property
    def has_rows(self) -> bool:
        """Whether the batch was kept (the engine keeps small batches only)."""
        return self.data is not None

    def input_columns(self) -> list[str]:
        """The top-level data columns the expression reads, in the data's order."""
        if self.data is None:
            return []
        names = set()
        for ref in self.expr.field_refs():
            path = _top_level_name(ref, self.data.schema)
            if path is not None:
                names.add(path)
        return [n for n in self.data.schema.names if n in names]

    def page(self, start: int, size: int) -> list[dict]:
        """Kept rows `start` .. `start + size`: row number, inputs, branch per form, value.

        Without a sample the kept rows are the batch's; with one, `row` is the
        original row number of each sampled row.
        """
        if self.data is None:
            return []
        stop = min(self.kept_rows, max(0, start) + size)
        start = max(0, min(start, stop))
        kept = np.arange(start, stop, dtype=np.int64)
        return self._records(kept if self.sample is None else self.sample[start:stop], kept)

    # -- rows on demand ---------------------------------------------------------------
    def live_data(self):
        """The whole evaluated batch while its owner still holds it (a sampled event),
        else None."""
        ref = getattr(self.event, "live_data", None)
        return ref() if ref is not None else None

    def row_list(self) -> np.ndarray:
        """Every batch row a view can show: all of them when kept or alive, else the sample."""
        if self.sample is None or self.live_data() is not None:
            return np.arange(self.num_rows if self.data is not None else 0, dtype=np.int64)
        return self.sample

    def can_show(self, row: int) -> bool:
        """Whether batch row `row` can be shown: kept, or looked up in the live batch."""
        if not 0 <= row < self.num_rows or self.data is None:
            return False
        return self.sample is None or self.live_data() is not None or \
            self._kept_positions(np.array([row]))[0] >= 0

    def branch_rows(self, form: SpecialForm, branch: str) -> np.ndarray:
        """The batch rows whose value came from `branch` of `form` (`NOT_REACHED`: none)."""
        names, codes = self.branch_table.taken(form)
        if branch not in names:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(codes == names.index(branch)).astype(np.int64)

    def look_up(self, rows) -> list[dict]:
        """Records (as `page` gives) for batch row numbers: from the kept rows, else the
        live batch.

        A row neither kept nor in a live batch shows `NOT_KEPT` for its inputs and value;
        its branches are always known (the trace keeps every branch's rows).
        """
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[(rows >= 0) & (rows < self.num_rows)]
        return self._records(rows, self._kept_positions(rows))

    def _kept_positions(self, rows: np.ndarray) -> np.ndarray:
        """Where each batch row is among the kept rows; -1 where it is not kept."""
        if self.data is None:
            return np.full(len(rows), -1, dtype=np.int64)
        if self.sample is None:
            return np.where(rows < self.kept_rows, rows, -1)
        at = np.searchsorted(self.sample, rows)
        last = len(self.sample) - 1
        found = (at <= last) & (self.sample[np.minimum(at, last)] == rows)
        return np.where(found, at, -1)

    def _records(self, rows: np.ndarray, kept: np.ndarray) -> list[dict]:
        inputs, values = self._inputs_and_values(rows, kept)
        taken = [self.branch_table.taken_at(form, rows) for form in self.shown_forms]
        out = []
        for k, row in enumerate(rows.tolist()):
            record = {"row": row}
            for name, column in inputs.items():
                record[name] = column[k]
            for key, branches in zip(self._form_keys, taken):
                record[key] = branches[k]
            record["value"] = values[k]
            out.append(record)
        return out

    def _inputs_and_values(self, rows: np.ndarray, kept: np.ndarray) -> tuple[dict, list]:
        """The inputs and values of `rows`: kept ones by position, the rest from live data."""
        names = self.input_columns()
        if len(rows) == 0 or bool(np.all(kept >= 0)):
            taken = pa.array(kept, pa.int64())
            inputs = {n: self.data.column(n).take(taken).to_pylist() for n in names}
            return inputs, self._kept_values(taken)
        live = self.live_data()
        if live is None:  # some rows are neither kept nor in memory any more
            inputs = {n: [NOT_KEPT] * len(rows) for n in names}
            values = [NOT_KEPT] * len(rows)
            for k in np.flatnonzero(kept >= 0).tolist():
                one = self._records_of_kept(int(kept[k]), names)
                for n in names:
                    inputs[n][k] = one[n]
                values[k] = one["value"]
            return inputs, values
        taken = pa.array(rows, pa.int64())
        inputs = {n: live.column(n).take(taken).to_pylist() for n in names}
        return inputs, self._live_values(live, taken)

    def _records_of_kept(self, position: int, names: list[str]) -> dict:
        taken = pa.array([position], pa.int64())
        one = {n: self.data.column(n).take(taken)[0].as_py() for n in names}
        one["value"] = self._kept_values(taken)[0]
        return one

    def _kept_values(self, positions: pa.Array) -> list:
        result = self.result
        if result is None:
            return [None] * len(positions)
        if isinstance(result, pa.Scalar):
            return [result.as_py()] * len(positions)
        return result.take(positions).to_pylist()

    def _live_values(self, live, rows: pa.Array) -> list:
        """The value of batch rows from the live result, or computed again on just those rows."""
        if self.error is not None:
            return [None] * len(rows)  # a failed evaluation has no values to show
        ref = getattr(self.event, "live_result", None)
        result = ref() if ref is not None else None
        if result is not None:
            return result.take(rows).to_pylist()
        with silenced():  # looking a row up is not part of the trace
            value = evaluate(self.expr, live.take(rows), simplify=False)
        if isinstance(value, pa.Scalar):
            return [value.as_py()] * len(rows)
        return value.to_pylist()

    # -- one row's story, on demand ----------------------------------------------------
    def row_batch(self, row: int) -> pa.RecordBatch | None:
        """Batch row `row` alone, from the live batch or the kept rows; None when neither
        holds it (a row outside the sample once the batch is gone)."""
        if not 0 <= row < self.num_rows or self.data is None:
            return None
        live = self.live_data()
        source, at = (live, row) if live is not None else (self.data, None)
        if at is None:
            at = int(self._kept_positions(np.array([row], dtype=np.int64))[0])
            if at < 0:
                return None
        one = source.slice(at, 1)  # constant work on any size of batch
        if isinstance(one, pa.Table):
            one = one.combine_chunks().to_batches()[0]
        return one

    def row_story(self, row: int) -> RowStory | None:
        """The story of batch row `row` through the evaluated expression, in the mode it
        ran in: computed now, on that one row (`tk.explain_row`'s work), so showing
        pages costs nothing. None when the row's data is not at hand."""
        batch = self.row_batch(row)
        if batch is None or self.expr is None:
            return None
        live = self.live_data()
        picked = PickedRows((row,), (batch,), 1, self.num_rows,
                            source_kind(live if live is not None else self.data))
        written = written_expression(self.expr, batch.schema)
        return story_of_batch(written, batch, row, self.event.mode, picked)

    @property
    def failed_row(self) -> int | None:
        """The batch row where the evaluation failed, when the error names one."""
        return self.error.row if self.error is not None else None

    def kept_position(self, row: int | None) -> int:
        """Where batch row `row` is among the kept rows (0 when absent or None)."""
        if row is None:
            return 0
        if self.sample is None:
            return row if 0 <= row < self.kept_rows else 0
        at = int(np.searchsorted(self.sample, row))
        return at if at < len(self.sample) and self.sample[at] == row else 0

    def branch_counts(self, form: SpecialForm) -> dict[str, int]:
        """How many rows took each branch (and how many never reached the form)."""
        return self.branch_table.branch_counts(form)

    # -- nodes --------------------------------------------------------------------
    def node_rows(self, limit: int | None = None, preview: int | None = None
                  ) -> list[NodeRows]:
        """Evaluated nodes (the first `limit`) with the rows that reached them: the first
        `preview` of those rows (all when None) and how many there are."""
        out = []
        for stat in self.event.nodes[:limit]:
            path = stat.path
            reached = self.branch_table.first_rows_reaching(path, preview)
            rows, count = (None, None) if reached is None else reached
            node = self.branch_table.node(path)
            text = bounded_text(node, 60, short=True) if node is not None else ""
            out.append(NodeRows(path=path, label=stat.label, text=text,
                                rows=stat.rows, total=self.num_rows,
                                summary=rows_text(stat, self.num_rows), row_indices=rows,
                                reached=count))
        return out

def form_key(form: SpecialForm) -> str:
    """The column name of a form's branch in a page row: the form's name and path."""
    return f"{form.name}@{path_text(form.path)}"


def _top_level_name(ref, schema: pa.Schema) -> str | None:
    """The data column a reference reads (its first path step), if it resolves."""
    try:
        path = ref.find_one(schema)
    except FieldRefError:
        return None
    return schema.names[path.indices[0]] if path.indices else None
