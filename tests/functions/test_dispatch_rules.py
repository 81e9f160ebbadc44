"""The type rules of dispatch, checked against pyarrow's own kernels and by properties."""

from __future__ import annotations

import itertools
import math

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import BindError
from toolkit.functions.dispatch import smallest_type_for
from toolkit.functions.types import (
    NUMERIC,
    common_binary,
    common_numeric,
    common_temporal,
    decimal_operands,
)

INT_RANGES = {t: (-(1 << (t.bit_width - 1)), (1 << (t.bit_width - 1)) - 1) if pa.types.is_signed_integer(t)
              else (0, (1 << t.bit_width) - 1) for t in NUMERIC if pa.types.is_integer(t)}


@pytest.mark.parametrize("left, right", list(itertools.product(NUMERIC, NUMERIC)))
def test_common_numeric_is_the_type_pyarrow_adds_in(left, right):
    computed = pc.add(pa.array([], left), pa.array([], right)).type
    assert common_numeric([left, right]) == computed


def test_common_numeric_examples_from_arrow():
    assert common_numeric([pa.int8(), pa.uint8()]) == pa.int16()
    assert common_numeric([pa.int64(), pa.uint64()]) == pa.int64()
    assert common_numeric([pa.uint32(), pa.int8()]) == pa.int64()
    assert common_numeric([pa.uint8(), pa.uint16()]) == pa.uint16()
    assert common_numeric([pa.int64(), pa.float32()]) == pa.float32()
    assert common_numeric([pa.float16(), pa.int8()]) is None
    assert common_numeric([pa.utf8(), pa.int8()]) is None


def test_common_temporal_and_binary():
    assert common_temporal([pa.timestamp("s"), pa.timestamp("ns")]) == pa.timestamp("ns")
    assert common_temporal([pa.timestamp("s", "UTC"), pa.timestamp("ms", "UTC")]) == pa.timestamp("ms", "UTC")
    assert common_temporal([pa.timestamp("s", "UTC"), pa.timestamp("s")]) is None
    assert common_temporal([pa.date32(), pa.date64()]) == pa.date64()
    assert common_temporal([pa.timestamp("s"), pa.date32()]) == pa.timestamp("s")
    assert common_temporal([pa.time32("s"), pa.time64("us")]) == pa.time64("us")
    assert common_temporal([pa.time32("s"), pa.date32()]) is None
    assert common_binary([pa.utf8(), pa.large_utf8()]) == pa.large_utf8()
    assert common_binary([pa.utf8(), pa.binary()]) == pa.binary()
    assert common_binary([pa.large_binary(), pa.utf8()]) == pa.large_binary()
    assert common_binary([pa.binary(3), pa.binary(3)]) is None


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(INT_RANGES, key=str)).flatmap(
    lambda t: st.tuples(st.just(t), st.integers(*INT_RANGES[t]))))
def test_narrowed_integer_is_the_smallest_type_holding_the_value(type_and_value):
    t, value = type_and_value
    narrowed = smallest_type_for(pa.scalar(value, t))
    assert pa.types.is_signed_integer(narrowed) == pa.types.is_signed_integer(t)
    assert pa.scalar(value, t).cast(narrowed).as_py() == value
    smaller = [c for c in INT_RANGES if pa.types.is_signed_integer(c) == pa.types.is_signed_integer(t)
               and c.bit_width < narrowed.bit_width]
    for c in smaller:
        lo, hi = INT_RANGES[c]
        assert not lo <= value <= hi


