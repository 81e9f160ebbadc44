"""The branch rows of special forms that ran inside a fused loop, for a trace.

Traced, a group's loop (`fusion.py`) writes for each form in it a small integer per
row saying which branch the row took (a case_when's case, `n` for its else; if_else's
0 true, 1 false, 2 null; coalesce's first valid argument; for a chain of and/or, the
first term that decided, each step's right side running where it is past the step's
left terms). From those codes this module records each branch's rows as the form
itself records them when it runs lazily (`forms/*.py`): the same labels, the rows of
the domain the branch got, restricted to the rows the form's own value is used for
(the branches of the forms above it, the group's `RunAs`).

What a group records is the same on every morsel but for the rows, so it is planned
once per group and position (`plan_branches`: the forms, their branches and the tests
on the codes that select each branch's rows); a morsel appends one record for them all
(`FusedBranches`: its codes and the plan). Neither the rows nor their count is made
then: each branch's pieces are made from the record when the trace is read
(`expanded`), their rows and counts from the codes (`_CodesMask`, a `MaskOnRead`), as a
trace is recorded far more often than read: counting on every morsel (a byte compare
per code), and a piece per branch, were a large part of what tracing a form cost.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..observe import MaskOnRead, RowPiece
from ..support import late
from .batch_context import BranchPiece
from .fused_codes import code_matrix
from .fused_kernels import CodeSlot

loops = late.module("toolkit.execution.first_rows_loop")  # numba's import is slow

__all__ = ["BranchPlan", "FormCode", "FusedBranches", "expanded",
           "first_rows_by_code", "plan_branches", "record_branches"]

_EQUAL, _AT_LEAST = "equal", "at least"


class FormCode(NamedTuple):
    """Where a form of a fused group finds its branch code: the code's index among the
    loop's codes, and for a step of an and/or chain, how many terms its left side holds
    (its right side ran where the code is at least that)."""

    index: int
    left_terms: int


class _Test(NamedTuple):
    """Rows whose code of the form in `slot` (where it lies in the codes) is `op` `value`."""

    slot: CodeSlot
    op: str
    value: int


class _Branch(NamedTuple):
    """One branch of a form as the trace names it, and the rows it gets."""

    label: str
    arg_index: int
    test: _Test | None  # None: every row of the form's domain


class _PlannedBranch(NamedTuple):
    """A branch as a morsel records it: its rows are those passing `tests` (within the
    group's used rows); `tests` empty: every row of the domain."""

    label: str
    arg_index: int
    tests: tuple[_Test, ...]


class _PlannedForm(NamedTuple):
    """One form of the group: its position and its branches in the order its lazy run
    records them."""

    at: int
    branches: tuple[_PlannedBranch, ...]


class _CodeBranch(NamedTuple):
    """A branch whose rows, in every morsel of its group, are those whose code passes `test`."""

    key: tuple
    test: _Test


class BranchPlan(NamedTuple):
    """What every morsel of one group at one position records: its forms in the order
    their lazy runs record them; each branch's (form, branch, argument), in that order;
    and the branches one test on a code selects, by the code's slot (a sample reads
    their first rows by code)."""

    forms: tuple[_PlannedForm, ...]
    keys: tuple[tuple, ...] = ()
    by_slot: tuple[tuple[CodeSlot, tuple], ...] = ()


def _branch_plan(forms: tuple[_PlannedForm, ...]) -> BranchPlan:
    keys, by_slot = [], {}
    for form in forms:
        for branch in form.branches:
            key = (form.at, branch.label, branch.arg_index)
            keys.append(key)
            if len(branch.tests) == 1:
                test = branch.tests[0]
                by_slot.setdefault(test.slot, []).append(_CodeBranch(key, test))
    return BranchPlan(forms, tuple(keys),
                      tuple((slot, tuple(members)) for slot, members in by_slot.items()))


def _branches(node, k: CodeSlot, left_terms: int) -> list[_Branch]:
    """The branches of the form `node` (its code in slot `k`; an and/or step's left side
    holds `left_terms` terms of its chain), in the order its lazy run records them."""
    name = node.name
    if name == "case_when":
        cases = len(node.args[0].args)
        out = []
        for i in range(cases):
            out.append(_Branch(f"when {i}", 0, _Test(k, _AT_LEAST, i)))
            out.append(_Branch(f"then {i}", 1 + i, _Test(k, _EQUAL, i)))
        # `cases` is the largest code: no condition held
        out.append(_Branch("else", 1 + cases, _Test(k, _AT_LEAST, cases)))
        return out
    if name == "if_else":
        return [_Branch("then", 1, _Test(k, _EQUAL, 0)), _Branch("else", 2, _Test(k, _EQUAL, 1))]
    if name == "coalesce":
        return [_Branch(f"arg {i}", i, _Test(k, _AT_LEAST, i) if i else None)
                for i in range(len(node.args))]
    return [_Branch("right", 1, _Test(k, _AT_LEAST, left_terms))]  # and_kleene, or_kleene


def _child_tests(node, k: CodeSlot, left_terms: int) -> list[tuple[tuple, _Test | None]]:
    """(path below the form, the rows it is used on) for each argument of the form."""
    name = node.name
    if name == "case_when":
        cases = len(node.args[0].args)
        # the conditions directly (their make_struct records nothing)
        out = [((0, i), _Test(k, _AT_LEAST, i)) for i in range(cases)]
        out += [((1 + i,), _Test(k, _EQUAL, i)) for i in range(cases)]
        return out + [((1 + cases,), _Test(k, _EQUAL, cases))]
    if name == "if_else":
        return [((0,), None), ((1,), _Test(k, _EQUAL, 0)), ((2,), _Test(k, _EQUAL, 1))]
    if name == "coalesce":
        return [((i,), _Test(k, _AT_LEAST, i) if i else None) for i in range(len(node.args))]
    return [((0,), None), ((1,), _Test(k, _AT_LEAST, left_terms))]


def plan_branches(ctx, root, forms, layout, pos) -> BranchPlan:
    """The forms of the group at `root` (position `pos`; `forms`: id(form) -> its
    `FormCode`, indexing `layout`, the slots of their codes) and their branches, walked
    as each form's lazy run walks its arguments."""
    planned = []
    stack = [(root, pos, ())]
    while stack:
        node, at, tests = stack.pop()
        code = forms.get(id(node))
        if code is not None:
            k = layout[code.index]
            planned.append(_PlannedForm(at, tuple(
                _PlannedBranch(b.label, b.arg_index, tests if b.test is None else (*tests, b.test))
                for b in _branches(node, k, code.left_terms))))
            below = _child_tests(node, k, code.left_terms)
        elif node.is_call:
            below = [((i,), None) for i in range(len(node.args))]
        else:
            continue
        for rel, test in below:
            child = node.args[rel[0]] if len(rel) == 1 else node.args[0].args[rel[1]]
            stack.append((child, ctx.position(at, rel),
                          tests if test is None else (*tests, test)))
    return _branch_plan(tuple(planned))


class FusedBranches(NamedTuple):
    """What one morsel of a traced group records of its forms' branches: one record for
    them all (a wide case_when has hundreds of branches, a trace is recorded far more
    often than read); each branch's pieces are made from it when read (`expanded`)."""

    plan: BranchPlan
    codes: object  # code rows x rows: written by the loop, or made on read (`fused_codes`)
    used: pa.Array | None  # the rows of the domain the group's value is used for (None: all)
    domain: object  # the rows of the morsel the group ran on, as recorded (None: all)
    offset: int  # the morsel's first row in the data
    length: int  # the morsel's rows


def record_branches(ctx, plan: BranchPlan, codes, sel, run) -> None:
    """Record the branch rows of every form of `plan` over the domain `sel`, from
    `codes` (code rows x rows, written by its loop or made on read); `run` is how the
    group's value is used (None or every row: all of them). Nothing is counted or made
    here: one record keeps the codes, read when the trace is."""
    used = None if run is None or run.uses_all else run.used
    ctx.branches.append(FusedBranches(plan, codes, used,
                                      sel.as_recorded() if sel is not None else None,
                                      ctx.offset, ctx.batch.num_rows))


def expanded(record: FusedBranches, keys=None) -> list[BranchPiece]:
    """The record's branches as the pieces a lazily run form records (those of `keys`,
    (form, branch, argument) triples, when given): each keeps its rule over the codes
    (`_CodesMask`), its rows and count made when read."""
    domain = record.codes.shape[1]
    values = (record.codes, record.used)
    piece = functools.partial(RowPiece, record.offset, record.length, record.domain)
    out = []
    for form in record.plan.forms:
        for branch in form.branches:
            if keys is not None and (form.at, branch.label, branch.arg_index) not in keys:
                continue
            if branch.tests or record.used is not None:
                out.append(BranchPiece(form.at, branch.label, branch.arg_index,
                                       piece(_CodesMask(branch.tests, values, domain)), None))
            else:
                out.append(BranchPiece(form.at, branch.label, branch.arg_index, piece(None),
                                       domain))
    return out


def _slot_codes(codes, slot: CodeSlot, rows: int) -> np.ndarray:
    """The first `rows` codes of the form in `slot`, out of their packed bytes (`codes`
    written by the loop, or made on read: `fused_codes`)."""
    row = code_matrix(codes, rows)[slot.row]
    return row if slot.bits == 8 else (row >> slot.shift) & ((1 << slot.bits) - 1)


class _CodesMask(MaskOnRead):
    """The rows of a group's domain whose codes pass `rule` (a tuple of `_Test`s), within
    the group's used rows: `values` is (the codes, code rows x rows; the used rows, a
    boolean array or None). Made and counted in numpy from the codes themselves (a
    sample reads the first rows of every branch: pyarrow's fixed cost per call would
    rule there)."""

    __slots__ = ()

    def _make(self, n: int | None) -> pa.Array:
        if self._made is not None:
            return self._made if n is None else self._made.slice(0, n)
        mask = self._bools(n)
        made = pa.Array.from_buffers(pa.bool_(), len(mask),
                                     [None, pa.py_buffer(np.packbits(mask, bitorder="little"))])
        if n is None:
            self._made = made
        return made

    def count(self) -> int:
        if self._made is not None:
            return self._made.true_count
        return int(np.count_nonzero(self._bools(None)))

    def head_bools(self, n: int) -> np.ndarray:
        if self._made is not None:
            return super().head_bools(n)
        return self._bools(n)

    def _bools(self, n: int | None) -> np.ndarray:
        codes, used = self.values
        rows = codes.shape[1] if n is None else min(n, codes.shape[1])
        mask = None
        if used is not None:
            used = used.slice(0, rows)
            if used.null_count:
                used = pc.fill_null(used, False)
            mask = used.to_numpy(zero_copy_only=False)
        for test in self.rule:
            row = _slot_codes(codes, test.slot, rows)
            got = row == test.value if test.op == _EQUAL else row >= test.value
            mask = got if mask is None else mask & got
        return mask


# the prefixes of a morsel's codes looked at in turn for every branch's first rows (the
# codes made for them once, a few more rows each time), before the rest of the morsel
_WINDOWS = (4096, 16384, 65536)


def first_rows_by_code(records: list[FusedBranches], n: int, kept_first: int,
                       skip=frozenset()) -> dict:
    """The first `n` rows of each branch of the fused `records` (every morsel's, in row
    order) that the codes select by one test, the codes decoded once for all the
    branches of one code, over a prefix of each morsel growing until every branch has
    its rows (a wide case_when's or a chain's branches each decoded them, through
    several calls, and a rare branch's search grew alone). The answer maps the branches
    it settles to their first rows, or to None when they have none or all lie among the
    batch's first `kept_first` rows (which a sample holds anyway); the others, and
    those of `skip`, are left to the caller."""
    by_plan: dict[int, list[FusedBranches]] = {}
    for record in records:
        by_plan.setdefault(id(record.plan), []).append(record)
    found: dict = {}
    for morsels in by_plan.values():
        if any(r.used is not None or r.domain is not None for r in morsels):
            continue
        for slot, members in morsels[0].plan.by_slot:
            if skip:
                members = [m for m in members if m.key not in skip]
            if members:
                found.update(_first_rows_of_code(members, morsels, slot, n, kept_first))
    return found


def _first_rows_of_code(members: list[_CodeBranch], morsels: list[FusedBranches],
                        slot: CodeSlot, n: int, kept_first: int) -> dict:
    """The first `n` rows of each member over the morsels, read by one loop over a prefix
    of each morsel's codes (`first_rows_loop`), then longer ones, then for the members
    still short (a rare or empty branch), a vectorized search of the rest each."""
    equal = [m for m in members if m.test.op == _EQUAL]
    at_least = [m for m in members if m.test.op != _EQUAL]
    ordered = equal + at_least
    equal_values = np.array([m.test.value for m in equal], np.uint8)
    at_least_values = np.array([m.test.value for m in at_least], np.uint8)
    rows = np.empty((len(ordered), n), np.int64)
    got = np.zeros(len(ordered), np.int64)
    columns = np.arange(n)
    for record in morsels:
        if got.min() >= n:
            break
        before = got.copy()
        length = record.codes.shape[1]
        start = 0
        for window in _WINDOWS:
            start = loops.first_rows(_slot_codes(record.codes, slot, min(length, window)),
                                     start, equal_values, at_least_values, n, rows, got)
            if start >= length or got.min() >= n:
                break
        else:  # rare branches: each searched alone over the rest of the morsel, vectorized
            rest = _slot_codes(record.codes, slot, length)[start:]
            for j, m in enumerate(ordered):
                if got[j] < n:
                    hits = np.flatnonzero(rest == m.test.value if m.test.op == _EQUAL
                                          else rest >= m.test.value)[:n - got[j]] + start
                    rows[j, got[j]:got[j] + len(hits)] = hits
                    got[j] += len(hits)
        if record.offset:  # the morsel's rows as the batch's
            rows[(columns >= before[:, None]) & (columns < got[:, None])] += record.offset
    out = {}
    for j, m in enumerate(ordered):
        count = int(got[j])
        # none, or all among the batch's first rows (the sample keeps those anyway)
        out[m.key] = None if count == 0 or rows[j, count - 1] < kept_first \
            else rows[j, :count].copy()
    return out