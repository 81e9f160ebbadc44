"""Kleene and plain logic as Arrow's own tests define it, in every layout, lazy and eager.

The truth tables of Arrow's `scalar_boolean_test.cc` (TestBooleanKernel: And, Or,
Xor, AndNot, and their Kleene forms, with nulls on either side) and pyarrow's
`test_compute.py::test_logical`; each runs through `check_like_arrow`, so the
lazy `and_kleene`/`or_kleene` (the right side only where the left does not
decide) are held to pyarrow's kernels on plain, sliced, chunked and scalar inputs.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from tests.arrow_oracle import check_like_arrow

T, F, N = True, False, None
# every pair of {true, false, null}: Arrow's tests enumerate the full 3 x 3 table
LEFT = pa.array([T, T, T, F, F, F, N, N, N])
RIGHT = pa.array([T, F, N, T, F, N, T, F, N])

EXPECTED = {  # Arrow's truth tables (scalar_boolean_test.cc)
    "and_kleene": [T, F, N, F, F, F, N, F, N],
    "or_kleene": [T, T, T, T, F, N, T, N, N],
    "and_not_kleene": [F, T, N, F, F, F, F, N, N],
    "and": [T, F, N, F, F, N, N, N, N],
    "or": [T, T, N, T, F, N, N, N, N],
    "xor": [F, T, N, T, F, N, N, N, N],
    "and_not": [F, T, N, F, F, N, N, N, N],
}


@pytest.mark.parametrize("name", EXPECTED)
def test_truth_tables(name):
    assert pc.call_function(name, [LEFT, RIGHT]).to_pylist() == EXPECTED[name]
    table = pa.table({"l": LEFT, "r": RIGHT})
    for mode in ("lazy", "eager"):
        got = tk.evaluate(tk.call(name, [tk.field("l"), tk.field("r")]), table, mode=mode)
        assert got.to_pylist() == EXPECTED[name], mode
    check_like_arrow(name, [LEFT, RIGHT])


@pytest.mark.parametrize("name", EXPECTED)
@pytest.mark.parametrize("left, right", [
    (pa.array([], pa.bool_()), pa.array([], pa.bool_())),  # empty
    (pa.nulls(5, pa.bool_()), pa.array([T, F, N, T, F])),  # all null on the left
    (pa.array([T, F, N, T, F]), pa.nulls(5, pa.bool_())),  # all null on the right
    (pa.array([T] * 70 + [F, N] * 9), pa.array([N, F, T] * 29 + [T])),  # past a byte boundary
])
def test_edge_inputs(name, left, right):
    check_like_arrow(name, [left, right], layouts=("plain", "sliced", "chunked") if not len(left)
                     else ("plain", "sliced", "chunked", "scalar"))


def test_invert_and_the_builders():
    check_like_arrow("invert", [LEFT])
    table = pa.table({"l": LEFT, "r": RIGHT})
    assert tk.evaluate(tk.and_(tk.field("l"), tk.field("r")), table).to_pylist() == \
        EXPECTED["and_kleene"]
    assert tk.evaluate(tk.or_(tk.field("l"), tk.field("r")), table).to_pylist() == \
        EXPECTED["or_kleene"]
    assert str(tk.and_()) == "true" and str(tk.or_()) == "false"  # empty folds
    three = tk.and_(tk.field("l"), tk.field("r"), tk.field("l"))
    assert str(three) == "((l and r) and l)"  # left fold, as Arrow's vector form


@pytest.mark.parametrize("text, name", [("l AND r", "and_kleene"), ("l OR r", "or_kleene"),
                                        ("NOT l", "invert")])
def test_sql_logic_maps_to_arrows_functions(text, name):
    assert tk.parse(text).name == name


def test_pyarrows_test_logical():
    # python/pyarrow/tests/test_compute.py::test_logical
    a = pa.array([True, False, False, None])
    b = pa.array([True, True, False, True])
    table = pa.table({"a": a, "b": b})
    cases = {"and": [True, False, False, None], "and_kleene": [True, False, False, None],
             "or": [True, True, False, None], "or_kleene": [True, True, False, True],
             "xor": [False, True, False, None], "invert": [False, True, True, None]}
    for name, expected in cases.items():
        args = [tk.field("a")] if name == "invert" else [tk.field("a"), tk.field("b")]
        for mode in ("lazy", "eager"):
            assert tk.evaluate(tk.call(name, args), table, mode=mode).to_pylist() == expected


_BOOLS = st.lists(st.sampled_from([T, F, N]), min_size=1, max_size=40)


def _tree(leaves):
    return st.recursive(leaves, lambda inner: st.one_of(
        st.tuples(st.sampled_from(["and_kleene", "or_kleene", "xor", "and_not_kleene"]),
                  inner, inner).map(lambda t: tk.call(t[0], [t[1], t[2]])),
        inner.map(lambda e: tk.call("invert", [e]))), max_leaves=8)


@given(st.data())
def test_random_logic_trees_equal_acero(data):
    n = data.draw(st.integers(1, 40))
    columns = {c: pa.array(data.draw(st.lists(st.sampled_from([T, F, N]), min_size=n,
                                              max_size=n)), pa.bool_()) for c in "pqr"}
    table = pa.table(columns)
    offset = data.draw(st.integers(0, n - 1))
    table = table.slice(offset)
    leaves = st.sampled_from([tk.field(c) for c in "pqr"] + [tk.literal(T), tk.literal(F),
                                                            tk.literal(None, pa.bool_())])
    expr = data.draw(_tree(leaves))
    from pyarrow import acero
    plan = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expr.to_pyarrow()], ["out"]))])
    expected = plan.to_table().column("out")
    for mode in ("lazy", "eager"):
        got = tk.evaluate(expr, table, mode=mode)
        if isinstance(got, pa.Scalar):
            got = pa.chunked_array([pa.repeat(got, table.num_rows)])
        assert got.to_pylist() == expected.to_pylist(), (str(expr), mode)
