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
from toolkit.render.labels import rows_text
from toolkit.visit import node_at

__all__ = ["NOT_REACHED", "NodeRows", "SelectionRows", "SpecialForm"]

NOT_REACHED = "·"  # the row never reached this special form (an outer branch skipped it)
_CONDITION_PREFIX = "when "  # case_when's condition branches: they decide, they give no value


@dataclass
class SpecialForm:
    path: tuple
    name: str
    text: str
    branches: list  # the BranchSelections of this form, in the order they ran


@dataclass
class NodeRows:
    path: tuple
    label: str
    text: str
    rows: int  # rows the node was evaluated on (the engine's count)
    total: int
    summary: str  # rows computed and used, in the words every picture uses
    row_indices: np.ndarray | None  # which rows (sorted), when selections tell; None: all


class SelectionRows:
    """The rows of one evaluation, with the branch per special form and the result."""

    def __init__(self, step):
        event = step
        self.event = event
        self.expr = event.expr
        self.num_rows = event.num_rows
        self.data = event.data
        self.result = event.result
        self.error = event.error
        self.forms = self._forms()
        self._scope_rows: dict[tuple, np.ndarray] = {}
        # per form: the branch names, and per row the index of the name it took
        self._taken = {form.path: self._branch_per_row(form) for form in self.forms}

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
        """Rows `start` .. `start + size`: row index, inputs, branch per form, value."""
        if self.data is None:
            return []
        stop = min(self.num_rows, max(0, start) + size)
        start = max(0, min(start, stop))
        columns = {name: self.data.column(name).slice(start, stop - start).to_pylist()
                   for name in self.input_columns()}
        values = self._result_slice(start, stop)
        out = []
        for offset, row in enumerate(range(start, stop)):
            record = {"row": row}
            for name, col in columns.items():
                record[name] = col[offset]
            for form in self.forms:
                names, codes = self._taken[form.path]
                record[form_key(form)] = names[codes[row]]
            record["value"] = values[offset] if values is not None else None
            out.append(record)
        return out

    def branch_counts(self, form: SpecialForm) -> dict[str, int]:
        """How many rows took each branch (and how many never reached the form)."""
        names, codes = self._taken[form.path]
        counts = np.bincount(codes, minlength=len(names))
        return {name: int(n) for name, n in zip(names, counts) if n}

    # -- nodes --------------------------------------------------------------------
    def node_rows(self) -> list[NodeRows]:
        """Every evaluated node with the rows that reached it (innermost selection)."""
        out = []
        for stat in self.event.nodes:
            path = tuple(stat.path)
            rows = self._rows_reaching(path)
            out.append(NodeRows(path=path, label=stat.label, text=_node_text(self.expr, path),
                                rows=stat.rows, total=self.num_rows,
                                summary=rows_text(stat, self.num_rows), row_indices=rows))
        return out

    # -- internals ------------------------------------------------------------------
    def _forms(self) -> list[SpecialForm]:
        by_path: dict[tuple, list] = {}
        for b in self.event.branches:
            by_path.setdefault(tuple(b.path), []).append(b)
        forms = []
        for path in sorted(by_path):
            node = node_at(self.expr, path)
            forms.append(SpecialForm(path=path, name=getattr(node, "name", "?"),
                                     text=_short(node.to_string()), branches=by_path[path]))
        return forms

    def _branch_scope(self, branch) -> tuple:
        """The subtree a branch selection applies to (case_when's conditions sit under arg 0)."""
        base = tuple(branch.path)
        if branch.branch.startswith(_CONDITION_PREFIX):
            k = int(branch.branch[len(_CONDITION_PREFIX):])
            return base + (0, k - 1)
        return base + (branch.arg_index,)

    def _rows_reaching(self, path: tuple) -> np.ndarray | None:
        """The rows of the deepest branch selection above `path`; None means every row."""
        best, best_len = None, -1
        for b in self.event.branches:
            scope = self._branch_scope(b)
            if path[: len(scope)] == scope and len(scope) > best_len:
                best, best_len = scope, len(scope)
        if best is None:
            return None
        if best not in self._scope_rows:
            # a scope is entered once per slice of the data, on disjoint rows: join them
            parts = [_indices(b.rows) for b in self.event.branches if self._branch_scope(b) == best]
            rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
            if len(rows) > 1 and not bool(np.all(rows[1:] >= rows[:-1])):
                rows = np.sort(rows)
            self._scope_rows[best] = rows
        return self._scope_rows[best]

    def _branch_per_row(self, form: SpecialForm) -> tuple[list[str], np.ndarray]:
        """The form's branch names and, per row, the index of the one that gave its value."""
        reaching = self._rows_reaching(form.path)
        fallback = "left" if form.name in ("and_kleene", "or_kleene") else "null"
        names = [NOT_REACHED, fallback]
        codes = np.zeros(self.num_rows, dtype=np.int32)
        if reaching is None:
            codes[:] = 1
        else:
            codes[reaching] = 1
        for b in form.branches:  # in run order: a later branch overrides (coalesce's args)
            if b.branch.startswith(_CONDITION_PREFIX):
                continue
            if b.branch not in names:
                names.append(b.branch)
            codes[_indices(b.rows)] = names.index(b.branch)
        return names, codes

    def _result_slice(self, start: int, stop: int):
        result = self.result
        if result is None:
            return None
        if isinstance(result, pa.Scalar):
            return [result.as_py()] * (stop - start)
        return result.slice(start, stop - start).to_pylist()


def _indices(rows) -> np.ndarray:
    """Row indices as a numpy int64 array, from a pyarrow array (live) or any sequence."""
    if isinstance(rows, (pa.Array, pa.ChunkedArray)):
        return np.asarray(rows.to_numpy(zero_copy_only=False), dtype=np.int64)
    return np.asarray(rows, dtype=np.int64)


def form_key(form: SpecialForm) -> str:
    """The column name of a form's branch in a page row: the form's name and path."""
    where = ".".join(str(i) for i in form.path) or "root"
    return f"{form.name}@{where}"


def _top_level_name(ref, schema: pa.Schema) -> str | None:
    """The data column a reference reads (its first path step), if it resolves."""
    try:
        path = ref.find_one(schema)
    except FieldRefError:
        return None
    return schema.names[path.indices[0]] if path.indices else None


def _node_text(expr, path: tuple) -> str:
    try:
        return _short(node_at(expr, path).to_string())
    except (IndexError, AttributeError):
        return ""


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
