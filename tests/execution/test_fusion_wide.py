"""Wide fused groups give exactly what their kernels give: a lone `coalesce` or `if_else`,
and/or chains of dozens of terms with Kleene nulls, `case_when` of up to a hundred and
more cases, and trees nested deeper than one Python expression may be.

Oracles: the same evaluation unfused (`fuse=False`: one Arrow kernel or lazy form per
node) and Acero's projection of the expression (pyarrow's own kernels), on columns with
nulls and edge values (NaN, -0.0, infinities), plain, sliced and chunked; traced, the
branch rows each form records are the unfused run's.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.execution.test_fusion import (
    _NUMBER_KINDS,
    BOOL,
    F64,
    I64,
    _assert_same_outcome,
    _exact,
    _field,
    _literal,
    data,
)
from tests.tracing.test_fused_branch_rows import _branches
from toolkit.execution import fused_kernels, fusion
from toolkit.execution.prepare import prepare
from toolkit.model.expression import postorder

_COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]

# a boolean term with nulls: a comparison of a column with a column or a literal, a
# boolean column, or its inverse
comparisons = st.sampled_from(_NUMBER_KINDS).flatmap(
    lambda t: st.tuples(st.sampled_from(_COMPARISONS), _field(t),
                        st.one_of(_field(t), _literal(t))).map(
        lambda c: tk.call(c[0], [c[1], c[2]])))
terms = st.one_of(comparisons, comparisons, _field(BOOL),
                  _field(BOOL).map(lambda e: tk.call("invert", [e])))


@st.composite
def chains(draw, max_terms=40):
    """and/or (Kleene) of 2 to `max_terms` terms: left-deep as the parser writes `a and b
    and c`, right-deep, or balanced, each join drawn and or or."""
    items = draw(st.lists(terms, min_size=2, max_size=max_terms))
    ops = draw(st.lists(st.sampled_from(["and_kleene", "or_kleene"]),
                        min_size=len(items) - 1, max_size=len(items) - 1))
    shape = draw(st.sampled_from(["left", "right", "balanced"]))
    return _joined(items, ops, shape)


def _joined(items, ops, shape):
    if len(items) == 1:
        return items[0]
    if shape == "left":
        return tk.call(ops[-1], [_joined(items[:-1], ops[:-1], shape), items[-1]])
    if shape == "right":
        return tk.call(ops[0], [items[0], _joined(items[1:], ops[1:], shape)])
    half = len(items) // 2
    return tk.call(ops[half - 1], [_joined(items[:half], ops[:half - 1], shape),
                                   _joined(items[half:], ops[half:], shape)])


def _value(type_):
    """A numeric value of `type_`: a column, a literal, or a column times or plus one."""
    leaf = st.one_of(_field(type_), _field(type_), _literal(type_))
    return st.one_of(leaf, st.tuples(st.sampled_from(["multiply", "add"]), _field(type_),
                                     leaf).map(lambda t: tk.call(t[0], [t[1], t[2]])))


def _case_when(conditions, values):
    struct = tk.call("make_struct", list(conditions),
                     pc.MakeStructOptions([f"c{i}" for i in range(len(conditions))]))
    return tk.call("case_when", [struct, *values])


@st.composite
def wide_case_whens(draw, max_cases=120):
    """case_when of 1 to `max_cases` cases with an else, its conditions terms with nulls,
    its values of one type."""
    type_ = draw(st.sampled_from(_NUMBER_KINDS))
    cases = draw(st.integers(1, max_cases))
    conditions = draw(st.lists(terms, min_size=cases, max_size=cases))
    values = draw(st.lists(_value(type_), min_size=cases + 1, max_size=cases + 1))
    return _case_when(conditions, values)


def _acero(expr, table):
    """`expr` over the table by Acero (pyarrow's kernels), as exact Python values."""
    frame = pa.Table.from_batches([table]) if isinstance(table, pa.RecordBatch) else table
    try:
        got = ds.dataset(frame).to_table(columns={"v": expr.to_pyarrow()})["v"]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return _exact(got)


def _root_fused(expr, schema) -> bool:
    """The tree as written (not simplified) runs as one loop."""
    prepared = prepare(expr, schema, simplify=False)
    return id(prepared.expr) in prepared.fused.untraced


def _assert_like_arrow(expr, table):
    """Fused, as written and simplified, equals unfused (values, type, nulls, chunks) and
    Acero's values."""
    # (a tree of literals alone is one value, not Acero's column of it)
    want = _acero(expr, table) if any(n.kind == "field" for n in postorder(expr)) else None
    for simplify in (False, True):
        _assert_same_outcome(expr, table, simplify=simplify)
        if want is not None:
            got = tk.evaluate(expr, table, fuse=True, simplify=simplify)
            assert _exact(got) == want, (str(expr), simplify)


def _assert_same_branches(expr, table):
    fused, unfused = _branches(expr, table, fuse=True), _branches(expr, table, fuse=False)
    assert (fused is None) == (unfused is None), str(expr)
    if fused is not None:
        assert _exact(fused[0]) == _exact(unfused[0]), str(expr)
        assert {k: v for k, v in fused[1].items() if k in unfused[1]} == unfused[1], str(expr)
        assert all(count == 0 for k, (count, _) in fused[1].items() if k not in unfused[1])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), data())
def test_long_kleene_chains_fuse_whole_and_keep_kleene_nulls(expr, table):
    """A chain of up to 40 and/or terms is one loop, whatever its shape (its validity
    text grows by a side per join), and null and false, null or true, are Arrow's (a
    lone and/or of two columns is one kernel on bitmaps: not fused)."""
    if sum(node.is_call for node in postorder(expr)) >= 2:
        assert _root_fused(expr, table.schema), str(expr)
    _assert_like_arrow(expr, table)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(max_terms=24), data())
