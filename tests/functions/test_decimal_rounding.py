"""Decimal rounding gives the exactly rounded value, or fails where it no longer fits.

`round`, `round_binary`, `round_to_multiple`, `ceil`, `floor` and `trunc` keep a
decimal's type (Arrow's rule), so a value whose rounding carries into one more digit
cannot be held: exprscope raises for that row, whatever rows follow it (pyarrow 26's
kernel gives 0 when a later row rounds fine). Oracles: Python's `decimal` module for
every value and rounding mode, and DuckDB's round for the values that fit.
"""

from __future__ import annotations

import decimal
from decimal import Decimal

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import KernelError

MODES = ["down", "up", "towards_zero", "towards_infinity", "half_down", "half_up",
         "half_towards_zero", "half_towards_infinity", "half_to_even", "half_to_odd"]
# Arrow's modes with a twin in Python's decimal module (Arrow's `half_up` breaks ties
# towards +infinity and `half_down` towards -infinity: Python's break them away from and
# towards zero, so those, and `half_to_odd`, are settled by hand below)
PYTHON_MODE = {"down": decimal.ROUND_FLOOR, "up": decimal.ROUND_CEILING,
               "towards_zero": decimal.ROUND_DOWN, "towards_infinity": decimal.ROUND_UP,
               "half_towards_zero": decimal.ROUND_HALF_DOWN,
               "half_towards_infinity": decimal.ROUND_HALF_UP,
               "half_to_even": decimal.ROUND_HALF_EVEN}
EXACT = decimal.Context(prec=200)  # no rounding of 76-digit values or their steps


class DoesNotFit(Exception):
    """The oracle's word: Arrow's type cannot hold this row's result."""


def rounded_to_step(x: Decimal, step: Decimal, mode: str) -> Decimal:
    """`x` rounded to a multiple of `step` in Arrow's `mode`, exactly."""
    q = EXACT.divide(x, step)
    if mode in PYTHON_MODE:
        k = q.to_integral_value(rounding=PYTHON_MODE[mode], context=EXACT)
    else:
        floor = q.to_integral_value(rounding=decimal.ROUND_FLOOR, context=EXACT)
        if EXACT.subtract(q, floor) != Decimal("0.5"):  # not a tie: the nearest multiple
            k = q.to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=EXACT)
        elif mode == "half_down":
            k = floor
        elif mode == "half_up":
            k = EXACT.add(floor, 1)
        else:  # half_to_odd
            k = floor if EXACT.remainder(floor, 2) else EXACT.add(floor, 1)
    return EXACT.multiply(k, step)


def expected(x: Decimal | None, t: pa.DataType, digits: int | None, mode: str,
             multiple: Decimal | None = None) -> Decimal | None:
    """The oracle for one row: the rounded value, or DoesNotFit."""
    if x is None or (digits is None and multiple is None):
        return None
    p, s = t.precision, t.scale
    if multiple is None:
        if s - digits >= p:  # Arrow refuses rounding to so few digits, for any value
            raise DoesNotFit
        if s - digits <= 0:  # as many digits as the type has, or more: unchanged
            return x
        step = Decimal(1).scaleb(-digits)
    else:
        step = multiple
    r = rounded_to_step(x, step, mode)
    if r.copy_abs() >= Decimal(1).scaleb(p - s):
        raise DoesNotFit
    return r


@st.composite
def decimal_columns(draw, wide=False):
    """A decimal type and up to 8 values clustered where rounding carries: integral parts
    of all nines, ties, the type's extremes; nulls among them."""
    # decimal256 up to 45 digits: beyond, Arrow's own division can be off by one
    # (test_arrow_rounds_some_decimal256_values_of_46_digits_wrong)
    p = draw(st.integers(39, 45)) if wide else draw(st.integers(1, 38))
    t = (pa.decimal256 if wide else pa.decimal128)(p, draw(st.integers(0, p)))
    p, s = t.precision, t.scale
    top = 10 ** p - 1
    near_top = st.integers(0, 10 ** min(p, 4)).map(lambda d: top - d)
    tie = st.integers(0, p).map(lambda k: top - top % 10 ** k + (5 * 10 ** (k - 1) if k else 0))
    unscaled = st.one_of(st.integers(-top, top), near_top, near_top.map(lambda u: -u),
                         tie.filter(lambda u: abs(u) <= top), st.just(0))
    value = unscaled.map(lambda u: Decimal(u).scaleb(-s, EXACT))
    values = draw(st.lists(st.one_of(st.none(), value), min_size=1, max_size=8))
    return t, values


