"""The branch rows of special forms that ran inside a fused loop, for a trace.

Traced, a group's loop (`fusion.py`) writes for each form in it a small integer per
row saying which branch the row took (a case_when's case, `n` for its else; if_else's
0 true, 1 false, 2 null; coalesce's first valid argument; and/or's 1 where the left
side decided). From those codes this module records each branch's rows as the form
itself records them when it runs lazily (`forms/*.py`): the same labels, the rows of
the domain the branch got, restricted to the rows the form's own value is used for
(the branches of the forms above it, the group's `RunAs`). Counts are taken now (one
bincount per form); the masks are made only when the trace's rows are read
(`MaskOnRead`): a trace is recorded far more often than read.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..observe import MaskOnRead
from .selection import SelectionVector

__all__ = ["record_branches"]

_EQUAL, _AT_LEAST = "equal", "at least"


class _Test(NamedTuple):
    """Rows whose code of form `form` (a row of the codes) is `op` `value`."""

    form: int
    op: str
    value: int


class _Branch(NamedTuple):
    """One branch of a form as the trace names it, and the rows it gets."""

    label: str
    arg_index: int
    test: _Test | None  # None: every row of the form's domain


def _branches(node, k: int) -> list[_Branch]:
    """The branches of the form `node` (code row `k`), in the order its lazy run records
    them."""
    name = node.name
    if name == "case_when":
        cases = len(node.args[0].args)
        out = []
        for i in range(cases):
            out.append(_Branch(f"when {i}", 0, _Test(k, _AT_LEAST, i)))
            out.append(_Branch(f"then {i}", 1 + i, _Test(k, _EQUAL, i)))
        # `cases` is the largest code: counted as the rows left by the others
        out.append(_Branch("else", 1 + cases, _Test(k, _AT_LEAST, cases)))
        return out
    if name == "if_else":
        return [_Branch("then", 1, _Test(k, _EQUAL, 0)), _Branch("else", 2, _Test(k, _EQUAL, 1))]
    if name == "coalesce":
        return [_Branch(f"arg {i}", i, _Test(k, _AT_LEAST, i) if i else None)
                for i in range(len(node.args))]
    return [_Branch("right", 1, _Test(k, _EQUAL, 0))]  # and_kleene, or_kleene


def _child_tests(node, k: int) -> list[tuple[tuple, _Test | None]]:
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
    return [((0,), None), ((1,), _Test(k, _EQUAL, 0))]


def record_branches(ctx, root, forms: Mapping[int, int], codes: np.ndarray, pos, sel,
                    run) -> None:
    """Record the branch rows of every form of the group at `root` (position `pos`, over
    the domain `sel`), from `codes` (forms x rows) its loop wrote; `run` is how the
    group's value is used (None or every row: all of them)."""
    domain = codes.shape[1]
    used = None if run is None or run.uses_all else run.used
    used_np = None if used is None else \
        np.asarray(pc.fill_null(used, False).to_numpy(zero_copy_only=False), np.bool_)
    # the codes as Arrow arrays, without a copy (`pa.array` copies a numpy array)
    arrays = [pa.Array.from_buffers(pa.uint8(), domain, [None, pa.py_buffer(row)])
              for row in codes]
    stack = [(root, pos, ())]
    while stack:
        node, at, tests = stack.pop()
        k = forms.get(id(node))
        if k is not None:
            _record_form(ctx, node, k, at, sel, tests, codes, arrays, used, used_np, domain)
            below = _child_tests(node, k)
        elif node.is_call:
            below = [((i,), None) for i in range(len(node.args))]
        else:
            continue
        for rel, test in below:
            child = node.args[rel[0]] if len(rel) == 1 else node.args[0].args[rel[1]]
            stack.append((child, ctx.position(at, rel),
                          tests if test is None else (*tests, test)))


def _record_form(ctx, node, k, at, sel, tests, codes, arrays, used, used_np, domain) -> None:
    mine = _mask(tests, codes, used_np)
    total = domain if mine is None else int(np.count_nonzero(mine))
    counts = _Counts(codes[k] if mine is None else codes[k][mine])
    for branch in _branches(node, k):
        test = branch.test
        if test is None:
            count = total
        elif test.op == _EQUAL:
            count = counts.of(test.value)
        else:
            count = total - sum(counts.of(v) for v in range(test.value))
        if count == 0:
            rows = SelectionVector.none(domain)
        elif count == domain:
            rows = SelectionVector.all(domain)
        else:
            all_tests = tests if test is None else (*tests, test)
            forms = sorted({t.form for t in all_tests})
            values = tuple(arrays[f] for f in forms) + (() if used is None else (used,))
            rule = functools.partial(_rows_rule, tuple(all_tests), tuple(forms))
            rows = SelectionVector.made_on_read(domain, count, MaskOnRead(rule, values, domain))
        ctx.record_branch(at, branch.label, branch.arg_index, sel,
                          None if rows.is_all else rows)


class _Counts:
    """How many rows hold each code, counted when first asked: a pass per code while
    few are asked for (a byte compare and count is several times faster than
    `np.bincount`, which widens every code to an int64 first), one bincount after."""

    __slots__ = ("_codes", "_counted", "_every")

    def __init__(self, codes: np.ndarray):
        self._codes = codes
        self._counted: dict[int, int] = {}
        self._every = None

    def of(self, value: int) -> int:
        found = self._counted.get(value)
        if found is not None:
            return found
        if self._every is None and len(self._counted) >= _FEW_CODES:
            self._every = np.bincount(self._codes, minlength=256)
        if self._every is not None:
            found = int(self._every[value])
        else:
            found = int(np.count_nonzero(self._codes == value))
        self._counted[value] = found
        return found


_FEW_CODES = 8


def _mask(tests, codes: np.ndarray, used_np) -> np.ndarray | None:
    """The rows `tests` (and the group's used rows) select, as numpy bools (None: all)."""
    mask = used_np
    for test in tests:
        row = codes[test.form]
        got = row == test.value if test.op == _EQUAL else row >= test.value
        mask = got if mask is None else mask & got
    return mask


def _rows_rule(tests, forms, *values) -> pa.Array:
    """The mask of `tests` over code arrays `values` (one per form of `forms`, then the
    group's used rows when given): a MaskOnRead rule, row by row."""
    where = {f: i for i, f in enumerate(forms)}
    mask = values[len(forms)] if len(values) > len(forms) else None
    if mask is not None:
        mask = pc.fill_null(mask, False)
    for test in tests:
        column = values[where[test.form]]
        scalar = pa.scalar(test.value, pa.uint8())
        got = pc.equal(column, scalar) if test.op == _EQUAL else pc.greater_equal(column, scalar)
        mask = got if mask is None else pc.and_(mask, got)
    return mask
