"""Costly and failing calls fused (`fused_guarded.py`): the logarithms, `exp`, `power`
and `sqrt` give Arrow's kernels' values bit for bit (NaN payloads and signs included),
a costly branch is computed on its rows only, and a call that can fail raises exactly
what unfused evaluation raises (the same message, the same row) where a row that takes
its path fails it, and nothing where no such row does.

Oracles: pyarrow.compute's kernels (bits of the value buffers) and the same evaluation
unfused (`fuse=False`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.execution.test_fusion import _assert_same_outcome, _exact
from toolkit.errors import KernelError
from toolkit.execution import fused_guarded
from toolkit.execution.prepare import prepare

F64, F32, I64, I32 = pa.float64(), pa.float32(), pa.int64(), pa.int32()
_BITS = {F64: (np.float64, np.uint64, 64), F32: (np.float32, np.uint32, 32)}
_EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, math.nan, -math.nan, math.inf, -math.inf,
          5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 709.782712893384,
          709.79, -745.13, -745.2, 1e-300, 0.5, 3.0, -0.5, 1e-45, 3.4e38, 88.7, -103.9]
_UNARY = ["ln", "log10", "log2", "log1p", "sqrt", "exp"]


def _bits(array, type_) -> list:
    """The value buffer's bits row by row (None where null): NaN's sign and payload too."""
    float_type, int_type, _ = _BITS[type_]
    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    values = np.frombuffer(array.buffers()[1], float_type, len(array), array.offset
                           * np.dtype(float_type).itemsize).view(int_type)
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return [int(v) if ok else None for v, ok in zip(values, valid)]


@st.composite
def floats_of(draw, type_):
    """A column of raw bit patterns (every NaN payload, subnormals, both zeros) and edges."""
    _, int_type, width = _BITS[type_]
    n = draw(st.integers(1, 60))
    raw = draw(st.lists(st.integers(0, 2**width - 1), min_size=n, max_size=n))
    edges = draw(st.lists(st.sampled_from(_EDGES), min_size=n, max_size=n))
    pick = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    float_type = _BITS[type_][0]
    with np.errstate(over="ignore"):
        values = np.array([np.array(r, int_type).view(float_type) if p
                           else float_type(e) for r, e, p in zip(raw, edges, pick)], float_type)
    nulls = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return pa.array(values, type_, mask=np.array(nulls) & draw(st.booleans()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([F64, F32]), st.data())
def test_math_bit_for_bit_with_arrow(type_, data):
    """Fused, each function gives Arrow's bits on every row: in a plain group, and as a
    deferred branch computed on the rows that take it."""
    x = data.draw(floats_of(type_))
    y = data.draw(floats_of(type_).filter(lambda a: len(a) >= len(x))).slice(0, len(x))
    p = pa.array(data.draw(st.lists(st.booleans(), min_size=len(x), max_size=len(x))))
    table = pa.table({"x": x, "y": y, "p": p})
    for name in (*_UNARY, "power"):
        args = [tk.field("x"), tk.field("y")] if name == "power" else [tk.field("x")]
        call = tk.call(name, args)
        want = pc.call_function(name, [x, y] if name == "power" else [x])
        for expr, expected in (
                (tk.call("negate", [call]), pc.negate(want)),
                (tk.call("if_else", [tk.field("p"), call, tk.field("y")]),
                 pc.if_else(p, want, y))):
            assert prepare(expr, table.schema).fused.untraced, (name, str(expr))
            got = tk.evaluate(expr, table, fuse=True)
            assert got.type == type_
            assert _bits(got, type_) == _bits(expected, type_), (name, str(expr))


@pytest.mark.parametrize("type_", [F64, F32])
def test_math_on_every_pair_of_edges_bit_for_bit(type_):
    """Every pair of edge values (power's zero to a negative odd power, a negative base to
    a fraction, overflow and underflow to signed zeros and infinities), fused."""
    edges = _EDGES + [3.0, -3.0, 2.5, -2.5, 1e308, -1e308, 1e-310, 1024.0, -1075.0]
    xs, ys = zip(*itertools.product(edges, edges))
    with np.errstate(over="ignore"):
        x = pa.array(np.array(xs, _BITS[type_][0]), type_)
        y = pa.array(np.array(ys, _BITS[type_][0]), type_)
    table = pa.table({"x": x, "y": y})
    for name in (*_UNARY, "power"):
        args = [tk.field("x"), tk.field("y")] if name == "power" else [tk.field("x")]
        expr = tk.call("negate", [tk.call(name, args)])
        assert prepare(expr, table.schema).fused.untraced
        want = pc.negate(pc.call_function(name, [x, y] if name == "power" else [x]))
        assert _bits(tk.evaluate(expr, table, fuse=True), type_) == _bits(want, type_), name


def test_without_exact_math_the_c_library_calls_stay_unfused(monkeypatch):
    """Where numba would vectorize with SVML (its own rounding), logarithms, exp and power
    do not fuse; sqrt and division still do."""
    monkeypatch.setattr(fused_guarded, "exact_math", lambda: False)
    schema = pa.schema({"x": F64, "p": pa.bool_(), "k": I64, "a": I64})
    for text in ("if(p, ln(x), 0.0)", "if(p, exp(x), 0.0)", "if(p, power(x, x), 0.0)"):
        assert not prepare(tk.parse(text), schema).fused.untraced, text
    for text in ("if(p, sqrt(x), 0.0)", "if(p, k / a, 0)"):
        assert prepare(tk.parse(text), schema).fused.untraced, text


def _costly_table(n=300_000, seed=7):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 50, n)
    a[rng.random(n) < 0.1] = 0
    return pa.Table.from_batches(pa.table({
        "a": a, "k": rng.integers(-1000, 1000, n), "b": rng.random(n) * 100 - 5,
        "r": pa.array(rng.random(n), mask=rng.random(n) < 0.05),
    }).to_batches(max_chunksize=70_000))


@pytest.mark.parametrize("cut", [0.0, 0.01, 0.5, 1.0])
def test_costly_branch_at_every_share_equals_unfused(cut):
    table = _costly_table()
    expr = tk.parse(f"if(r < {cut}, ln(b + 1) * sqrt(b) + exp(b / 100), -b)")
    groups = prepare(expr, table.schema).fused.untraced
    assert len(groups) == 1
    _assert_same_outcome(expr, table)


_DIVIDED = ["if(r < 0.5 and a != 0, k / a, 0)",
            "case when r < 0.3 then 1 when a != 0 then k / a else 2 end",
            "coalesce(if(a == 0, k, null_int), k / a)",
            "b > 1000.0 and k / a > 1",
            "if(a == 0, k, (k + 1) / a * 2)"]


@pytest.mark.parametrize("text", _DIVIDED)
def test_a_divisor_of_zero_only_on_rows_off_the_path_is_no_error(text):
    """Every row with a zero divisor takes another branch: no error, unfused's value."""
    table = _costly_table()
    table = table.append_column("null_int", pa.nulls(len(table), I64))
    expr = tk.parse(text)
    groups = prepare(expr, table.schema).fused.untraced
    assert [g.can_fail for g in groups.values()] == [True], text
    got = tk.evaluate(expr, table, fuse=True)
    assert _exact(got) == _exact(tk.evaluate(expr, table, fuse=False))


