"""Traced special forms whose branches are all cheap run Arrow's one kernel, and still
record, per branch, exactly the rows the selection path records.

A form nested in such a branch runs on every row of the domain (the trace's node
statistics say so), so its own branches record the rows of that larger domain.
"""

import contextlib

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution import dense_path
from toolkit.execution.forms import case_when as case_when_form  # the module

_INTS = st.lists(st.one_of(st.none(), st.integers(-3, 3)), min_size=1, max_size=60)


def _cheap_expressions():
    """Special forms over cheap children only (nothing can fail, fixed-width values)."""
    leaves = st.one_of(st.sampled_from([tk.field("a"), tk.field("b")]),
                       st.one_of(st.none(), st.integers(-3, 3)).map(
                           lambda v: tk.literal(v, pa.int64())))

    def grow(children):
        conds = st.one_of(
            st.tuples(st.sampled_from(["greater", "equal", "not_equal"]), children, children)
            .map(lambda t: tk.call(t[0], [t[1], t[2]])),
            st.sampled_from([tk.literal(True), tk.literal(False), tk.literal(None, pa.bool_())]))
        logic = st.tuples(st.sampled_from([tk.and_, tk.or_]), conds, conds).map(
            lambda t: t[0](t[1], t[2]))
        return st.one_of(
            st.tuples(st.sampled_from(["add", "subtract"]), children, children)
            .map(lambda t: tk.call(t[0], [t[1], t[2]])),
            st.tuples(st.one_of(conds, logic), children, children).map(lambda t: tk.if_else(*t)),
            st.lists(children, min_size=1, max_size=3).map(tk.coalesce),
            st.tuples(st.lists(st.tuples(st.one_of(conds, logic), children), min_size=1,
                               max_size=3), st.one_of(st.none(), children))
            .map(lambda t: tk.case_when(t[0], else_=t[1])),
            st.tuples(logic, children, children).map(lambda t: tk.if_else(*t)),
        )

    ints = st.recursive(leaves, grow, max_leaves=8)
    comparisons = st.tuples(st.sampled_from(["greater", "not_equal"]), ints, ints).map(
        lambda t: tk.call(t[0], [t[1], t[2]]))
    logic_root = st.tuples(st.sampled_from([tk.and_, tk.or_]), comparisons, comparisons).map(
        lambda t: t[0](t[1], t[2]))
    return st.one_of(ints, logic_root)


@contextlib.contextmanager
def _min_dense_rows(n: int):
    """Every domain large (1) or small (10**9). Large, a case_when of a fixed-width type
    would funnel; here it is held to the one kernel, the path this file is about."""
    saved = dense_path.MIN_DENSE_ROWS, case_when_form.placeable
    dense_path.MIN_DENSE_ROWS = n
    case_when_form.placeable = lambda out_type: False
    try:
        yield
    finally:
        dense_path.MIN_DENSE_ROWS, case_when_form.placeable = saved


def _traced(expr, table):
    with tk.trace() as t:
        value = tk.evaluate(expr, table)
    event = t.evaluations[0]
    return value, {(b.path, b.branch, b.arg_index): (b.rows.to_pylist(), b.count)
                   for b in event.branches}


@settings(max_examples=150, deadline=None)
@given(_cheap_expressions(), _INTS, _INTS)
def test_one_kernel_path_records_the_same_rows_as_the_selection_path(expr, a, b):
    n = min(len(a), len(b))
    table = pa.table({"a": pa.array(a[:n], pa.int64()), "b": pa.array(b[:n], pa.int64())})
    with _min_dense_rows(1):  # every domain is "large": cheap forms take the one kernel
        dense_value, dense_rows = _traced(expr, table)
    with _min_dense_rows(10**9):  # never dense: every branch runs under its selection
        lazy_value, lazy_rows = _traced(expr, table)
    assert dense_value.equals(lazy_value) if isinstance(dense_value, pa.ChunkedArray) \
        else dense_value == lazy_value
    # the outermost form gets every row either way: the same rows, branch by branch
    assert {k: v for k, v in dense_rows.items() if k[0] == ()} == \
        {k: v for k, v in lazy_rows.items() if k[0] == ()}
    # a form nested in a branch that ran on every row ran on every row too: each of its
    # branches got at least the rows it gets under the selection
    for key, (rows, _) in lazy_rows.items():
        assert set(rows) <= set(dense_rows[key][0]), key
    for rows, count in dense_rows.values():
        assert count == len(rows)


def test_a_large_traced_if_else_records_its_branches_and_the_rows_each_node_ran_on():
    a = pa.array([i % 7 - 3 if i % 11 else None for i in range(40_000)], pa.int64())
    table = pa.table({"a": a})
    expr = tk.parse("if(a > 0, a + 1, a - 1)")  # unchecked: cheap, cannot fail, so dense
    with tk.trace() as t:
        value = tk.evaluate(expr, table)
    assert value.equals(tk.evaluate(expr, table))
    event = t.evaluations[0]
    rows = {b.branch: b for b in event.branches}
    positive = [i for i, v in enumerate(a.to_pylist()) if v is not None and v > 0]
    not_positive = [i for i, v in enumerate(a.to_pylist()) if v is not None and v <= 0]
    assert rows["then"].count == len(positive) and rows["then"].rows.to_pylist() == positive
    assert rows["else"].rows.to_pylist() == not_positive
    # the one kernel computed both branches on every row, and the trace says so
    by_label = {(s.label, tuple(s.path)): s.rows for s in event.nodes}
    assert by_label[("add", (1,))] == 40_000 and by_label[("subtract", (2,))] == 40_000
