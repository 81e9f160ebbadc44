"""What a traced evaluation puts off until the trace is read gives what recording it at
once gave: the rows of a nested and/or (made from the left sides' values on read), the
first rows the sample keeps, the node figures, the sample's columns; each checked
against pyarrow computing it from the data."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution import recorded_branches
from toolkit.execution.evaluation import SAMPLE_FIRST, SAMPLE_PER_BRANCH
from toolkit.observe import Deferred

_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _table(seed: int, rows: int, null_share: float) -> pa.Table:
    rng = np.random.default_rng(seed)
    cols = {}
    for name in "abc":
        values = rng.integers(-3, 4, rows)
        cols[name] = pa.array(values, mask=rng.random(rows) < null_share)
    cols["unread"] = pa.array(rng.random(rows))
    return pa.table(cols)


def _truth(table, column, op, value) -> np.ndarray:
    """1 true, 0 false, -1 null: the condition as pyarrow computes it."""
    got = getattr(pc, op)(table[column], value).combine_chunks()
    out = np.where(pc.fill_null(got, False).to_numpy(zero_copy_only=False), 1, 0)
    out[got.is_null().to_numpy(zero_copy_only=False)] = -1
    return out


_COND = st.tuples(st.sampled_from("abc"), st.sampled_from(["greater", "less", "equal"]),
                  st.integers(-3, 3))


def _cond(spec):
    column, op, value = spec
    return tk.call(op, [tk.field(column), tk.literal(value)])


@given(seed=st.integers(0, 10_000), null_share=st.sampled_from([0.0, 0.1, 0.6]),
       outer=st.sampled_from(["and", "or"]), specs=st.tuples(_COND, _COND, _COND))
@_SETTINGS
def test_nested_and_or_rows_read_later_are_what_the_semantics_say(seed, null_share, outer,
                                                                 specs):
    """`x or (y and z)` / `x and (y or z)` on 30,000 rows (a sample, several morsels): the
    inner form's right side gets the rows neither left side decides; its count, its first
    rows and all its rows, read after the evaluation, are pyarrow's."""
    table = _table(seed, 30_000, null_share)
    inner = "or" if outer == "and" else "and"
    build = {"and": tk.and_, "or": tk.or_}
    expr = build[outer](_cond(specs[0]), build[inner](_cond(specs[1]), _cond(specs[2])))
    with tk.trace() as t:
        tk.evaluate(expr, table, simplify=False)
    event = t.evaluations[-1]
    decides = {"and": 0, "or": 1}  # false decides `and`, true decides `or`; null neither
    x, y = (_truth(table, *specs[k]) for k in (0, 1))
    outer_right = np.flatnonzero(x != decides[outer])
    inner_right = np.flatnonzero((x != decides[outer]) & (y != decides[inner]))
    by_path = {tuple(b.path): b for b in event.branches}
    for path, expected in (((), outer_right), ((1,), inner_right)):
        branch = by_path[path]
        assert branch.count == len(expected)
        assert branch.first(SAMPLE_PER_BRANCH).to_pylist() == \
            expected[:SAMPLE_PER_BRANCH].tolist()
        # the sample holds the first rows of every branch and the first rows of the batch
        assert set(expected[:SAMPLE_PER_BRANCH].tolist()) <= set(event.sample.to_pylist())
        assert branch.rows.to_pylist() == expected.tolist()
    # the right side's node figures: computed on every row, used on the undecided ones
    right = next(n for n in event.nodes if tuple(n.path) == (1,))
    assert right.used_rows == len(outer_right)


def test_node_figures_are_made_on_first_read_and_then_kept():
    table = _table(1, 20_000, 0.1)
    with tk.trace() as t:
        tk.evaluate("a > 0 or b < 1", table)
    event = t.evaluations[0]
    assert isinstance(event.__dict__["_nodes"], Deferred)  # nothing made while recording
    nodes = event.nodes
    assert event.nodes is nodes and not isinstance(event.__dict__["_nodes"], Deferred)
    rows = {n.label: n.rows for n in nodes}
    assert rows["or_kleene"] == rows["greater"] == 20_000
    undecided = int(pc.sum(pc.invert(pc.fill_null(pc.greater(table["a"], 0), False))).as_py())
    assert next(n for n in nodes if n.label == "less").used_rows == undecided


def test_a_sample_keeps_the_rows_of_the_columns_the_expression_reads():
    table = _table(2, 20_000, 0.2)
    with tk.trace() as t:
        value = tk.evaluate("if(a > 0, b * 2, c)", table)
    event = t.evaluations[0]
    assert event.data.schema.names == ["a", "b", "c"]  # `unread` is not read: not kept
    rows = event.sample
    assert len(rows) >= SAMPLE_FIRST
    assert event.data.equals(table.select(["a", "b", "c"]).take(rows).combine_chunks()
                             ) or event.data.to_pydict() == \
        table.select(["a", "b", "c"]).take(rows).to_pydict()
    assert event.result.to_pylist() == value.take(rows).to_pylist()


