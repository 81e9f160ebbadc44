"""Which branch of every special form each row of an evaluation took: computed once, here.

The engine records, per special form, the batch rows each branch ran on
(`BranchSelection`). This turns them into the answer a person reads for every
row and every form: the branch that gave the row its value, or that the row
never reached the form (an outer branch skipped it). The HTML report's row
table and the notebook's selection view both read it, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..observe import BranchSelection
from ..tracing.steps import branch_target
from .labels import bounded_text
from .selection_strip import row_indices

__all__ = ["NOT_REACHED", "NULL_BECAUSE", "NULL_BRANCH", "BranchTable", "NullRows",
           "SpecialForm", "folded_rows", "is_value_branch", "null_selections"]

NOT_REACHED = "·"  # the row never reached this special form (an outer branch skipped it)
_CONDITION_PREFIX = "when "  # case_when's condition branches: they decide, they give no value
_DISJOINT = frozenset({"if_else", "case_when", "choose"})  # each row takes one branch at most
NULL_BRANCH = "null"  # the rows a form gave null without a branch (a null condition, no match)


NULL_BECAUSE = {"if_else": "a null condition", "case_when": "no when matched",
                "choose": "a null index"}


def is_value_branch(branch) -> bool:
    """Whether a recorded branch gave rows their value (case_when's `when k` only decides)."""
    return not branch.branch.startswith(_CONDITION_PREFIX)


def folded_rows(node, branches_at, first: int, last: int) -> int | None:
    """How many rows took a value from arguments `first` to `last` of `node` (a wide
    node's folded middle); `branches_at(i)` gives the recorded branches that hand rows to
    argument i. None: no branch of those arguments was recorded.

    The branches of `case_when` and `choose` take disjoint rows, so theirs add up. A
    `coalesce`'s `arg k` holds the rows that reached argument k, each a subset of the
    ones before it: adding them up counts a row once per argument it passed. The rows
    its folded arguments gave a value to are the ones that reached the first of them
    and not the argument after the last."""
    if node.is_call and node.name == "coalesce":
        reached = [b.count for b in branches_at(first)]
        if not reached:
            return None
        return sum(reached) - sum(b.count for b in branches_at(last + 1))
    counts = [b.count for i in range(first, last + 1) for b in branches_at(i)
              if is_value_branch(b)]
    return sum(counts) if counts else None


def null_selections(event) -> list:
    """For each if_else, case_when and choose of `event`, the rows that reached it and that
    no branch gave a value (a null condition or index, no `when` matched and no `else`), as
    a `BranchSelection` named `null` (no argument: `arg_index` -1). Forms with none are left
    out, so a form's branches and its null rows add up to the rows that reached it."""
    nulls = NullRows(event)
    found = (nulls.at(form.path) for form in nulls.forms())
    return [null for null in found if null is not None]


class NullRows:
    """The null rows of one form at a time (`null_selections`' answer for that form).

    Finding a form's null rows reads the rows of its branches and of the scope around
    it; a picture asks only for the forms it draws, so a 1,000-deep nested if_else over
    a million rows reads the few forms on screen, not all of them."""

    def __init__(self, event):
        self.event = event
        self._table: BranchTable | None = None
        self._found: dict[tuple, BranchSelection | None] = {}

    def forms(self) -> list:
        """The special forms of the evaluation (none when it recorded no branch)."""
        table = self._branch_table()
        return [] if table is None else table.forms

    def at(self, path) -> BranchSelection | None:
        """The null rows of the form at `path` (None: not a form, or no row got null)."""
        if path not in self._found:
            table = self._branch_table()
            form = None if table is None else table.form_at(path)
            self._found[path] = None if form is None else _null_rows(table, form)
        return self._found[path]

    def _branch_table(self) -> BranchTable | None:
        if self._table is None and self.event.branches and self.event.expr is not None:
            self._table = BranchTable(self.event)
        return self._table


def _null_rows(table: BranchTable, form: SpecialForm) -> BranchSelection | None:
    if form.name not in NULL_BECAUSE:
        return None
    values = [b for b in form.branches if is_value_branch(b)]
    reaching = table.rows_reaching(form.path)
    if (table.num_rows if reaching is None else len(reaching)) <= sum(b.count for b in values):
        return None  # every row that reached it took a branch: no rows to read
    base = np.arange(table.num_rows, dtype=np.int64) if reaching is None else reaching
    taken = [row_indices(b.rows) for b in values]
    # a cost of the rows that reached the form, not of the batch (deep chains). The
    # rows are unique (a row reaches a form once and takes one branch of it), so no
    # np.unique of either side: that hash pass is the slowest step on millions of rows
    null_rows = np.setdiff1d(base, np.concatenate(taken), assume_unique=True) if taken else base
    if not null_rows.size:
        return None
    return BranchSelection(form.path, NULL_BRANCH, -1, pa.array(null_rows, pa.int64()),
                           table.num_rows, count=int(null_rows.size))


@dataclass
class SpecialForm:
    path: tuple
    name: str
    text: str
    branches: list  # the BranchSelections of this form, in the order they ran


class BranchTable:
    """The special forms of one evaluation and, per row, the branch of each that it took."""

    def __init__(self, event):
        self.event = event
        self.expr = event.expr
        self.num_rows = event.num_rows
        self._scope_rows: dict[tuple, np.ndarray] = {}
        self._scope_of = self._innermost_scopes()  # node path -> its deepest branch scope
        self.forms = self._forms()
        self._taken_by_form: dict[tuple, tuple] = {}
        self._form_by_path: dict[tuple, SpecialForm] | None = None

    def node(self, path):
        """The tree node at `path`, if the evaluated tree has one there."""
        return self._nodes.get(path)

    def form_at(self, path) -> SpecialForm | None:
        """The special form at `path`, if one recorded branches there."""
        if self._form_by_path is None:
            self._form_by_path = {form.path: form for form in self.forms}
        return self._form_by_path.get(path)

    def taken(self, form: SpecialForm) -> tuple[list[str], np.ndarray]:
        """The branch names of `form`, and per row the index of the name it took (built once)."""
        found = self._taken_by_form.get(form.path)
        if found is None:
            found = self._taken_by_form[form.path] = self._branch_per_row(form)
        return found

    def branch_counts(self, form: SpecialForm) -> dict[str, int]:
        """How many rows took each branch (and how many never reached the form).

        Forms whose branches take disjoint rows (`if_else`, `case_when`, `choose`) are
        counted from the recorded counts, without building any row's branch.
        """
        if form.name in _DISJOINT and form.path not in self._taken_by_form:
            counts: dict[str, int] = {}
            for b in form.branches:
                if not b.branch.startswith(_CONDITION_PREFIX):
                    counts[b.branch] = counts.get(b.branch, 0) + b.count
            reached = self.first_rows_reaching(form.path, 0)
            reaching = self.num_rows if reached is None else reached[1]
            rest = {NOT_REACHED: self.num_rows - reaching, "null": reaching - sum(counts.values())}
            return {name: n for name, n in {**rest, **counts}.items() if n}
        names, codes = self.taken(form)
        counts = np.bincount(codes, minlength=len(names))
        return {name: int(n) for name, n in zip(names, counts) if n}

    def taken_at(self, form: SpecialForm, rows: np.ndarray) -> list[str]:
        """The branch of `form` that each of `rows` took, reading only the selections'
        rows up to them when the whole column is not built yet (a page of 20 rows of a
        5,000,000-row, 250-branch form)."""
        found = self._taken_by_form.get(form.path)
        if found is not None:
            names, codes = found
            return [names[c] for c in codes[rows]]
        rows = np.asarray(rows, dtype=np.int64)
        best = self._scope_of.get(form.path)
        reached = np.ones(len(rows), dtype=bool) if best is None else \
            _member(self._branches_of[best], rows)
        fallback = "left" if form.name in ("and_kleene", "or_kleene") else "null"
        out = np.where(reached, fallback, NOT_REACHED).astype(object)
        for b in form.branches:  # in run order, as `_branch_per_row`
            if not b.branch.startswith(_CONDITION_PREFIX):
                out[_member([b], rows)] = b.branch
        return out.tolist()

    def rows_reaching(self, path: tuple) -> np.ndarray | None:
        """The rows of the deepest branch selection above `path`; None means every row."""
        best = self._scope_of.get(path)
        if best is None:
            return None
        if best not in self._scope_rows:
            # a scope is entered once per slice of the data, on disjoint rows: join them
            parts = [row_indices(b.rows) for b in self._branches_of[best]]
            rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
            if len(rows) > 1 and not bool(np.all(rows[1:] >= rows[:-1])):
                rows = np.sort(rows)
            self._scope_rows[best] = rows
        return self._scope_rows[best]

    def first_rows_reaching(self, path: tuple, n: int | None = None
                            ) -> tuple[np.ndarray, int] | None:
        """The first `n` rows (all when None) of `rows_reaching(path)` and how many there
        are, reading only those rows of each selection: a 250-branch form's node list
        shows a dozen rows per node, not 5,000,000 indices per branch."""
        best = self._scope_of.get(path)
        if best is None:
            return None
        if n is None or best in self._scope_rows:
            rows = self.rows_reaching(path)
            return rows[:n], len(rows)
        branches = self._branches_of[best]
        firsts = np.sort(np.concatenate([row_indices(b.first(n)) for b in branches]))
        return firsts[:n], sum(b.count for b in branches)

    # -- internals ------------------------------------------------------------------
    def _forms(self) -> list[SpecialForm]:
        """The special forms that recorded branches, outermost and leftmost first (pre-order)."""
        by_path: dict[tuple, list] = {}
        for b in self.event.branches:
            by_path.setdefault(b.path, []).append(b)
        order = [p for p in self._preorder if p in by_path]
        order += [p for p in by_path if p not in self._nodes]  # not in the tree: kept, last
        forms = []
        for path in order:
            node = self._nodes.get(path)
            forms.append(SpecialForm(path=path, name=getattr(node, "name", "?"),
                                     text=bounded_text(node, 60, short=True),
                                     branches=by_path[path]))
        return forms

    def _innermost_scopes(self) -> dict[tuple, tuple | None]:
        """Every node's path -> the deepest branch scope it lies in (one walk of the tree).

        Also keeps each node by its path, and the paths in pre-order. Linear in
        the tree: paths are the trace's `TreePath`s, grown one step per level.
        """
        self._branches_of: dict[tuple, list] = {}
        for b in self.event.branches:
            self._branches_of.setdefault(branch_target(self.expr, b), []).append(b)
        scopes = self._branches_of
        out: dict[tuple, tuple | None] = {}
        self._nodes: dict[tuple, object] = {}
        self._preorder: list = []
        if self.expr is None:
            return out
        stack = [(self.event.root_path(), self.expr, None)]
        while stack:
            path, node, scope = stack.pop()
            if path in scopes:
                scope = path
            out[path] = scope
            self._nodes[path] = node
            self._preorder.append(path)
            for i in range(len(node.args) - 1, -1, -1):
                stack.append((path.child(i), node.args[i], scope))
        return out

    def _branch_per_row(self, form: SpecialForm) -> tuple[list[str], np.ndarray]:
        """The form's branch names and, per row, the index of the one that gave its value."""
        reaching = self.rows_reaching(form.path)
        fallback = "left" if form.name in ("and_kleene", "or_kleene") else NULL_BRANCH
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
            codes[row_indices(b.rows)] = names.index(b.branch)
        return names, codes



def _member(branches, rows: np.ndarray) -> np.ndarray:
    """Which of `rows` the branch selections hold, converting each piece only up to the
    last of `rows` inside it."""
    mask = np.zeros(len(rows), dtype=bool)
    for b in branches:
        for piece in b.as_pieces():
            inside = (rows >= piece.offset) & (rows < piece.offset + piece.length)
            if not inside.any():
                continue
            local = rows[inside] - piece.offset
            held = row_indices(piece._within(int(local.max()) + 1))
            mask[inside] |= np.isin(local, held)
    return mask
