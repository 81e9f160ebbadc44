"""Fused cheap subtrees give exactly what their kernels give: values, types, nulls, NaN,
-0.0, wrapping integers, and the errors (with their rows) of what may not be fused or
fails inside a loop (integer division, checked calls: the group then runs unfused).

Fusion is asked for (`fuse=True`: every loop compiled when first met); the oracle is
the same evaluation unfused (`fuse=False`: one Arrow kernel per node) and
pyarrow's own kernels, over random trees of cheap calls on columns with nulls and edge
values, plain, sliced and chunked; and the trace still shows every node, the group
marked once.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.arrow_oracle import check_like_arrow
from tests.strategies.paired import expressions, tables
from toolkit.errors import KernelError, UsageError
from toolkit.execution import evaluation, fuse_when, fused_kernels, fusion
from toolkit.execution.prepare import prepare
from toolkit.observe import FUSED_MEMBER

I64, I32, F64, F32, BOOL = pa.int64(), pa.int32(), pa.float64(), pa.float32(), pa.bool_()
COLUMNS = {"a": I64, "k": I64, "c": I32, "x": F64, "y": F64, "g": F32, "p": BOOL, "q": BOOL}
SCHEMA = pa.schema(COLUMNS)
_BIG = 2**53 + 1  # not a double: the implicit int64 -> float64 cast fails on it
_VALUES = {
    I64: [0, 1, -1, 7, 2**63 - 1, -2**63, 3, 46],
    I32: [0, 1, -1, 5, 2**31 - 1, -2**31, 12],
    F64: [0.0, -0.0, 1.5, -2.25, math.nan, math.inf, -math.inf, 1e308, 0.1],
    F32: [0.0, -0.0, 1.5, -3.0, math.nan, math.inf, 3e38],
    BOOL: [True, False],
}
_NUMBER_KINDS = (I64, I32, F64, F32)


_FLOAT_FUNCTIONS = ["ln", "log10", "log2", "log1p", "exp", "sqrt", "ln_checked",
                    "log10_checked", "log2_checked", "log1p_checked", "sqrt_checked"]


def _literal(type_):
    return st.sampled_from(_VALUES[type_]).map(lambda v: tk.literal(pa.scalar(v, type_)))


def _field(type_):
    return st.sampled_from([n for n, t in COLUMNS.items() if t == type_]).map(tk.field)


@functools.cache  # one strategy per (type, depth): building them is costly
def _tree(type_, depth):
    """A random tree of `type_` of cheap calls (and a few that may not be fused)."""
    leaf = st.one_of(_field(type_), _field(type_), _literal(type_))
    if depth == 0:
        return leaf
    sub = lambda t: _tree(t, depth - 1)
    calls = []
    if type_ in _NUMBER_KINDS:
        calls += [
            st.tuples(st.sampled_from(["add", "subtract", "multiply", "divide"]),
                      sub(type_), sub(type_)).map(lambda t: tk.call(t[0], [t[1], t[2]])),
            sub(type_).map(lambda e: tk.call("negate", [e])),
            st.tuples(sub(BOOL), sub(type_), sub(type_)).map(
                lambda t: tk.call("if_else", list(t))),
            st.lists(sub(type_), min_size=2, max_size=3).map(lambda a: tk.call("coalesce", a)),
            st.lists(st.tuples(sub(BOOL), sub(type_)), min_size=1, max_size=3).flatmap(
                lambda cases: sub(type_).map(lambda otherwise: _case_when(cases, otherwise))),
            st.sampled_from(["add_checked", "multiply_checked", "divide_checked"]).flatmap(
                lambda name: st.tuples(sub(type_), sub(type_)).map(
                    lambda t: tk.call(name, list(t)))),
        ]
        if type_ in (F64, F32):  # costly and failing calls (fused_guarded.py)
            calls += [
                st.tuples(st.sampled_from(_FLOAT_FUNCTIONS), sub(type_)).map(
                    lambda t: tk.call(t[0], [t[1]])),
                st.tuples(sub(type_), sub(type_)).map(lambda t: tk.call("power", list(t))),
            ]
        if type_ == F64:
            calls.append(st.sampled_from([I64, I32, F32]).flatmap(sub).map(
                lambda e: tk.call("cast", [e], pc.CastOptions.safe(F64))))
    else:
        calls += [
            st.tuples(st.sampled_from(["equal", "not_equal", "less", "less_equal", "greater",
                                       "greater_equal"]),
                      st.sampled_from(_NUMBER_KINDS)).flatmap(
                lambda t: st.tuples(sub(t[1]), sub(t[1])).map(
                    lambda ab: tk.call(t[0], list(ab)))),
            st.tuples(st.sampled_from(["and", "or", "and_kleene", "or_kleene"]),
                      sub(BOOL), sub(BOOL)).map(lambda t: tk.call(t[0], [t[1], t[2]])),
            sub(BOOL).map(lambda e: tk.call("invert", [e])),
            st.tuples(sub(BOOL), sub(BOOL), sub(BOOL)).map(lambda t: tk.call("if_else", list(t))),
        ]
    return st.one_of(leaf, *calls)


def _case_when(cases, otherwise):
    """case_when(make_struct(conditions), values..., otherwise), as `case when` binds."""
    conditions = tk.call("make_struct", [c for c, _ in cases],
                         pc.MakeStructOptions([f"c{i}" for i in range(len(cases))]))
    return tk.call("case_when", [conditions, *[v for _, v in cases], otherwise])


cheap_trees = st.sampled_from([*_NUMBER_KINDS, BOOL]).flatmap(lambda t: _tree(t, 3))


@st.composite
def data(draw, max_rows=40):
    """A table of COLUMNS with nulls and edge values (sometimes an int64 past 2**53), as
    one batch, a slice of a longer one, or several chunks (values drawn from a seed: a
    list strategy per column is slow to draw)."""
    n = draw(st.integers(1, max_rows))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    huge = draw(st.booleans())
    null_share = draw(st.sampled_from([0.0, 0.2, 0.6]))
    columns = {}
    for name, type_ in COLUMNS.items():
        values = _VALUES[type_] + ([_BIG] if huge and type_ == I64 else [])
        picked = [values[i] for i in rng.integers(0, len(values), 3 * n)]
        nulls = rng.random(3 * n) < null_share
        columns[name] = pa.array([None if m else v for v, m in zip(picked, nulls)], type_)
    table = pa.table(columns)
    layout = draw(st.sampled_from(["plain", "sliced", "chunked"]))
    if layout == "plain":
        return table.slice(0, n).combine_chunks().to_batches()[0]
    if layout == "sliced":
        start = draw(st.integers(1, 2 * n))
        return table.combine_chunks().to_batches()[0].slice(start, n)
    cut = draw(st.integers(1, 3 * n))
    return pa.Table.from_batches(table.to_batches(max_chunksize=cut))


def _outcome(expr, data, **kwargs):
    """The value, or the error as a user reads it (its message names the call and the row)."""
    try:
        return tk.evaluate(expr, data, **kwargs), None
    except KernelError as err:
        return None, (str(err), err.row)


def _exact(value):
    """Values as Python sees them, each float by its repr (NaN is NaN, -0.0 is not 0.0)."""
    py = value.as_py() if isinstance(value, pa.Scalar) else value.to_pylist()
    if isinstance(py, list):
        return [("float", repr(v)) if isinstance(v, float) else v for v in py]
    return ("float", repr(py)) if isinstance(py, float) else py


def _assert_same_outcome(expr, data, **kwargs):
    got, got_error = _outcome(expr, data, fuse=True, **kwargs)
    want, want_error = _outcome(expr, data, fuse=False)
    assert got_error == want_error, (str(expr), got_error, want_error)
    if want is not None:
        assert got.type == want.type, (str(expr), got.type, want.type)
        assert _exact(got) == _exact(want), (str(expr), got, want)
        if isinstance(want, pa.ChunkedArray):
            assert [len(c) for c in got.chunks] == [len(c) for c in want.chunks]


def test_fused_equals_unfused_on_random_cheap_trees():
    """Fused and unfused agree on every drawn tree; and a good share of the trees fused
    (the property is about fusion only if they do)."""
    fused = []

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cheap_trees, data())
    def agree(expr, table):
        fused.append(bool(prepare(expr, table.schema).fused.untraced))
        _assert_same_outcome(expr, table)

    agree()
    assert sum(fused) >= len(fused) // 4, (sum(fused), len(fused))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cheap_trees, data())
def test_a_traced_evaluation_fuses_alike(expr, table):
    """Traced, the groups run fused too, forms included (their loops also write each
    row's branch, for the trace): the values are the same."""
    with tk.trace():
        _assert_same_outcome(expr, table)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["int", "float", "bool"]).flatmap(expressions), tables())
