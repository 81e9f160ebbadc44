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
on the codes that select each branch's rows); a morsel appends one piece per branch,
holding its codes and the tests. Neither the rows nor their count is made then: both
are made from the codes when the trace is read (`_CodesMask`, a `MaskOnRead`; the
count by `BranchSelection.count`), as a trace is recorded far more often than read:
counting on every morsel (a byte compare per code) was a large part of what tracing
a small form cost.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..observe import MaskOnRead, RowPiece
from .batch_context import BranchPiece
from .fused_kernels import CodeSlot

__all__ = ["BranchPlan", "FormCode", "first_rows_by_code", "plan_branches", "record_branches"]

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


class BranchPlan(NamedTuple):
    """What every morsel of one group at one position records: its forms in the order
    their lazy runs record them."""

    forms: tuple[_PlannedForm, ...]


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
    return BranchPlan(tuple(planned))


def record_branches(ctx, plan: BranchPlan, codes: np.ndarray, sel, run) -> None:
    """Record the branch rows of every form of `plan` over the domain `sel`, from
    `codes` (code rows x rows) its loop wrote; `run` is how the group's value is used
    (None or every row: all of them). Nothing is counted or made here: each branch
    keeps its rule over the codes (`_CodesMask`), read when the trace is."""
    domain = codes.shape[1]
    used = None if run is None or run.uses_all else run.used
    values = (codes, used)
    piece = functools.partial(RowPiece, ctx.offset, ctx.batch.num_rows,
                              sel.as_recorded() if sel is not None else None)
    add = ctx.branches.append
    for form in plan.forms:
        for branch in form.branches:
            if branch.tests or used is not None:
                add(BranchPiece(form.at, branch.label, branch.arg_index,
                                piece(_CodesMask(branch.tests, values, domain)), None))
            else:
                add(BranchPiece(form.at, branch.label, branch.arg_index, piece(None), domain))


def _slot_codes(codes: np.ndarray, slot: CodeSlot, rows: int) -> np.ndarray:
    """The first `rows` codes of the form in `slot`, out of their packed bytes."""
    row = codes[slot.row, :rows]
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


_PREFIX = 4096  # rows of a morsel's codes looked at for every branch's first rows at once


def first_rows_by_code(branches: dict, n: int, kept_first: int) -> dict:
    """The first `n` rows of each branch a fused loop's codes select by one test, the
    morsel's first codes decoded once for all the branches of one code (a wide
    case_when's or a chain's branches each decoded them, through several calls, for a
    few microseconds of numpy each). `branches` maps a branch to its slices' pieces (in
    row order); the answer maps the branches it settles to their rows, or to None when
    they all lie among the batch's first `kept_first` rows (which a sample holds
    anyway). A branch whose first morsel holds fewer than `n` of its rows in the rows
    looked at is left to the caller."""
    by_code: dict[tuple, list] = {}
    for key, parts in branches.items():
        piece = parts[0].piece
        mask = piece.picked
        if piece.domain is not None or parts[0].count is not None \
                or not isinstance(mask, _CodesMask) or len(mask.rule) != 1 \
                or mask.values[1] is not None:
            continue
        test = mask.rule[0]
        by_code.setdefault((id(mask.values[0]), test.slot), []).append((key, test, piece))
    found: dict = {}
    for members in by_code.values():
        if len(members) < 2:  # one branch: its own pass is as quick
            continue
        piece = members[0][2]
        codes = piece.picked.values[0]
        row = _slot_codes(codes, members[0][1].slot, min(codes.shape[1], _PREFIX))
        head = row[:kept_first] if piece.offset == 0 else row[:0]
        for key, test, piece in members:
            equal = test.op == _EQUAL
            if len(head) and np.count_nonzero(head == test.value if equal
                                              else head >= test.value) >= n:
                found[key] = None
                continue
            first = np.flatnonzero(row == test.value if equal else row >= test.value)[:n]
            if len(first) == n:
                found[key] = first + piece.offset
    return found
