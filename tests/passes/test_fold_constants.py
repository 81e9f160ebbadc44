"""fold_constants: Arrow's FoldConstants and FoldConstantsBoolean cases, plus the edges."""

import datetime

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from tests.passes.arrow_cases import assert_same_expr, bound, call, null_literal
from toolkit.errors import UnboundError


def expect_folds_to(expr, expected):
    before = bound(expr)
    after = tk.fold_constants(before)
    assert_same_expr(after, bound(expected))
    if after.equals(before):
        assert after is before, "an unchanged result must be the very same object"


def minutes(n):
    return tk.literal(pa.scalar(datetime.timedelta(minutes=n), pa.duration("s")))


TS = pa.scalar(datetime.datetime(1990, 10, 23, 10, 23, 33), pa.timestamp("s"))
TS_LATER = pa.scalar(datetime.datetime(1990, 10, 23, 12, 23, 33), pa.timestamp("s"))
def i32(n):
    """C++'s `literal(2)` is an int32; Python's 2 would be an int64."""
    return tk.literal(pa.scalar(n, pa.int32()))


IN_123 = pc.SetLookupOptions(pa.array([1, 2, 3], pa.int32()))


@pytest.mark.parametrize("expr, expected", [
    (tk.literal(3), tk.literal(3)),
    (tk.field("i32"), tk.field("i32")),
    (call("add", tk.literal(3), tk.literal(2)), tk.literal(5)),
    (tk.equal(tk.literal(3), tk.literal(3)), tk.literal(True)),
    (call("add", minutes(5), minutes(5)), minutes(10)),
    (call("add", tk.literal(pa.scalar(datetime.timedelta(hours=2), pa.duration("s"))),
          tk.literal(TS)), tk.literal(TS_LATER)),
    (call("add", tk.literal(TS), tk.literal(pa.scalar(datetime.timedelta(hours=2),
                                                      pa.duration("s")))), tk.literal(TS_LATER)),
    (call("add", tk.literal(3), tk.field("i32")), call("add", tk.literal(3), tk.field("i32"))),
    (call("add", call("subtract", tk.literal(8), call("multiply", tk.literal(2), tk.literal(3))),
          tk.literal(2)), tk.literal(4)),
    (tk.equal(tk.field("i32"), null_literal(pa.int32())), null_literal(pa.bool_())),
    (call("add", call("subtract", tk.field("i32"), call("multiply", i32(2), i32(3))), i32(2)),
     call("add", call("subtract", tk.field("i32"), i32(6)), i32(2))),
    (call("is_in", tk.literal(2), options=IN_123), tk.literal(True)),
    (call("is_in", call("add", tk.field("i32"), call("multiply", i32(2), i32(3))), options=IN_123),
     call("is_in", call("add", tk.field("i32"), i32(6)), options=IN_123)),
])
def test_arrow_fold_constants_cases(expr, expected):
    expect_folds_to(expr, expected)


WHATEVER = tk.equal(call("add", tk.literal(1), tk.field("i32")), tk.literal(2))
TRUE, FALSE = tk.literal(True), tk.literal(False)


@pytest.mark.parametrize("expr, expected", [
    (tk.and_(FALSE, WHATEVER), FALSE),
    (tk.and_(TRUE, WHATEVER), WHATEVER),
    (tk.and_(WHATEVER, WHATEVER), WHATEVER),
    (tk.and_(WHATEVER, FALSE), FALSE),
    (tk.and_(WHATEVER, TRUE), WHATEVER),
    (tk.or_(TRUE, WHATEVER), TRUE),
    (tk.or_(FALSE, WHATEVER), WHATEVER),
    (tk.or_(WHATEVER, WHATEVER), WHATEVER),
    (tk.or_(WHATEVER, TRUE), TRUE),
])
def test_arrow_kleene_folding(expr, expected):
    expect_folds_to(expr, expected)


def test_null_and_b_is_not_folded_because_it_depends_on_b():
    expr = bound(tk.and_(null_literal(pa.bool_()), tk.field("bool")))
    assert tk.fold_constants(expr) is expr
    expr = bound(tk.or_(null_literal(pa.bool_()), tk.field("bool")))
    assert tk.fold_constants(expr) is expr


def test_null_intersection_returns_the_argument_when_its_type_is_the_call_type():
    null_i32 = null_literal(pa.int32())
    expr = bound(call("add", tk.field("i32"), null_i32))
    out = tk.fold_constants(expr)
    assert out is expr.args[1]  # the very argument, typed like the call


def test_null_intersection_does_not_apply_to_computed_or_not_null_functions():
    for expr in (tk.is_null(tk.field("i32")),
                 tk.and_(tk.field("bool"), null_literal(pa.bool_()))):
        b = bound(expr)
        assert tk.fold_constants(b) is b
    # is_null of a null literal is folded by evaluation, to true (not to null)
    assert_same_expr(tk.fold_constants(bound(tk.is_null(null_literal(pa.int32())))), TRUE)


def test_plain_and_with_a_null_literal_is_null_but_and_kleene_is_not():
    out = tk.fold_constants(bound(call("and", tk.field("bool"), null_literal(pa.bool_()))))
    assert_same_expr(out, null_literal(pa.bool_()))


def test_a_call_that_fails_on_its_literals_is_left_for_evaluation():
    expr = bound(tk.cast(tk.literal(300), pa.int8()))  # overflows a safe cast
    assert tk.fold_constants(expr) is expr
    inside = bound(tk.if_else(tk.field("bool"), tk.field("i8"), tk.cast(tk.literal(300), pa.int8())))
    assert tk.fold_constants(inside) is inside


def test_unbound_input_is_refused_with_arrows_message():
    with pytest.raises(UnboundError, match="Cannot fold constants in unbound expression."):
        tk.fold_constants(tk.literal(1) + 2)


def test_nan_literals_fold_like_the_kernel_says():
    nan = tk.literal(float("nan"))
    assert_same_expr(tk.fold_constants(bound(tk.equal(nan, nan))), FALSE)
    assert_same_expr(tk.fold_constants(bound(tk.not_equal(nan, nan))), TRUE)
