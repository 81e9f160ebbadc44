"""canonicalize: Arrow's cases from expression_test.cc (CanonicalizeAnd/Add/Comparison)."""

import datetime

import pyarrow as pa
import pytest

import toolkit as tk
from tests.passes.arrow_cases import assert_same_expr, bound, call, null_literal
from toolkit.errors import UnboundError

TRUE = tk.literal(True)
NULL = null_literal(pa.bool_())
B = tk.field("bool")
C = tk.equal(tk.literal(1), tk.literal(2))
FIVE_MIN = tk.literal(pa.scalar(datetime.timedelta(minutes=5), pa.duration("s")))


def expect_canonicalizes_to(expr, expected):
    before = bound(expr)
    after = tk.canonicalize(before)
    assert_same_expr(after, bound(expected))
    if after.equals(before):
        assert after is before, "an unchanged result must be the very same object"


@pytest.mark.parametrize("expr", [tk.literal(1), tk.field("i32"),
                                  tk.equal(tk.field("i32"), tk.field("i32_req"))])
def test_trivial_expressions_come_back_identical(expr):
    before = bound(expr)
    assert tk.canonicalize(before) is before


@pytest.mark.parametrize("expr, expected", [
    (tk.and_(B, C), tk.and_(B, C)),  # no change possible
    (tk.and_(B, TRUE), tk.and_(TRUE, B)),  # literals placed innermost
    (tk.and_(TRUE, B), tk.and_(TRUE, B)),
    (tk.and_(B, tk.and_(TRUE, C)), tk.and_(tk.and_(TRUE, B), C)),
    (tk.and_(B, tk.and_(tk.and_(TRUE, TRUE), C)), tk.and_(tk.and_(tk.and_(TRUE, TRUE), B), C)),
    (tk.and_(B, tk.and_(tk.and_(TRUE, NULL), C)), tk.and_(tk.and_(tk.and_(NULL, TRUE), B), C)),
    (tk.and_(B, tk.and_(tk.and_(TRUE, NULL), tk.and_(C, NULL))),
     tk.and_(tk.and_(tk.and_(tk.and_(NULL, NULL), TRUE), B), C)),
    (tk.is_valid(tk.and_(B, TRUE)), tk.is_valid(tk.and_(TRUE, B))),  # also as a subexpression
])
def test_and_chains_put_null_literals_then_literals_first(expr, expected):
    expect_canonicalizes_to(expr, expected)


def test_add_of_timestamp_and_duration_is_reordered_and_rebound():
    ts = tk.field("ts_s")
    expect_canonicalizes_to(call("add", ts, FIVE_MIN), call("add", FIVE_MIN, ts))
    expect_canonicalizes_to(
        call("add", call("add", ts, FIVE_MIN), call("add", FIVE_MIN, FIVE_MIN)),
        call("add", call("add", call("add", FIVE_MIN, FIVE_MIN), FIVE_MIN), ts))
    out = tk.canonicalize(bound(call("add", ts, FIVE_MIN)))
    assert out.kernel.matches([a.type for a in out.args])
    assert out.type == pa.timestamp("s")


@pytest.mark.parametrize("expr, expected", [
    (tk.equal(tk.literal(1), tk.field("i32")), tk.equal(tk.field("i32"), tk.literal(1))),
    (tk.equal(tk.field("i32"), tk.literal(1)), tk.equal(tk.field("i32"), tk.literal(1))),
    (tk.less(tk.literal(1), tk.field("i32")), tk.greater(tk.field("i32"), tk.literal(1))),
    (tk.less(tk.field("i32"), tk.literal(1)), tk.less(tk.field("i32"), tk.literal(1))),
    (tk.greater_equal(tk.literal(1), tk.field("i32")), tk.less_equal(tk.field("i32"), tk.literal(1))),
])
def test_comparisons_get_their_literal_on_the_right(expr, expected):
    expect_canonicalizes_to(expr, expected)


def test_no_folding_happens():
    expr = bound(tk.and_(C, B))  # 1 == 2 stays a call
    out = tk.canonicalize(expr)
    assert out is expr
    assert out.args[0].is_call


def test_unbound_input_is_refused_with_arrows_message():
    with pytest.raises(UnboundError, match="Cannot canonicalize an unbound expression."):
        tk.canonicalize(tk.field("a") + 1)


def test_a_right_nested_sum_becomes_a_left_fold_with_literals_first():
    a = tk.field("i32")
    expr = bound(a + (tk.cast(tk.field("i8"), pa.int32()) + (tk.literal(3) + a)))
    out = tk.canonicalize(expr)
    assert_same_expr(out, bound(((tk.literal(3) + a) + tk.cast(tk.field("i8"), pa.int32())) + a))


@pytest.mark.parametrize("name", ["bit_wise_and", "bit_wise_or", "bit_wise_xor"])
def test_bit_wise_chains_are_associative_commutative_and_keep_their_values(name):
    """Not in Arrow's list, but and/or/xor of bits commute and associate over integers of
    any widths (sign extension distributes over each): a chain is reordered as an add
    chain is, literals first, and computes the same values, with the same type."""
    i8, i32, u32 = tk.field("i8"), tk.field("i32"), tk.field("u32")
    seven = tk.literal(7)
    before = bound(call(name, i8, call(name, i32, call(name, seven, u32))))
    after = tk.canonicalize(before)
    # a left fold, the literal innermost, the fields in order, each under the cast to int64
    # bind inserted in the right-nested original
    assert after.to_string().startswith(f"{name}({name}({name}(7, cast(i8, "), after
    assert [str(a.args[0]) for a in (after.args[0].args[0].args[1], after.args[0].args[1],
                                     after.args[1])] == ["i8", "i32", "u32"]
    assert after.type == before.type
    table = pa.table({"i8": pa.array([-1, 5, None, -128, 127, 0], pa.int8()),
                      "i32": pa.array([-2, 2**31 - 1, 3, -7, None, 12], pa.int32()),
                      "u32": pa.array([2**32 - 1, 9, 1, None, 6, 0], pa.uint32())})
    assert tk.evaluate(after, table).equals(tk.evaluate(before, table))