def test_fused_equals_unfused_on_the_random_expressions(pair, table):
    """The engine's own random trees (every function of the registry, Acero's differential
    test's strategy): wherever part of one fuses, nothing changes."""
    expr, _ = pair
    _assert_same_outcome(expr, table)


def test_int64_range_is_proven_or_the_cast_fails_where_unfused_it_fails():
    table = pa.table({"a": pa.array([4, 2, 0, _BIG, 7]), "b": pa.array([1.0, 2.0, 3.0, 4.0, 5.0])})
    expr = tk.parse("b / a * 2 + 1")
    assert prepare(expr, table.schema).fused.untraced  # fused: b / a needs the range proof
    with pytest.raises(KernelError) as fused_error:
        tk.evaluate(expr, table, fuse=True)
    with pytest.raises(KernelError) as unfused_error:
        tk.evaluate(expr, table, fuse=False)
    assert str(fused_error.value) == str(unfused_error.value)
    assert fused_error.value.row == unfused_error.value.row == 3
    safe = table.slice(0, 3)
    assert _exact(tk.evaluate(expr, safe, fuse=True)) == _exact(pc.add(pc.multiply(
        pc.divide(safe["b"], pc.cast(safe["a"], F64)), 2.0), 1.0))


def test_integer_division_fuses_and_fails_as_unfused_and_checked_add_stays_unfused():
    """Integer division fuses with its loop's failure flag (tests/execution/
    test_fused_guarded.py): a zero divisor raises unfused evaluation's error; checked
    addition (overflow) does not fuse."""
    table = pa.table({"a": pa.array([4, 2, 0]), "k": pa.array([8, 1, 5])})
    for text in ("k / a + 1", "(k + 1) / a"):
        groups = prepare(tk.parse(text), table.schema).fused.untraced
        assert [g.can_fail for g in groups.values()] == [True], text
        with pytest.raises(KernelError) as err:
            tk.evaluate(tk.parse(text), table, fuse=True)
        assert err.value.row == 2 and "divide by zero" in str(err.value)
    checked = tk.call("add_checked", [tk.call("multiply", [tk.field("a"), tk.field("k")]),
                                      tk.field("k")])
    assert not prepare(checked, table.schema).fused.untraced
    big = pa.table({"a": pa.array([2**62, 1]), "k": pa.array([4, 2**63 - 1])})
    with pytest.raises(KernelError):
        tk.evaluate(checked, big, fuse=True)