@given(seed=st.integers(0, 10_000), null_share=st.sampled_from([0.0, 0.2]),
       specs=st.lists(_COND, min_size=2, max_size=6))
@_SETTINGS
def test_a_funnels_when_rows_made_on_read_are_the_rows_no_earlier_case_took(seed, null_share,
                                                                           specs):
    """A case_when on 40,000 rows (funnelled): every `when i` is kept as `when i-1` less
    `then i-1`, made when read. Each `when` and `then`, whole and its first rows, is
    the rows pyarrow's conditions give, in whatever order the branches are read."""
    table = _table(seed, 40_000, null_share)
    expr = tk.case_when([(_cond(s), tk.field("b") * (i + 1)) for i, s in enumerate(specs)],
                        else_=tk.field("c"))
    with tk.trace() as t:
        tk.evaluate(expr, table, simplify=False)
    event = t.evaluations[-1]
    left = np.ones(table.num_rows, dtype=bool)
    expected = {}
    for i, spec in enumerate(specs):
        expected[f"when {i}"] = np.flatnonzero(left)
        taken = left & (_truth(table, *spec) == 1)
        expected[f"then {i}"] = np.flatnonzero(taken)
        left &= ~taken
    expected["else"] = np.flatnonzero(left)
    by_name = {b.branch: b for b in event.branches if tuple(b.path) == ()}
    for name, rows in expected.items():
        if name not in by_name:
            assert len(rows) == 0, name  # a case after every row was taken: not run
            continue
        branch = by_name[name]
        assert branch.count == len(rows), name
        assert branch.first(SAMPLE_PER_BRANCH).to_pylist() == \
            rows[:SAMPLE_PER_BRANCH].tolist(), name
    for name in reversed(list(by_name)):  # the last `when` first: a chain made in one go
        assert by_name[name].rows.to_pylist() == expected[name].tolist(), name


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**16), st.integers(2, 12), st.booleans(), st.booleans())
def test_the_sample_holds_the_first_rows_of_every_case_when_branch(seed, cases, with_else,
                                                                 fuse):
    """Fused or not, with an else or without: the first rows of every `when i`, `then i`
    and the else are in the sample (a `when i`'s are found among its later cases' when
    an else is recorded), the first rows of the batch too."""
    rng = np.random.default_rng(seed)
    n = 40_000
    k = rng.integers(0, 1000, n)
    table = pa.table({"k": pa.array(k, mask=rng.random(n) < 0.1), "b": rng.random(n)})
    cuts = np.sort(rng.integers(1, 1000, cases))
    whens = " ".join(f"when k >= {c} then b * {i}" for i, c in enumerate(cuts[::-1]))
    expr = tk.parse(f"case {whens} {'else 0.5 ' if with_else else ''}end")
    with tk.trace() as t:
        tk.evaluate(expr, table, fuse=fuse)
    event = t.evaluations[-1]
    sample = set(event.sample.to_pylist())
    assert set(range(SAMPLE_FIRST)) <= sample
    for branch in event.branches:
        first = branch.first(SAMPLE_PER_BRANCH).to_pylist()
        assert set(first) <= sample, (branch.branch, first)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**16), st.sampled_from([
    "case when k >= 900 then b when k >= 500 then b * 2 when k >= 100 then b * 3 else 0.5 end",
    "case when k < 3 then b when k < 600 then b * 2 end",
    "k > 20 and b < 0.9 and k < 990 and b > 0.05 and k != 500",
    "k = 7 or k = 14 or k = 21 or b < 0.001",
    "if_else(k > 995, b * 2, b + 1)", "coalesce(x, b * 2, 0.5)"]))
def test_a_fused_forms_first_rows_read_by_code_are_the_branch_by_branch_ones(seed, text):
    """The sample of a traced fused evaluation, its branches' first rows read for all the
    branches of one code at once, is the sample read branch by branch: the same rows, the
    same branches left to the batch's first rows."""
    rng = np.random.default_rng(seed)
    n = 40_000
    table = pa.table({"k": pa.array(rng.integers(0, 1000, n), mask=rng.random(n) < 0.1),
                      "b": rng.random(n),
                      "x": pa.array(rng.random(n), mask=rng.random(n) < 0.5)})

    def sample():
        with tk.trace() as t:
            tk.evaluate(text, table, fuse=True)
        return t.evaluations[-1].sample.to_pylist()

    by_code = sample()
    with mock.patch.object(recorded_branches, "first_rows_by_code", lambda *args, **kw: {}):
        assert by_code == sample(), text
