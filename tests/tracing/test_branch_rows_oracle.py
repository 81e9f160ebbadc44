"""The rows a trace reports for each branch of a special form are the rows computed
directly from the data with pyarrow: whatever the morsels, chunks, nulls and the way the
form ran (selected, dense, one kernel), tracing records what the semantics say."""

from __future__ import annotations

import contextlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution import parallel

_VALUES = st.one_of(st.none(), st.integers(-3, 3))


@st.composite
def tables(draw):
    """Three nullable int64 columns, cut into chunks at drawn places."""
    rows = draw(st.integers(1, 300))
    columns = {name: draw(st.lists(_VALUES, min_size=rows, max_size=rows)) for name in "abc"}
    table = pa.table({name: pa.array(v, pa.int64()) for name, v in columns.items()})
    cuts = sorted(set(draw(st.lists(st.integers(1, rows), max_size=3))) - {rows})
    starts = [0, *cuts]
    stops = [*cuts, rows]
    return pa.Table.from_batches([b for s, e in zip(starts, stops)
                                  for b in table.slice(s, e - s).to_batches()] or
                                 table.to_batches(), schema=table.schema)


_CONDITIONS = st.tuples(st.sampled_from("abc"), st.sampled_from(["greater", "less", "equal"]),
                        st.integers(-3, 3))


def _condition(spec):
    column, op, value = spec
    return tk.call(op, [tk.field(column), tk.literal(value)])


def _direct(spec, table) -> np.ndarray:
    """The condition's value per row computed by pyarrow: 1 true, 0 false, -1 null."""
    column, op, value = spec
    got = getattr(pc, op)(table[column], value).combine_chunks()
    out = np.where(pc.fill_null(got, False).to_numpy(zero_copy_only=False), 1, 0)
    out[got.is_null().to_numpy(zero_copy_only=False)] = -1
    return out


def _rows(mask: np.ndarray) -> list[int]:
    return np.flatnonzero(mask).tolist()


@contextlib.contextmanager
def _morsels(rows: int | None):
    saved = parallel.MORSEL_ROWS
    parallel.MORSEL_ROWS = rows
    try:
        yield
    finally:
        parallel.MORSEL_ROWS = saved


def _recorded(expr, table, morsel_rows) -> dict[str, list[int]]:
    """branch name -> the rows the trace reports for the root form's branch."""
    with _morsels(morsel_rows), tk.trace() as t:
        tk.evaluate(expr, table, simplify=False)  # the tree as built: no case folded away
    event = t.evaluations[-1]
    return {b.branch: b.rows.to_pylist() for b in event.branches if tuple(b.path) == ()}


def _same(recorded: dict, expected: dict) -> None:
    for name, rows in expected.items():
        assert recorded.get(name, []) == rows, (name, recorded.get(name), rows)


_SETTINGS = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_MORSELS = st.sampled_from([None, 1, 7, 64])


@given(table=tables(), cond=_CONDITIONS, morsel_rows=_MORSELS)
@_SETTINGS
def test_if_else_then_and_else_rows_are_where_the_condition_is_true_and_false(
        table, cond, morsel_rows):
    c = _direct(cond, table)
    expr = tk.if_else(_condition(cond), tk.field("b") * 2, tk.field("c"))
    _same(_recorded(expr, table, morsel_rows), {"then": _rows(c == 1), "else": _rows(c == 0)})


@given(table=tables(), left=_CONDITIONS, right=_CONDITIONS, morsel_rows=_MORSELS,
       kind=st.sampled_from(["and", "or"]))
@_SETTINGS
def test_and_or_right_side_rows_are_where_the_left_side_does_not_decide(
        table, left, right, morsel_rows, kind):
    c = _direct(left, table)
    build = tk.and_ if kind == "and" else tk.or_
    decides = 0 if kind == "and" else 1  # false decides `and`, true decides `or`; null neither
    expr = build(_condition(left), _condition(right))
    _same(_recorded(expr, table, morsel_rows), {"right": _rows(c != decides)})


@given(table=tables(), morsel_rows=_MORSELS)
@_SETTINGS
def test_coalesce_argument_rows_are_where_every_earlier_argument_is_null(table, morsel_rows):
    a, b = (table[n].combine_chunks().is_null().to_numpy(zero_copy_only=False) for n in "ab")
    expr = tk.coalesce(tk.field("a"), tk.field("b") + 1, tk.field("c"))
    _same(_recorded(expr, table, morsel_rows), {"arg 1": _rows(a), "arg 2": _rows(a & b)})


@given(table=tables(), conds=st.lists(_CONDITIONS, min_size=1, max_size=5),
       morsel_rows=_MORSELS)
@_SETTINGS
def test_case_when_rows_are_the_first_true_condition_and_what_no_case_took(
        table, conds, morsel_rows):
    expr = tk.case_when([(_condition(c), tk.field("b") * (i + 1)) for i, c in enumerate(conds)],
                        else_=tk.field("c"))
    left = np.ones(table.num_rows, dtype=bool)  # the rows no earlier case took
    expected = {}
    for i, spec in enumerate(conds):
        expected[f"when {i}"] = _rows(left)
        taken = left & (_direct(spec, table) == 1)
        expected[f"then {i}"] = _rows(taken)
        left = left & ~taken
    expected["else"] = _rows(left)
    recorded = _recorded(expr, table, morsel_rows)
    # a case after every row was taken is recorded as run on no rows
    _same(recorded, {k: v for k, v in expected.items() if v or k in recorded})
