"""simplify_with_guarantee: Arrow's SingleComparisonGuarantees grid, SimplifyWithGuarantee,
validity guarantees and the nullable caveat; each checked on data too."""

import itertools

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from tests.passes.arrow_cases import (
    BORING_SCHEMA,
    assert_same_expr,
    bound,
    call,
    evaluate_full,
    null_literal,
    true_unless_null,
)
from toolkit.passes import GuaranteeError

F = tk.field
I32 = F("i32")


def i32(n):
    return tk.literal(pa.scalar(n, pa.int32()))


def f32(x):
    return tk.literal(pa.scalar(x, pa.float32()))


def expect_simplifies_to(expr, guarantee, expected):
    before = bound(expr)
    after = tk.simplify_with_guarantee(before, guarantee)
    assert_same_expr(after, bound(expected))
    if after.equals(before):
        assert after is before, "an unchanged result must be the very same object"
    return after


def expect_unchanged(expr, guarantee):
    before = bound(expr)
    assert tk.simplify_with_guarantee(before, guarantee) is before


def test_a_known_value_turns_a_projection_into_a_constant():
    projection = tk.project([call("add", I32, i32(1))], ["i32 + 1"])
    expected = pa.scalar({"i32 + 1": 4}, pa.struct([pa.field("i32 + 1", pa.int32())]))
    expect_simplifies_to(projection, tk.equal(I32, i32(3)), tk.literal(expected))


@pytest.mark.parametrize("filter_, guarantee, expected", [
    (tk.equal(I32, i32(5)), tk.equal(I32, i32(5)), True),
    (tk.less_equal(I32, i32(5)), tk.equal(I32, i32(5)), True),
    (tk.less(I32, i32(5)), tk.equal(I32, i32(3)), True),
    (tk.greater_equal(I32, i32(5)), tk.greater(I32, i32(5)), True),
    (tk.equal(I32, i32(5)), tk.less(I32, i32(3)), False),
    (tk.less(I32, i32(5)), tk.equal(I32, i32(5)), False),
    (tk.less_equal(I32, i32(3)), tk.equal(I32, i32(5)), False),
    (tk.equal(I32, tk.literal(0.5)), tk.greater_equal(I32, i32(1)), False),
])
def test_arrow_single_comparison_cases(filter_, guarantee, expected):
    expect_simplifies_to(filter_, guarantee, tk.literal(expected))


def test_not_equal_cannot_be_simplified_by_less():
    expect_unchanged(tk.not_equal(I32, i32(3)), tk.less(I32, i32(5)))


SATISFYING = {
    "equal": [5], "less": [4, 3, 2, 1], "less_equal": [5, 4, 3, 2, 1],
    "greater": [6, 7, 8, 9], "greater_equal": [5, 6, 7, 8, 9],
}
FILTER_OPS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("filter_op, rhs, guarantee_op", list(itertools.product(
    FILTER_OPS, [5, 3, 7], list(SATISFYING))))
def test_every_single_comparison_is_simplified_as_far_as_possible(filter_op, rhs, guarantee_op):
    """Arrow's exhaustive grid: the expectation comes from evaluating on satisfying data."""
    filter_ = call(filter_op, I32, i32(rhs))
    guarantee = call(guarantee_op, I32, i32(5))
    data = pa.table({name: pa.nulls(len(SATISFYING[guarantee_op]), BORING_SCHEMA.field(name).type)
                     if name != "i32" else pa.array(SATISFYING[guarantee_op], pa.int32())
                     for name in BORING_SCHEMA.names}, schema=BORING_SCHEMA)
    values = evaluate_full(bound(filter_), data).to_pylist()
    expected = (tk.literal(True) if all(values) else
                tk.literal(False) if not any(values) else filter_)
    after = expect_simplifies_to(filter_, guarantee, expected)
    # and the simplified filter agrees with the original on the data
    assert evaluate_full(after, data).to_pylist() == values