@pytest.mark.parametrize("type_", [I64, I32])
def test_unchecked_integer_arithmetic_wraps_as_arrow_does(type_):
    info = np.iinfo(type_.to_pandas_dtype())
    left = pa.array([info.max, info.min, info.min, 5, None], type_)
    right = pa.array([1, -1, 1, info.max, 3], type_)
    table = pa.table({"l": left, "r": right})
    expr = tk.parse("(l + r) * r - l")
    assert prepare(expr, table.schema).fused.untraced
    expected = pc.subtract(pc.multiply(pc.add(left, right), right), left)
    got = tk.evaluate(expr, table, fuse=True)
    assert got.type == type_ and got.to_pylist() == expected.to_pylist()


def test_float_edges_nan_negative_zero_and_infinities():
    x = pa.array([0.0, -0.0, math.nan, math.inf, -math.inf, 1e308, None, 5.0])
    y = pa.array([-0.0, 0.0, 1.0, math.inf, 2.0, 10.0, 1.0, None])
    table = pa.table({"x": x, "y": y})
    for text in ("x * y - y / x", "x / y * -1.0", "if(x < y, x * 0.0, -y * 0.0)",
                 "x == y or x != x and y > x"):
        _assert_same_outcome(tk.parse(text), table)
        assert prepare(tk.parse(text), table.schema).fused.untraced, text


def test_float32_stays_float32():
    g = pa.array([1.1, 3e38, -0.0, None, math.nan], F32)
    table = pa.table({"g": g, "h": pa.array([3.0, 10.0, 1.0, 1.0, 2.0], F32)})
    expr = tk.call("divide", [tk.call("multiply", [tk.field("g"), tk.field("h")]),
                              tk.field("h")])
    assert prepare(expr, table.schema).fused.untraced
    got = tk.evaluate(expr, table, fuse=True)
    assert got.type == F32
    assert _exact(got) == _exact(pc.divide(pc.multiply(g, table["h"]), table["h"]))


# Arrow's own kernel cases (scalar_arithmetic_test.cc, scalar_compare_test.cc): each runs
# through check_like_arrow, which also runs it as a fused `coalesce(call, call)`
_ARITHMETIC_CASES = [
    (I32, [2**31 - 1, -2**31, 0, 7, None], [1, -1, 0, -3, 1]),
    (I64, [2**63 - 1, -2**63, 0, -7, None], [1, -1, 0, 3, 2]),
    (F64, [1.5, -0.0, math.nan, math.inf, None, 0.0], [0.0, 0.0, 1.0, math.inf, 2.0, -0.0]),
    (F32, [1.5, -0.0, math.nan, 3e38, None, 0.0], [0.0, 0.0, 1.0, 3e38, 2.0, -1.0]),
]


