"""Whether a node can fail is its bound kernel's word for its types, and, for range-checked
casts, the batch's values: what cannot fail runs densely and the trace says so."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.functions.function import call_can_fail

SCHEMA = pa.schema([("i", pa.int32()), ("l", pa.int64()), ("f", pa.float32()),
                    ("d", pa.float64()), ("s", pa.string()), ("m", pa.decimal128(15, 2)),
                    ("w", pa.decimal256(76, 0))])


@pytest.mark.parametrize("text, fails", [
    ("cast(i as double)", False),  # every int32 is exactly a double
    ("cast(l as double)", True),  # an int64 beyond 2**53 is not: Arrow's safe cast refuses it
    ("cast(f as double)", False),
    ("cast(i as bigint)", False),
    ("cast(l as int)", True),
    ("cast(l as varchar)", False),
    ("cast(s as bigint)", True),
    ("cast(m as double)", False),  # Arrow rounds a decimal to the nearest float, checking nothing
    ("cast(w as float)", False),  # past float32's range: inf, not an error
    ("m >= 0.05", False),  # the decimal column is made a double for the comparison
    ("cast(m as bigint)", True),  # a fraction would be lost
    ("d / d", False),  # IEEE: inf or NaN, never an error
    ("l / l", True),  # integer division by zero
    ("power(d, d)", False),  # NaN or inf
    ("power(l, l)", True),  # a negative integer exponent
    ("add_checked(d, d)", False),  # checked arithmetic checks integers: floats give inf
    ("multiply_checked(f, d)", False),
    ("subtract_checked(l, l)", True),
    ("add_checked(l, d)", False),  # the integer is cast to double first (that cast can fail)
    ("divide_checked(d, d)", True),  # a checked float division fails on zero
])
def test_a_call_fails_by_its_kernel_and_types(text, fails):
    assert call_can_fail(tk.bind(tk.parse(text), SCHEMA)) is fails


def _traced(text, table):
    with tk.trace() as trace:
        value = tk.evaluate(tk.bind(tk.parse(text), table.schema), table)
    return value, trace.evaluations[-1]


def _guarded_table(n=50_000, huge_row=None):
    rng = np.random.default_rng(1)
    a = rng.integers(1, 50, n)
    a[rng.random(n) < 0.1] = 0
    if huge_row is not None:
        a[huge_row] = (1 << 60) + 1  # not exactly a double: the implicit cast fails there
    return pa.table({"a": a, "b": rng.random(n) * 100})


@pytest.mark.parametrize("rows", [1_000, 50_000])
def test_a_guarded_float_divide_runs_dense_because_it_cannot_fail(rows):
    table = _guarded_table(rows)
    value, event = _traced("if(a != 0, b / a, 0.0)", table)
    a, b = table["a"], table["b"]
    expected = pc.if_else(pc.not_equal(a, 0), pc.divide(b, pc.cast(a, pa.float64())), 0.0)
    assert value.equals(expected)
    then = next(s for s in event.nodes if s.path == (1,))
    assert then.how == "dense" and "cannot fail" in then.why
    assert then.rows == table.num_rows and then.used_rows == pc.sum(pc.not_equal(a, 0)).as_py()


@pytest.mark.parametrize("rows", [1_000, 50_000])  # a small batch's proof is the cast itself
def test_a_cast_that_would_fail_on_an_unselected_row_runs_on_the_selected_rows_only(rows):
    table = _guarded_table(rows, huge_row=7)
    text = "if(a != 0 and a < 1000, b / a, 0.0)"
    value, event = _traced(text, table)
    assert value[7].as_py() == 0.0  # the row the cast would fail on was not selected
    then = next(s for s in event.nodes if s.path == (1,))
    assert then.how != "dense"
    with pytest.raises(tk.KernelError) as failed:
        tk.evaluate(tk.bind(tk.parse(text), table.schema), table, mode="eager")
    assert failed.value.row == 7


def test_a_cast_proven_in_range_does_not_check_its_values_again(monkeypatch):
    """The min and max that let a branch run dense are the cast's own range check: the
    cast then runs unchecked instead of reading its column a second time, and still
    gives Arrow's values."""
    from toolkit.execution import dense_path
    from toolkit.functions import cast as cast_module

    table = _guarded_table()
    calls = []
    real = cast_module.values_in_range

    def counted(array, low, high):
        calls.append(len(array))
        return real(array, low, high)

    monkeypatch.setattr(cast_module, "values_in_range", counted)
    monkeypatch.setattr(dense_path, "values_in_range", counted)
    bound = tk.bind(tk.parse("if(a != 0, b / a, 0.0)"), table.schema)
    with parallel_serial():
        value = tk.evaluate(bound, table, mode="lazy")
    a, b = table["a"], table["b"]
    expected = pc.if_else(pc.not_equal(a, 0), pc.divide(b, pc.cast(a, pa.float64())), 0.0)
    assert value.equals(expected)
    morsels = len(calls)
    assert morsels >= 1 and sum(calls) == table.num_rows  # each row's value read once
    calls.clear()
    with parallel_serial():
        tk.evaluate(bound, table, mode="eager")  # the cast checks for itself there
    assert sum(calls) == table.num_rows