def _first_failure(rows):
    """(first failing row or None, the expected values)."""
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(row())
        except DoesNotFit:
            return i, None
    return None, out


def _check(expr, table, rows, mode="lazy"):
    failing, values = _first_failure(rows)
    if failing is not None:
        with pytest.raises(KernelError) as info:
            tk.evaluate(expr, table, mode=mode)
        assert info.value.row == failing, (str(expr), info.value.row, failing)
        assert "not fit in precision" in str(info.value)
        return
    got = tk.evaluate(expr, table, mode=mode)
    assert got.type == table.column(0).type, (got.type, table.column(0).type)
    assert got.to_pylist() == values, (str(expr), got.to_pylist(), values)


@settings(max_examples=150, deadline=None)
@given(st.one_of(decimal_columns(), decimal_columns(wide=True)), st.integers(-4, 40),
       st.sampled_from(MODES), st.sampled_from(["lazy", "eager"]))
def test_round_equals_python_decimal_or_fails_where_it_does_not_fit(column, digits, mode,
                                                                     how):
    t, values = column
    table = pa.table({"x": pa.array(values, t)})
    expr = tk.call("round", [tk.field("x")], pc.RoundOptions(digits, mode))
    _check(expr, table, [lambda x=x: expected(x, t, digits, mode) for x in values], how)


@settings(max_examples=80, deadline=None)
@given(decimal_columns(), st.sampled_from(["ceil", "floor", "trunc"]))
def test_ceil_floor_trunc_of_decimals_equal_python_decimal(column, name):
    t, values = column
    mode = {"ceil": "up", "floor": "down", "trunc": "towards_zero"}[name]
    table = pa.table({"x": pa.array(values, t)})
    expr = tk.call(name, [tk.field("x")])
    _check(expr, table, [lambda x=x: expected(x, t, 0, mode) for x in values])


@settings(max_examples=80, deadline=None)
@given(decimal_columns(), st.data(), st.sampled_from(MODES))
def test_round_binary_with_digits_per_row(column, data, mode):
    t, values = column
    digits = data.draw(st.lists(st.one_of(st.none(), st.integers(-3, t.precision + 1)),
                                min_size=len(values), max_size=len(values)))
    table = pa.table({"x": pa.array(values, t), "n": pa.array(digits, pa.int32())})
    expr = tk.call("round_binary", [tk.field("x"), tk.field("n")],
                   pc.RoundBinaryOptions(mode))
    _check(expr, table, [lambda x=x, n=n: expected(x, t, n, mode)
                         for x, n in zip(values, digits)])


@settings(max_examples=80, deadline=None)
@given(decimal_columns(), st.data(), st.sampled_from(MODES))
def test_round_to_multiple_of_decimals(column, data, mode):
    t, values = column
    p, s = t.precision, t.scale
    unscaled = data.draw(st.one_of(st.integers(1, 10 ** p - 1),
                                   st.sampled_from([1, 2, 5, 10 ** (p - 1)])))
    multiple = Decimal(unscaled).scaleb(-s, EXACT)
    table = pa.table({"x": pa.array(values, t)})
    expr = tk.call("round_to_multiple", [tk.field("x")],
                   pc.RoundToMultipleOptions(pa.scalar(multiple, t), mode))
    _check(expr, table, [lambda x=x: expected(x, t, None, mode, multiple) for x in values])