@pytest.mark.parametrize("type_, left, right", _ARITHMETIC_CASES)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "equal", "not_equal",
                                  "less", "less_equal", "greater", "greater_equal"])
def test_arrow_arithmetic_and_comparison_cases(name, type_, left, right):
    check_like_arrow(name, [pa.array(left, type_), pa.array(right, type_)])


@pytest.mark.parametrize("type_, left, _", _ARITHMETIC_CASES)
def test_arrow_negate_cases(type_, left, _):
    check_like_arrow("negate", [pa.array(left, type_)])


def test_kleene_truth_table_fused():
    """Every pair of {true, false, null} under and_kleene and or_kleene of comparisons,
    fused, against Arrow's kernels."""
    left = pa.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0, None, None, None])
    right = pa.array([1.0, -1.0, None] * 3)
    table = pa.table({"l": left, "r": right})
    for name in ("and_kleene", "or_kleene"):
        expr = tk.call(name, [tk.parse("l > 0"), tk.parse("r > 0")])
        assert prepare(expr, table.schema).fused.untraced
        want = pc.call_function(name, [pc.greater(left, 0.0), pc.greater(right, 0.0)])
        assert tk.evaluate(expr, table, fuse=True).to_pylist() == want.to_pylist()


def test_the_trace_shows_every_node_and_marks_the_group_once():
    rng = np.random.default_rng(3)
    n = 20_000
    table = pa.table({"b": rng.random(n) * 100,
                      "x": pa.array(rng.random(n), mask=rng.random(n) < 0.3)})
    with tk.trace() as t:
        value = tk.evaluate(tk.parse("(b * 2 + x) * 3 - b / 7"), table, fuse=True)
    assert _exact(value) == _exact(tk.evaluate(tk.parse("(b * 2 + x) * 3 - b / 7"), table,
                                               fuse=False))
    event = t.evaluations[0]
    stats = {tuple(s.path): s for s in event.nodes}
    assert len(stats) == 11  # five calls, three literals, b twice and x
    assert all(s.rows == n for s in stats.values())
    top = stats[()]
    assert top.fused.startswith("5 calls in one compiled loop")
    calls = [s for p, s in stats.items() if p and s.label in {"add", "multiply", "divide"}]
    assert len(calls) == 4 and all(s.fused == FUSED_MEMBER for s in calls)
    text = tk.to_text(event, color=False, width=80)
    assert text.count("fused:") == 1
    assert all(len(line) <= 80 for line in text.splitlines())
    loaded = tk.Trace.from_json(t.to_json()).evaluations[0]  # the mark survives a saved trace
    assert {tuple(s.path): s.fused for s in loaded.nodes} == {p: s.fused for p, s in stats.items()}


def test_a_traced_form_runs_fused_and_keeps_its_branches():
    """Traced, a form of cheap parts runs inside its group's loop, and the trace still
    holds the rows each branch took: the same as the unfused traced run's."""
    rng = np.random.default_rng(5)
    n = 50_000
    a = rng.integers(0, 5, n)
    table = pa.table({"a": a, "b": rng.random(n)})
    branches = {}
    for fuse in (True, False):
        with tk.trace() as t:
            tk.evaluate(tk.parse("if(a != 0, b / a * 2, 0.0)"), table, fuse=fuse)
        event = t.evaluations[0]
        branches[fuse] = {b.branch: (b.count, b.rows.to_pylist()) for b in event.branches}
        stats = {tuple(s.path): s for s in event.nodes}
        if fuse:
            assert stats[()].fused and stats[()].fused != FUSED_MEMBER  # the form's group
            assert stats[(1, 0)].fused == FUSED_MEMBER
    assert branches[True] == branches[False]
    assert branches[True]["then"][1] == np.flatnonzero(a != 0).tolist()


def test_groups_are_found_once_per_prepared_tree(monkeypatch):
    """Fusion is a fact of the prepared tree: evaluating again compiles nothing."""
    table = pa.table({"b": pa.array([1.0, 2.0]), "x": pa.array([3.0, None])})
    bound = tk.bind(tk.parse("(b * 2 + x) * 3 - b / 7"), table.schema)
    tk.evaluate(bound, table, fuse=True)
    compiled = []
    real = fusion._compiled
    monkeypatch.setattr(fusion, "_compiled", lambda *a: compiled.append(a) or real(*a))
    for _ in range(3):
        tk.evaluate(bound, table, fuse=True)
    assert compiled == []



