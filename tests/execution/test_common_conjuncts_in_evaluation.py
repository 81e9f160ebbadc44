"""Evaluation takes the terms every branch of an `or` shares out of it before it runs
(`passes/common_conjuncts.py`, run by `execution/prepare.py`): every row keeps the value
Acero gives the tree as written (Kleene and null-propagating logic, nulls, NaN, chunked
data), both modes; the shared terms run once, and the trace shows the pass."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.acero_reference import AceroCrashed, run_acero
from tests.passes.test_common_conjuncts import or_of_ands
from toolkit.execution.prepare import prepare

ATOMS = ["a > 1", "b <= 2", "c", "a = b", "s = 'x'", "not c", "x < 0.5", "x = x",
         "s <> 'y'", "a / b > 0"]
ints = st.one_of(st.none(), st.integers(-2, 3))
floats = st.one_of(st.none(), st.sampled_from([float("nan"), -1.0, 0.25, 0.5, 2.0]))
rows = st.lists(st.tuples(ints, ints, st.one_of(st.none(), st.booleans()),
                          st.one_of(st.none(), st.sampled_from(["x", "y"])), floats),
                max_size=40)




def _table(drawn, cut: int) -> pa.Table:
    columns = {"a": pa.int64(), "b": pa.int64(), "c": pa.bool_(), "s": pa.string(),
               "x": pa.float64()}
    table = pa.table({name: pa.array([r[i] for r in drawn], type_)
                      for i, (name, type_) in enumerate(columns.items())})
    cut = min(cut, table.num_rows)  # two chunks: morsels follow them
    return pa.concat_tables([table.slice(0, cut), table.slice(cut)])


@settings(max_examples=150, deadline=None)
@given(drawn=rows, cut=st.integers(0, 40),
       shared=st.lists(st.sampled_from(ATOMS), min_size=1, max_size=2),
       branches=st.lists(st.lists(st.sampled_from(ATOMS), max_size=3), min_size=2, max_size=4),
       kleene=st.booleans(), order=st.randoms(use_true_random=False))
def test_every_row_keeps_the_value_acero_gives_the_tree_as_written(drawn, cut, shared, branches,
                                                                    kleene, order):
    table = _table(drawn, cut)
    written = []
    for branch in branches:
        terms = list(shared) + list(branch)
        order.shuffle(terms)
        written.append(terms)
    expr = tk.bind(or_of_ands(written, kleene), table.schema)
    try:
        want = run_acero(expr.to_pyarrow(), table)
    except (pa.ArrowInvalid, AceroCrashed):  # a division by zero on some row
        want = None
    for mode in ("lazy", "eager"):
        try:
            got = tk.evaluate(expr, table, mode=mode)
        except tk.ExprscopeError:  # a division by zero: Acero met it too
            assert want is None, (mode, str(expr))
            continue
        if want is not None:
            assert got.to_pylist() == want.to_pylist(), (mode, str(expr))
            continue
        # eager runs every term on every row, as Acero does: it fails where Acero failed
        assert mode == "lazy", str(expr)
        try:  # the tree as written, lazily: the rows it reached stay the rows that fail
            as_written = tk.evaluate(expr, table, simplify=False)
        except tk.ExprscopeError:
            continue
        assert got.to_pylist() == as_written.to_pylist(), str(expr)


def test_the_shared_terms_run_once_and_the_trace_shows_the_pass():
    table = pa.table({"a": pa.array([0, 2, 3, None, 5] * 1000, pa.int64()),
                      "b": pa.array([1, None, 1, 2, 0] * 1000, pa.int64()),
                      "s": pa.array(["x", "y", None, "x", "x"] * 1000)})
    text = "(a > 1 and s = 'x' and b < 2) or (s = 'x' and a > 1 and b = 2) or (a > 1 and s = 'x')"
    bound = tk.bind(tk.parse(text), table.schema)
    ran = prepare(bound, table.schema).expr
    assert str(ran).count("a > 1") == 1 and str(ran).count('s == "x"') == 1, str(ran)
    with tk.trace() as trace:
        got = tk.evaluate(text, table)
    assert got.equals(run_acero(bound.to_pyarrow(), table))
    steps = tk.to_text(trace)
    assert "pass common_conjuncts" in steps and "identities/common-conjunct" in steps
    assert tk.evaluate(text, table, simplify=False).equals(got)  # as written: same values


def test_a_term_that_can_fail_stays_in_its_branches():
    table = pa.table({"a": pa.array([0, 1, 2], pa.int64()), "b": pa.array([0, 1, 0], pa.int64())})
    text = "(b <> 0 and a / b > 0) or (a = 1 and b <> 0 and a / b > 0)"
    ran = prepare(tk.bind(tk.parse(text), table.schema), table.schema).expr
    # `b <> 0` taken out and run first; the division, taken out, would run on rows b = 0
    assert str(ran).count("b != 0") == 1 and str(ran).count("divide") == 2, str(ran)
    assert tk.evaluate(text, table).to_pylist() == [False, True, False]