@settings(max_examples=100, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_narrowed_double_is_float_exactly_when_nothing_is_lost(value):
    narrowed = smallest_type_for(pa.scalar(value, pa.float64()))
    as_float = pa.scalar(value, pa.float64()).cast(pa.float32(), safe=False).as_py()
    exact = math.isnan(value) or value in (float("inf"), float("-inf")) or as_float == value
    assert narrowed == (pa.float32() if exact else pa.float64())


@settings(max_examples=100, deadline=None)
@given(st.integers(-(2**62), 2**62), st.sampled_from(["s", "ms", "us", "ns"]), st.sampled_from([None, "UTC"]))
def test_narrowed_timestamp_takes_the_coarsest_exact_unit(raw, unit, tz):
    narrowed = smallest_type_for(pa.scalar(raw, pa.timestamp(unit, tz)))
    assert narrowed.tz == tz
    factor = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
    ratio = factor[unit] // factor[narrowed.unit]
    assert raw % ratio == 0
    coarser = [u for u in factor if factor[u] < factor[narrowed.unit]]
    assert all(raw % (factor[unit] // factor[u]) != 0 for u in coarser)


def test_narrowing_of_other_literals():
    assert smallest_type_for(pa.scalar("x", pa.large_utf8())) == pa.utf8()
    assert smallest_type_for(pa.scalar(b"x", pa.large_binary())) == pa.binary()
    assert smallest_type_for(pa.scalar(None, pa.int64())) == pa.int8()
    assert smallest_type_for(pa.scalar(300, pa.uint64())) == pa.uint16()
    assert smallest_type_for(pa.scalar(True)) == pa.bool_()


DECIMALS = st.tuples(st.integers(1, 38), st.integers(0, 10)).filter(lambda ps: ps[1] <= ps[0]).map(
    lambda ps: pa.decimal128(*ps))
OPERANDS = st.one_of(DECIMALS, st.sampled_from([pa.int8(), pa.int32(), pa.uint64(), pa.float32(),
                                                 pa.decimal256(40, 5)]))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["add", "subtract", "multiply", "divide", "less", "multiply_checked"]),
       DECIMALS, OPERANDS)
def test_decimal_result_types_equal_pyarrows(name, left, right):
    schema = pa.schema([("l", left), ("r", right)])
    try:
        expected = pc.call_function(name, [pa.array([], left), pa.array([], right)]).type
    except pa.ArrowInvalid:  # the result precision is out of range
        with pytest.raises(BindError, match="precision"):
            tk.call(name, [tk.field("l"), tk.field("r")]).bind(schema)
        return
    bound = tk.call(name, [tk.field("l"), tk.field("r")]).bind(schema)
    assert bound.type == expected
    assert decimal_operands([left, right])[0] in (pa.float64(),) or pa.types.is_decimal(
        decimal_operands([left, right])[0])


def test_explain_dispatch_narrates_the_binding_steps():
    from toolkit.functions.explain_dispatch import explain_dispatch

    schema = pa.schema([("a", pa.int32()), ("b", pa.uint8()), ("s", pa.utf8())])
    text = explain_dispatch(tk.call("add", [tk.field("a"), 1]), schema)
    assert "literals narrowed to their smallest type: (int32, int8)" in text
    assert "arg 1: int64 -> int32 (literal re-typed)" in text
    assert text.endswith("=> kernel add(int32, int32) -> int32, output int32")
    assert "arg 1: uint8 -> int32 (safe cast)" in explain_dispatch(tk.field("a") + tk.field("b"), schema)
    assert "no casts" in explain_dispatch(tk.field("a") + tk.field("a"), schema)
    failing = explain_dispatch(tk.field("s") == 1, schema)
    # the same words binding raises, then Arrow's own
    assert "fails: equal(s: string, 1) has no kernel" in failing
    with pytest.raises(tk.errors.NoKernelError) as raised:
        (tk.field("s") == 1).bind(schema)
    assert str(raised.value).splitlines()[0] == "equal(s: string, 1) has no kernel"
    assert "(Arrow: Function 'equal' has no kernel matching input types (string, int8))" in failing
    no_casts = explain_dispatch(tk.call("utf8_upper", [tk.field("b")]), schema)
    assert "best dispatch: none (exact only)" in no_casts
    assert ("fails: utf8_upper(b: uint8) has no kernel (Arrow: Function 'utf8_upper' has no "
            "kernel matching input types (uint8))") in no_casts


@pytest.mark.parametrize("int_type", [pa.int8(), pa.int32(), pa.uint16(), pa.int64()])
# (choose is left out: pyarrow's takes its last value's type and casts nothing)
@pytest.mark.parametrize("form", ["coalesce", "if_else", "case_when"])
def test_special_forms_give_integer_literals_their_declared_digits_next_to_decimals(form,
                                                                                   int_type):
    """pyarrow's CastDecimalArgs: an int32 takes ten digits before the decimal's scale."""
    from decimal import Decimal

    integer = pa.scalar(None, int_type)
    decimal = pa.scalar(Decimal("1.25"), pa.decimal128(3, 2))
    before = {"coalesce": [], "if_else": [pa.scalar(True)],
              "case_when": [pa.scalar({"c": True}, pa.struct([("c", pa.bool_())]))]}[form]
    args = before + [integer, decimal]
    bound = tk.call(form, [tk.literal(a) for a in args]).bind(pa.schema([]))
    expected = pc.call_function(form, args)
    assert bound.type == expected.type
    assert tk.evaluate(bound, pa.table({"x": [1]})) == expected.cast(bound.type)
