"""Properties: optimizing never changes a result; with a guarantee, never on the rows where
it holds; each pass is a fixed point of itself and says so with the very same object."""

import math

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings

import toolkit as tk
from tests.passes.arrow_cases import evaluate_acero, evaluate_full
from tests.strategies.typed import SCHEMA, expressions, guarantees, tables
from tests.strategies.untyped import DEFAULT_SCHEMA
from tests.strategies.untyped import expressions as untyped_expressions

PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def same_values(a: pa.Array, b: pa.Array) -> bool:
    """Equal row by row, NaN equal to NaN, -0.0 different from 0.0."""
    if a.type != b.type or len(a) != len(b):
        return False
    for x, y in zip(a.to_pylist(), b.to_pylist()):
        if isinstance(x, float) and isinstance(y, float):
            if math.isnan(x) and math.isnan(y):
                continue
            if x != y or math.copysign(1.0, x) != math.copysign(1.0, y):
                return False
        elif x != y:
            return False
    return True


@PROPERTY
@given(expressions(depth=3), tables())
def test_optimize_keeps_every_result(expr, table):
    bound = tk.bind(expr, SCHEMA)
    optimized = tk.optimize(bound, SCHEMA)
    assert optimized.type == bound.type
    expected = evaluate_full(bound, table)
    assert same_values(evaluate_full(optimized, table), expected), f"{bound}\n -> {optimized}"


@PROPERTY
@given(expressions(depth=3), tables(min_rows=1))
def test_acero_agrees_on_the_optimized_expression(expr, table):
    bound = tk.bind(expr, SCHEMA)
    optimized = tk.optimize(bound, SCHEMA)
    assert same_values(evaluate_acero(optimized, table), evaluate_acero(bound, table))


@PROPERTY
@given(expressions(depth=3), guarantees(), tables(max_rows=20))
def test_with_a_guarantee_results_hold_where_the_guarantee_does(expr, guarantee, table):
    bound = tk.bind(expr, SCHEMA)
    optimized = tk.optimize(bound, SCHEMA, guarantee=guarantee)
    holds = evaluate_full(tk.bind(guarantee, SCHEMA), table)
    rows = table.filter(pc.fill_null(holds, False))
    assert same_values(evaluate_full(optimized, rows), evaluate_full(bound, rows)), \
        f"{bound}\n given {guarantee}\n -> {optimized}"


@PROPERTY
@given(expressions(depth=3))
def test_each_pass_is_a_fixed_point_of_itself(expr):
    bound = tk.bind(expr, SCHEMA)
    once = tk.canonicalize(bound)
    assert tk.canonicalize(once) is once
    # folding and the identities can expose more work for each other: the driver's rounds
    optimized = tk.optimize(bound)
    assert tk.optimize(optimized) is optimized


@PROPERTY
@given(untyped_expressions(max_leaves=10))
def test_shared_random_trees_that_bind_optimize_to_a_fixed_point(expr):
    try:
        bound = tk.bind(expr, DEFAULT_SCHEMA)
    except tk.BindError:
        return  # most untyped trees are ill-typed; the typed properties above cover evaluation
    optimized = tk.optimize(bound)
    assert optimized.type == bound.type
    assert tk.canonicalize(optimized) is optimized
