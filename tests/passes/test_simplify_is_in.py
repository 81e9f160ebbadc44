"""is_in under an inequality guarantee: value-set trimming with Arrow's null-matching table."""

import itertools

import pyarrow as pa
import pytest

import toolkit as tk
from tests.passes.arrow_cases import assert_same_expr, call, evaluate_full
from toolkit.model.options import value_set
from toolkit.passes.set_lookup import (
    BEHAVIOR_NAMES,
    EMIT_NULL,
    INCONCLUSIVE,
    MATCH,
    SKIP,
    null_matching_behavior,
    set_lookup_options,
)

SCHEMA = pa.schema([pa.field("i32", pa.int32())])
I32 = tk.field("i32")


def i32(n):
    return tk.literal(pa.scalar(n, pa.int32()))


def is_in(values, behavior=MATCH):
    return tk.bind(call("is_in", I32, options=set_lookup_options(
        pa.array(values, pa.int32()), behavior)), SCHEMA)


@pytest.mark.parametrize("behavior", [MATCH, SKIP, EMIT_NULL, INCONCLUSIVE])
def test_values_the_guarantee_excludes_are_dropped(behavior):
    out = tk.simplify_with_guarantee(is_in([1, 3, 5, 7, 9], behavior), tk.greater(I32, i32(4)))
    assert out.name == "is_in"
    assert value_set(out.options).to_pylist() == [5, 7, 9]
    assert null_matching_behavior(out.options) == behavior


@pytest.mark.parametrize("behavior", [MATCH, SKIP, EMIT_NULL, INCONCLUSIVE])
def test_no_value_left_is_false_and_all_values_left_is_unchanged(behavior):
    expr = is_in([1, 3, 5, 7, 9], behavior)
    assert_same_expr(tk.simplify_with_guarantee(expr, tk.less_equal(I32, i32(0))),
                     tk.literal(False))
    assert tk.simplify_with_guarantee(expr, tk.greater(I32, i32(0))) is expr


def test_more_than_fifty_values_are_left_alone():
    expr = is_in(list(range(60)))
    assert tk.simplify_with_guarantee(expr, tk.greater(I32, i32(30))) is expr
    smaller = is_in(list(range(50)))
    assert len(value_set(tk.simplify_with_guarantee(smaller, tk.greater(I32, i32(30))).options)) == 19


NULLABLE = tk.or_(tk.equal(I32, i32(3)), tk.is_null(I32))
NON_NULL = tk.equal(I32, i32(3))
RANGE_OR_NULL = tk.or_(tk.greater(I32, i32(2)), tk.is_null(I32))


@pytest.mark.parametrize("behavior, with_null, guarantee, changes", [
    (MATCH, False, RANGE_OR_NULL, True),  # nulls in the set survive (emit_null)
    (MATCH, True, RANGE_OR_NULL, True),
    (SKIP, True, RANGE_OR_NULL, True),
    (EMIT_NULL, False, RANGE_OR_NULL, False),  # a nullable guarantee: unchanged
    (EMIT_NULL, True, tk.greater(I32, i32(2)), True),
    (INCONCLUSIVE, False, RANGE_OR_NULL, False),
    (INCONCLUSIVE, True, tk.greater(I32, i32(2)), False),  # a null in the set: unchanged
    (INCONCLUSIVE, False, tk.greater(I32, i32(2)), True),
])
def test_arrows_null_matching_table(behavior, with_null, guarantee, changes):
    values = [1, 3, 5] + ([None] if with_null else [])
    expr = is_in(values, behavior)
    out = tk.simplify_with_guarantee(expr, guarantee)
    assert (out is not expr) == changes, BEHAVIOR_NAMES[behavior]
    if changes and behavior == MATCH and with_null:
        assert value_set(out.options).null_count == 1  # a null input still finds its null


DATA_BY_GUARANTEE = {
    "nullable ==3": (NULLABLE, [3, None, 3]),
    "==3": (NON_NULL, [3, 3]),
    ">2 or null": (RANGE_OR_NULL, [3, 4, 5, None, 9]),
    ">2": (tk.greater(I32, i32(2)), [3, 4, 5, 9]),
}


@pytest.mark.parametrize("behavior, with_null, which", list(itertools.product(
    [MATCH, SKIP, EMIT_NULL, INCONCLUSIVE], [False, True], list(DATA_BY_GUARANTEE))))
def test_trimmed_is_in_agrees_on_rows_that_satisfy_the_guarantee(behavior, with_null, which):
    guarantee, rows = DATA_BY_GUARANTEE[which]
    values = [1, 3, 5, 7] + ([None] if with_null else [])
    expr = is_in(values, behavior)
    out = tk.simplify_with_guarantee(expr, guarantee)
    data = pa.table({"i32": pa.array(rows, pa.int32())})
    assert evaluate_full(out, data).to_pylist() == evaluate_full(expr, data).to_pylist()