IN_123 = pc.SetLookupOptions(pa.array([1, 2, 3], pa.int32()), skip_nulls=True)


@pytest.mark.parametrize("filter_, guarantee, expected", [
    # both members of a conjunction dropped
    (tk.and_(tk.equal(I32, i32(2)), tk.equal(F("f32"), f32(3.5))),
     tk.and_(tk.greater_equal(I32, i32(0)), tk.less_equal(I32, i32(1))), tk.literal(False)),
    # one member of a conjunction dropped
    (tk.and_(tk.equal(I32, i32(0)), tk.equal(F("f32"), f32(3.5))), tk.equal(I32, i32(0)),
     tk.equal(F("f32"), f32(3.5))),
    # both members of a disjunction
    (tk.or_(tk.equal(I32, i32(0)), tk.equal(F("f32"), f32(3.5))), tk.equal(I32, i32(0)),
     tk.literal(True)),
    # one member of a disjunction
    (tk.or_(tk.equal(I32, i32(0)), tk.equal(I32, i32(3))),
     tk.and_(tk.greater_equal(I32, i32(0)), tk.less_equal(I32, i32(1))), tk.equal(I32, i32(0))),
    (tk.or_(tk.equal(F("f32"), f32(0)), tk.equal(I32, i32(3))),
     tk.greater(F("f32"), tk.literal(0.0)), tk.equal(I32, i32(3))),
    # through implicit casts
    (tk.or_(tk.equal(F("f32"), f32(0)), call("is_in", F("i64"), options=IN_123)),
     tk.greater(F("f32"), f32(0)), call("is_in", F("i64"), options=IN_123)),
    (tk.greater(F("dict_i32"), tk.literal(1)), tk.equal(F("dict_i32"), i32(0)), tk.literal(False)),
    (tk.equal(I32, i32(7)), tk.equal(I32, i32(7)), tk.literal(True)),
    # a negated guarantee says nothing usable
    (tk.equal(I32, i32(7)), tk.not_(tk.equal(I32, i32(7))), tk.equal(I32, i32(7))),
    # without is_null(i32) in the guarantee, i32 is taken to be valid
    (tk.is_null(I32), tk.greater_equal(I32, i32(1)), tk.literal(False)),
    (tk.is_null(I32), tk.or_(tk.greater_equal(I32, i32(1)), tk.is_null(I32)), tk.is_null(I32)),
    (tk.is_null(I32), tk.and_(tk.greater_equal(I32, i32(1)), tk.is_valid(I32)), tk.literal(False)),
    (tk.is_valid(I32), tk.greater_equal(I32, i32(1)), tk.literal(True)),
    (tk.is_valid(I32), tk.or_(tk.greater_equal(I32, i32(1)), tk.is_null(I32)), tk.is_valid(I32)),
    (tk.is_valid(I32), tk.and_(tk.greater_equal(I32, i32(1)), tk.is_valid(I32)), tk.literal(True)),
])
def test_arrow_simplify_with_guarantee_cases(filter_, guarantee, expected):
    expect_simplifies_to(filter_, guarantee, expected)


@pytest.mark.parametrize("filter_, guarantee, expected", [
    (tk.is_null(I32), tk.is_null(I32), tk.literal(True)),
    (tk.is_valid(I32), tk.is_null(I32), tk.literal(False)),
    (true_unless_null(I32), tk.is_null(I32), null_literal(pa.bool_())),
    (tk.is_valid(I32), tk.is_valid(I32), tk.literal(True)),
    (tk.is_valid(I32), tk.is_valid(F("dict_i32")), tk.is_valid(I32)),  # a different field
    (tk.is_null(I32), tk.is_valid(I32), tk.literal(False)),
    (true_unless_null(I32), tk.is_valid(I32), tk.literal(True)),
    (tk.equal(I32, i32(7)), tk.is_null(I32), null_literal(pa.bool_())),
    (tk.or_(tk.equal(I32, i32(2)), tk.is_null(I32)), tk.is_null(I32), tk.literal(True)),
    (tk.greater(I32, i32(7)), tk.is_null(I32), null_literal(pa.bool_())),
])
def test_arrow_validity_guarantees(filter_, guarantee, expected):
    expect_simplifies_to(filter_, guarantee, expected)