def test_the_row_that_does_not_fit_fails_whatever_rows_follow():
    """pyarrow's own kernel returns 0 here: the row that fails is followed by one that
    rounds."""
    t = pa.decimal128(10, 2)
    table = pa.table({"x": pa.array([Decimal("1.25"), Decimal("99999999.99"),
                                     Decimal("3.50")], t)})
    assert pc.round(table["x"]).to_pylist()[1] == 0  # the defect this guards against
    for name in ("round", "ceil"):
        with pytest.raises(KernelError) as info:
            tk.evaluate(tk.call(name, [tk.field("x")]), table)
        assert info.value.row == 1
        assert "Rounded value 100000000.00 does not fit in precision of decimal128(10, 2)" \
            in str(info.value)
        assert "decimal128(11, 2)" in str(info.value)  # the cast that makes room
    # what the message advises gives the value
    widened = tk.call("round", [tk.cast(tk.field("x"), pa.decimal128(11, 2))])
    assert tk.evaluate(widened, table).to_pylist() == [Decimal("1.00"), Decimal("100000000.00"),
                                                        Decimal("4.00")]
    # a row that does not reach the round spares it, as any failing kernel
    guarded = tk.if_else(tk.field("x") < 1000, tk.call("round", [tk.field("x")]),
                         tk.field("x"))
    assert tk.evaluate(guarded, table).to_pylist()[1] == Decimal("99999999.99")


def test_a_row_story_and_the_whole_table_agree():
    """The one-row batch a row's story evaluates raises as the whole table does."""
    t = pa.decimal128(4, 2)
    table = pa.table({"x": pa.array([Decimal("99.99"), Decimal("1.00")], t)})
    expr = tk.call("round", [tk.field("x")])
    with pytest.raises(KernelError):
        tk.evaluate(expr, table)
    story = tk.explain_row(expr, table, 0)
    assert story.value is None and "does not fit in precision" in story.error
    assert tk.explain_row(expr, table, 1).value.as_py() == Decimal("1.00")


@settings(max_examples=60, deadline=None)
@given(decimal_columns(), st.integers(-3, 12))
def test_round_agrees_with_duckdb_where_the_value_fits(column, digits):
    """DuckDB rounds half away from zero (Arrow's `half_towards_infinity`) into a type of
    its own that holds the carry: where exprscope fails, DuckDB's value needs more
    integral digits than the input type has."""
    t, values = column
    table = pa.table({"x": pa.array(values, t)})
    expr = tk.call("round", [tk.field("x")], pc.RoundOptions(digits, "half_towards_infinity"))
    con = duckdb.connect()
    con.register("t", table)
    theirs = [r[0] for r in con.execute(f"select round(x, {digits}) from t").fetchall()]
    try:
        ours = tk.evaluate(expr, table).to_pylist()
    except KernelError as exc:
        if t.scale - digits >= t.precision:  # Arrow refuses the digits outright
            return
        row = exc.row
        assert theirs[row] is not None
        assert theirs[row].copy_abs() >= Decimal(1).scaleb(t.precision - t.scale), \
            (values[row], theirs[row])
        return
    assert ours == theirs, (ours, theirs)


@pytest.mark.xfail(strict=True, reason="Arrow's Decimal256 division is off by one for some "
                   "values of 46 or more digits; exprscope inherits it (not yet guarded)")
def test_arrow_rounds_some_decimal256_values_of_46_digits_wrong():
    """Flooring 10^46 - 1 at scale 14 should keep 32 nines; pyarrow 26 gives ...98 (so do
    its casts that drop the scale). Strict: once Arrow is right this test says so."""
    t = pa.decimal256(46, 14)
    x = Decimal(10 ** 46 - 1).scaleb(-14, EXACT)
    table = pa.table({"x": pa.array([x], t)})
    got = tk.evaluate(tk.call("floor", [tk.field("x")]), table)
    assert got.to_pylist() == [Decimal(10 ** 32 - 1)]