@pytest.mark.parametrize("text", ["if(r < 0.5, k / a, 0)", "if(r >= 0.5, 0, k / a)",
                                  "case when r > 2.0 then 1 else k / a + 1 end",
                                  "if(r < 0.5, 1, 2) + k / a",
                                  "coalesce(if(r < 2.0, null_int, k), k / a)"])
def test_a_divisor_of_zero_on_the_path_raises_unfused_error_naming_the_row(text):
    """The first zero divisor on a row that takes the division's branch, far into the
    table (a later morsel and chunk): the same KernelError, the same row, as unfused."""
    table = _costly_table()
    a = np.where(np.asarray(table["a"]) == 0, 1, np.asarray(table["a"]))
    r = table["r"].to_numpy(zero_copy_only=False)
    # the zero divisor at row 250_001 (its r below 0.5, valid), and on rows not taking it
    r[250_001] = 0.25
    a[250_001] = 0
    off = np.flatnonzero(np.nan_to_num(r, nan=1.0) >= 0.5)[:50]
    a[off] = 0
    table = pa.Table.from_batches(pa.table({
        "a": a, "k": table["k"], "b": table["b"],
        "r": pa.array(r, mask=np.isnan(r)), "null_int": pa.nulls(len(a), I64)},
    ).to_batches(max_chunksize=70_000))
    expr = tk.parse(text)
    assert any(g.can_fail for g in prepare(expr, table.schema).fused.untraced.values())
    with pytest.raises(KernelError) as fused:
        tk.evaluate(expr, table, fuse=True)
    with pytest.raises(KernelError) as unfused:
        tk.evaluate(expr, table, fuse=False)
    assert str(fused.value) == str(unfused.value)
    assert "divide by zero" in str(fused.value)
    if "if(r < 0.5, k / a" in text or "r >= 0.5" in text:
        assert fused.value.row == unfused.value.row == 250_001
    else:
        assert fused.value.row == unfused.value.row


def test_a_null_divisor_whose_slot_holds_zero_is_no_error():
    """Arrow skips null slots: a zero under a null divisor does not fail, fused or not."""
    a = pa.Array.from_buffers(I64, 4, [pa.array([True, False, True, True]).buffers()[1],
                                       pa.array([2, 0, 4, 5], I64).buffers()[1]], null_count=1)
    table = pa.table({"a": a, "k": pa.array([8, 9, 10, 11])})
    expr = tk.parse("if(k > 8, k / a, 1) + 1")
    assert prepare(expr, table.schema).fused.untraced
    assert tk.evaluate(expr, table, fuse=True).to_pylist() == [2, None, 3, 3]