def test_a_traced_chain_records_the_unfused_branch_rows(expr, table):
    _assert_same_branches(expr, table)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_case_whens(), data())
def test_wide_case_when_fused_equals_its_kernels(expr, table):
    """Up to 120 cases: the first valid and true condition's value, else the else; a
    case_when of up to 60 cases is one loop."""
    if len(expr.args[0].args) <= 60:
        assert _root_fused(expr, table.schema), str(expr)
    _assert_like_arrow(expr, table)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_case_whens(max_cases=40), data())
def test_a_traced_wide_case_when_records_the_unfused_branch_rows(expr, table):
    _assert_same_branches(expr, table)


lone_coalesces = st.sampled_from(_NUMBER_KINDS).flatmap(
    lambda t: st.lists(st.one_of(_field(t), _field(t), _field(t), _literal(t)),
                       min_size=2, max_size=12).map(lambda a: tk.call("coalesce", a)))
lone_if_elses = st.sampled_from(_NUMBER_KINDS).flatmap(
    lambda t: st.tuples(_field(BOOL), st.one_of(_field(t), _literal(t)),
                        st.one_of(_field(t), _literal(t))).map(
        lambda a: tk.call("if_else", list(a))))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(lone_coalesces, lone_if_elses), data())
def test_a_lone_coalesce_or_if_else_fuses_and_equals_its_kernel(expr, table):
    """One call of leaves, fused on its own where it reads a column (its lazy form's
    selections and scatters cost more than the loop)."""
    if any(a.kind == "field" for a in expr.args):
        assert _root_fused(expr, table.schema), str(expr)
    _assert_like_arrow(expr, table)
    _assert_same_branches(expr, table)


def test_a_lone_and_or_comparison_stays_one_arrow_kernel():
    """and/or of boolean columns work 64 rows a word on bitmaps; a lone comparison or
    arithmetic call is one kernel already: none of them fuses alone."""
    schema = pa.schema({"p": BOOL, "q": BOOL, "x": F64, "y": F64})
    for text in ("p and q", "p or q", "x < y", "x + y"):
        assert not prepare(tk.parse(text), schema).fused.untraced, text


def test_a_hundred_case_when_is_one_loop_on_a_large_table():
    """bench_peers' `case_when 100 on k`: one loop of 202 calls, over chunks larger than
    a morsel, with nulls in its value column; the same chunks and values as unfused."""
    rng = np.random.default_rng(7)
    n = 700_000
    table = pa.Table.from_batches(pa.table({
        "k": pa.array(rng.integers(0, 1000, n)),
        "b": pa.array(rng.random(n) * 100, mask=rng.random(n) < 0.2),
    }).to_batches(max_chunksize=400_000))
    whens = " ".join(f"when k < {round(1000 / 101 * (i + 1))} then b * {i}"
                     for i in range(100))
    expr = tk.parse(f"case {whens} else 0.0 end")
    prepared = prepare(expr, table.schema)
    assert prepared.fused.untraced[id(prepared.expr)].calls == 202
    got, want = tk.evaluate(expr, table, fuse=True), tk.evaluate(expr, table, fuse=False)
    assert [len(c) for c in got.chunks] == [len(c) for c in want.chunks] == [400_000, 300_000]
    assert got.equals(want)


@pytest.mark.parametrize("depth", [60, 150])
def test_a_tree_deeper_than_python_parses_fuses_in_pieces(depth):
    """A chain of 150 additions would be one expression of 300 nested parentheses, more
    than Python parses: it fuses as groups each nested within MAX_NESTING, the same
    values."""
    rng = np.random.default_rng(3)
    x = pa.array(rng.random(1000), mask=rng.random(1000) < 0.3)
    table = pa.table({"x": x, "k": pa.array(rng.integers(-9, 9, 1000), pa.int32())})
    expr = tk.field("x")
    for i in range(depth):
        expr = tk.call("add" if i % 3 else "multiply",
                       [expr, tk.call("cast", [tk.field("k")], pc.CastOptions.safe(F64))])
    groups = prepare(expr, table.schema).fused.untraced
    assert groups
    assert all(fused_kernels.nesting(g.value) <= fusion.MAX_NESTING for g in groups.values())
    got = tk.evaluate(expr, table, fuse=True, simplify=False)
    assert _exact(got) == _exact(tk.evaluate(expr, table, fuse=False, simplify=False))


def test_a_form_of_more_branches_than_a_byte_counts_runs_unfused():
    """A traced loop writes each row's branch as a byte: a case_when of 300 cases (and a
    coalesce of 300 arguments) is not fused, and gives its kernels' values, traced too."""
    p = pa.array([None, False, True, False] * 5)
    x = pa.array([1.0, None, -0.0, 4.0] * 5)
    table = pa.table({"p": p, "x": x})
    wide = _case_when([tk.field("p")] * 300, [tk.field("x")] * 300 + [tk.literal(2.5)])
    many = tk.call("coalesce", [tk.field("x")] * 300)
    for expr in (wide, many):
        assert not _root_fused(expr, table.schema)
        _assert_like_arrow(expr, table)
    with tk.trace():
        _assert_same_outcome(wide, table)


def test_int64_chain_through_a_lone_coalesce():
    """A lone coalesce of int64 columns keeps int64 values past 2**53 exactly."""
    big = 2**62 + 1
    table = pa.table({"a": pa.array([None, big, None, -big], I64),
                      "k": pa.array([big - 2, 1, None, 3], I64)})
    expr = tk.call("coalesce", [tk.field("a"), tk.field("k")])
    assert _root_fused(expr, table.schema)
    assert tk.evaluate(expr, table, fuse=True).to_pylist() == [big - 2, big, None, -big]