def test_is_valid_guarantee_leaves_is_null_with_nan_is_null_on_floats():
    """Arrow would fold this to false, but is_valid(f64) allows NaN, which this counts as null."""
    expect_unchanged(tk.is_null(F("f64"), nan_is_null=True), tk.is_valid(F("f64")))


I32_IS_2_OR_NULL = tk.or_(tk.equal(I32, i32(2)), tk.is_null(I32))


def test_nullable_guarantee_gives_true_unless_null():
    expect_simplifies_to(tk.equal(I32, i32(2)), I32_IS_2_OR_NULL, true_unless_null(I32))
    out = expect_simplifies_to(tk.equal(I32, i32(3)), I32_IS_2_OR_NULL,
                               tk.not_(true_unless_null(I32)))
    assert not tk.is_satisfiable(out)  # the row group can be skipped


def test_nullable_results_agree_with_the_filter_on_data_that_satisfies_the_guarantee():
    data = pa.table({"i32": pa.array([2, None, 2, None], pa.int32())})
    schema = data.schema
    for rhs in (2, 3):
        filter_ = tk.bind(tk.equal(I32, i32(rhs)), schema)
        out = tk.simplify_with_guarantee(filter_, I32_IS_2_OR_NULL)
        assert evaluate_full(out, data).equals(evaluate_full(filter_, data))


def test_simplify_then_execute_gives_the_same_rows():
    filter_ = bound(tk.or_(tk.equal(F("f32"), tk.literal(0)), call("is_in", F("i64"), options=IN_123)))
    simplified = tk.simplify_with_guarantee(filter_, tk.greater(F("f32"), tk.literal(0.0)))
    assert simplified is not filter_
    rows = [(0, 0.1), (0, 0.3), (1, 0.5), (2, 0.1), (0, 0.1), (0, 0.4), (0, 1.0)]
    columns = {name: pa.nulls(len(rows), BORING_SCHEMA.field(name).type) for name in BORING_SCHEMA.names}
    columns["i64"] = pa.array([r[0] for r in rows], pa.int64())
    columns["f32"] = pa.array([r[1] for r in rows], pa.float32())
    data = pa.table(columns, schema=BORING_SCHEMA)
    assert evaluate_full(simplified, data).equals(evaluate_full(filter_, data))


def test_a_known_dictionary_value_projects_as_a_dictionary():
    projection = bound(tk.project([I32, F("dict_str")], ["i32", "dict_str"]))
    out = tk.simplify_with_guarantee(projection, tk.equal(F("dict_str"), tk.literal("eh")))
    assert out.args[1].is_literal
    assert out.args[1].type == pa.dictionary(pa.int32(), pa.utf8())
    assert out.args[1].value.as_py() == "eh"


def test_an_incomparable_guarantee_is_a_clear_error():
    with pytest.raises(GuaranteeError, match="cannot compare"):
        tk.simplify_with_guarantee(bound(tk.greater(I32, i32(1))), tk.less(I32, tk.literal("x")))


def test_guarantee_on_a_cast_field_strips_order_preserving_casts():
    # i8 is widened to int32 to meet the int32 literal: the cast keeps order, so it is seen through
    expr = bound(tk.greater(F("i8"), i32(1000)))
    assert expr.args[0].is_call and expr.args[0].name == "cast"
    out = tk.simplify_with_guarantee(expr, tk.less(F("i8"), tk.literal(10)))
    assert_same_expr(out, tk.literal(False))