@pytest.mark.parametrize("type_", [I64, I32])
def test_integer_division_truncates_and_the_lowest_over_minus_one_is_zero(type_):
    """Arrow's unchecked integer division: toward zero, the minimum / -1 gives 0;
    divide_checked raises "overflow" there, as unfused."""
    low = int(np.iinfo(type_.to_pandas_dtype()).min)
    k = pa.array([-7, 7, -7, low, low, 5, None, 9], type_)
    a = pa.array([2, -2, -2, -1, 1, 3, 1, None], type_)
    table = pa.table({"k": k, "a": a, "p": pa.array([True] * 8)})
    expr = tk.parse("if(p, k / a, k)")
    assert prepare(expr, table.schema).fused.untraced
    got = tk.evaluate(expr, table, fuse=True)
    assert got.type == type_
    assert got.to_pylist() == pc.divide(k, a).to_pylist() == [-3, -3, 3, 0, low, 1, None, None]
    checked = tk.call("if_else", [tk.field("p"),
                                  tk.call("divide_checked", [tk.field("k"), tk.field("a")]),
                                  tk.field("k")])
    assert prepare(checked, table.schema).fused.untraced
    _assert_same_outcome(checked, table)
    with pytest.raises(KernelError, match="overflow"):
        tk.evaluate(checked, table, fuse=True)


@pytest.mark.parametrize("name, bad", [("ln_checked", 0.0), ("ln_checked", -1.0),
                                       ("log10_checked", -0.0), ("log2_checked", -math.inf),
                                       ("log1p_checked", -1.0), ("sqrt_checked", -2.0),
                                       ("divide_checked", 0.0)])
def test_checked_float_calls_fail_only_where_taken(name, bad):
    """The bad value sits on row 1, which only the false branch takes."""
    x = pa.array([4.0, bad, 2.0, math.nan, None, 9.0])
    table = pa.table({"x": x, "p": pa.array([True, False, True, True, True, True])})
    args = [tk.literal(1.0), tk.field("x")] if name == "divide_checked" else [tk.field("x")]
    call = tk.call(name, args)
    taken = tk.call("if_else", [tk.field("p"), call, tk.literal(0.0)])
    flipped = tk.call("if_else", [tk.call("invert", [tk.field("p")]), call, tk.literal(0.0)])
    every = tk.call("negate", [call])
    for expr in (taken, flipped, every):
        assert [g.can_fail for g in prepare(expr, table.schema).fused.untraced.values()] \
            == [True]
        _assert_same_outcome(expr, table)
    tk.evaluate(taken, table, fuse=True)  # no error
    for expr in (flipped, every):
        with pytest.raises(KernelError) as err:
            tk.evaluate(expr, table, fuse=True)
        assert err.value.row == 1


def test_traced_costly_and_failing_groups_keep_their_branches_and_errors():
    """Traced, a group with a deferred costly branch records the same branch rows as the
    unfused traced run; a failing one raises the same error."""
    table = _costly_table(60_000)
    for text in ("if(r < 0.3, ln(b + 1) * exp(b / 100), 0.0)",
                 "case when r < 0.2 then k * 2 when a != 0 then k / a else 0 end",
                 "if(r < 0.5, k / a, 0)"):
        expr = tk.parse(text)
        seen = {}
        for fuse in (True, False):
            try:
                with tk.trace() as t:
                    value = tk.evaluate(expr, table, fuse=fuse)
            except KernelError as err:
                seen[fuse] = (str(err), err.row)
                continue
            event = t.evaluations[-1]
            seen[fuse] = (_exact(value), {(tuple(b.path), b.branch): b.rows.to_pylist()
                                          for b in event.branches})
            if fuse:
                assert any(s.fused for s in event.nodes), text
        assert seen[True] == seen[False], text


@pytest.mark.parametrize("traced", [False, True])
def test_every_row_on_the_path_runs_the_costly_values_in_the_main_loop_alike(traced):
    """Where every row takes the deferred values' paths the loop computes them in place:
    the same values, branch rows and errors."""
    n = 5000
    rng = np.random.default_rng(11)
    a = rng.integers(1, 9, n)
    table = pa.table({"a": a, "k": rng.integers(-99, 99, n), "b": rng.random(n) * 10,
                      "p": pa.array(np.ones(n, bool))})
    bad = table.set_column(0, "a", pa.array(np.where(np.arange(n) == 4321, 0, a)))
    for text in ("if(p, ln(b) * exp(b) + k / a, 0.0 - b)",
                 "case when not p then 0 when b >= 0.0 then k / a + 1 else 2 end"):
        expr = tk.parse(text)
        assert prepare(expr, table.schema).fused.untraced, text
        for data in (table, bad):
            if traced:
                got = _traced(expr, data, True)
                assert got == _traced(expr, data, False), text
            else:
                _assert_same_outcome(expr, data)


def _traced(expr, data, fuse: bool):
    try:
        with tk.trace() as t:
            value = tk.evaluate(expr, data, fuse=fuse)
    except KernelError as err:
        return str(err), err.row
    return _exact(value), {(tuple(b.path), b.branch): b.rows.to_pylist()
                           for b in t.evaluations[-1].branches}