def parallel_serial():
    from toolkit.execution.parallel import serial
    return serial()


def test_on_a_small_batch_the_column_is_cast_once(monkeypatch):
    """Below the size where a separate min and max pay, a cheap form takes its cast on
    trust, checked by Arrow as eager evaluation checks it: one cast, and no proof."""
    from toolkit.functions import cast as cast_module

    casts = []

    class Counted:
        def call(self, args, options):
            casts.append(len(args[0]))
            return real.call(args, options)

    real = cast_module._CAST
    monkeypatch.setattr(cast_module, "_CAST", Counted())
    table = _guarded_table(1_000)
    bound = tk.bind(tk.parse("if(a != 0, b / a, 0.0)"), table.schema)
    value = tk.evaluate(bound, table, mode="lazy")
    a, b = table["a"], table["b"]
    expected = pc.if_else(pc.not_equal(a, 0), pc.divide(b, pc.cast(a, pa.float64())), 0.0)
    assert value.equals(expected)
    assert casts == [1_000]


def test_a_decimal_made_a_float_never_fails_so_its_comparison_runs_dense():
    """TPC-H's decimal columns against float literals (`l_discount between 0.05 and 0.07`):
    the cast runs on every row like any cheap kernel, not under a mask of nulls."""
    from decimal import Decimal
    rng = np.random.default_rng(3)
    cents = rng.integers(0, 11, 20_000)
    values = [None if i % 7 == 0 else Decimal(int(c)) / 100 for i, c in enumerate(cents)]
    extremes = [Decimal("9" * 76), Decimal("-" + "9" * 76), None]
    table = pa.table({"m": pa.array(values, pa.decimal128(15, 2)),
                      "q": pa.array(rng.integers(1, 50, 20_000), pa.int64())})
    text = "m >= 0.05 and m <= 0.07 and q < 24"
    value, event = _traced(text, table)
    m = pc.cast(table["m"], pa.float64())
    expected = pc.and_kleene(pc.and_kleene(pc.greater_equal(m, 0.05), pc.less_equal(m, 0.07)),
                             pc.less(table["q"], 24))
    assert value.equals(expected)
    assert tk.evaluate(text, table, mode="eager").equals(expected)
    right = next(n for n in event.nodes if n.label.startswith("less_equal"))
    assert "masked" not in (right.how or "") and "dense" in (right.how or ""), right.how
    wide = pa.table({"w": pa.array(extremes, pa.decimal256(76, 0))})
    for target in ("float", "double"):  # Arrow's own answer, as exprscope gives it
        got = tk.evaluate(f"cast(w as {target})", wide)
        want = pc.cast(wide["w"], pa.float32() if target == "float" else pa.float64())
        assert got.equals(want)