def _marks(expr, data, **kwargs):
    """The value and the fused marks of a traced evaluation."""
    with tk.trace() as t:
        value = tk.evaluate(expr, data, **kwargs)
    return value, [s.fused for s in t.evaluations[0].nodes if s.fused]


def test_by_default_a_large_input_compiles_loops_that_later_evaluations_use():
    """The default never waits for a compilation: the first evaluation of a million rows
    runs unfused and hands its loop to the compiling thread; once compiled, evaluations
    of the same tree of a few thousand rows or more run it (a thousand rows: not)."""
    rng = np.random.default_rng(11)
    n = fuse_when.AUTO_FUSE_ROWS
    table = pa.table({"b": rng.random(n), "x": pa.array(rng.random(n), mask=rng.random(n) < .2)})
    bound = tk.bind(tk.parse("(x - b * 3) * (b + 0.25) - x / 9"), table.schema)
    small, tiny = table.slice(5, fuse_when.AUTO_MIN_ROWS), table.slice(5, 1_000)
    assert _marks(bound, small)[1] == []  # never evaluated large: not fused
    first = tk.evaluate(bound, table)
    fused_kernels.settle()
    assert _exact(first) == _exact(tk.evaluate(bound, table, fuse=False))
    value, marks = _marks(bound, small)
    assert marks and marks[0].startswith("6 calls in one compiled loop")
    assert _exact(value) == _exact(tk.evaluate(bound, small, fuse=False))
    assert _marks(bound, tiny)[1] == []
    again = tk.evaluate(bound, table)
    assert _exact(again) == _exact(first)


def test_without_numba_nothing_fuses_and_asking_for_fusion_says_so(monkeypatch):
    monkeypatch.setattr(fuse_when, "available", lambda: False)
    monkeypatch.setattr(evaluation, "fusion_available", lambda: False)
    table = pa.table({"b": pa.array([1.0, 2.0]), "x": pa.array([3.0, None])})
    bound = tk.bind(tk.parse("(b * 2 + x) * 3 - b / 7"), table.schema)
    bound_fused = prepare(bound, table.schema).fused
    bound_fused.learning = True  # as if a large evaluation had compiled its loops
    value, marks = _marks(bound, table)
    assert marks == [] and value.to_pylist()[1] is None
    with pytest.raises(UsageError, match="numba is not installed"):
        tk.evaluate(bound, table, fuse=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cheap_trees, data())
def test_the_default_gives_the_same_before_and_after_its_loops_compile(expr, table):
    """The default's two states on one tree: loops not compiled yet (unfused, handed to
    the compiling thread), then compiled (fused); both are the unfused value."""
    one = table if isinstance(table, pa.Table) else pa.Table.from_batches([table])
    big = pa.concat_tables([one] * (fuse_when.AUTO_MIN_ROWS // one.num_rows + 1))
    bound = tk.bind(expr, big.schema)
    prepare(bound, big.schema).fused.learning = True  # as after a million rows
    want, want_error = _outcome(bound, big, fuse=False)
    for _ in range(2):
        got, got_error = _outcome(bound, big)
        assert got_error == want_error
        if want is not None:
            assert got.type == want.type and _exact(got) == _exact(want), str(expr)
        fused_kernels.settle()


def test_case_when_fused_against_arrows_kernel():
    """Null and false conditions, null values, an else: Arrow's case_when row by row."""
    x = pa.array([1.0, None, 3.0, -1.0, 5.0, None, 0.0, -0.0])
    p = pa.array([True, None, False, True, None, False, True, None])
    table = pa.table({"x": x, "p": p})
    first, second = tk.parse("x > 2"), tk.field("p")
    conditions = tk.call("make_struct", [first, second], pc.MakeStructOptions(["a", "b"]))
    expr = tk.call("case_when", [conditions, tk.parse("x * 2"), tk.parse("x + 1"),
                                 tk.parse("x - 5")])
    groups = prepare(expr, table.schema).fused.untraced
    assert [g.root.name for g in groups.values()] == ["case_when"]
    want = pc.case_when(pc.make_struct(pc.greater(x, 2.0), p, field_names=["a", "b"]),
                        pc.multiply(x, 2.0), pc.add(x, 1.0), pc.subtract(x, 5.0))
    assert _exact(tk.evaluate(expr, table, fuse=True)) == _exact(want)
    for piece in (table.slice(3), pa.Table.from_batches(table.to_batches(max_chunksize=3))):
        _assert_same_outcome(expr, piece)
