"""The dense path: branches run over the whole domain (masked when they can fail).

Normally only large, dense selections take it; here the threshold is forced
to zero so every branch does, and the results must not change, nor may an
error on an unselected row surface.
"""

import contextlib

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies.paired import expressions, same_values, tables
from toolkit.errors import BindError, KernelError
from toolkit.execution import dense_path
from toolkit.execution.dense_path import Density, density_kinds

a, b, s = tk.field("a"), tk.field("b"), tk.field("s")


@contextlib.contextmanager
def always_dense():
    names = ("DENSE_THRESHOLD", "KLEENE_DENSE_THRESHOLD", "MIN_DENSE_ROWS")
    saved = [getattr(dense_path, n) for n in names]
    for n in names:
        setattr(dense_path, n, 0)
    try:
        yield
    finally:
        for n, v in zip(names, saved):
            setattr(dense_path, n, v)


def kind_of(expr, schema):
    return density_kinds(tk.bind(expr, schema))


def test_density_kinds():
    schema = pa.schema([("a", pa.int64()), ("b", pa.int64()), ("s", pa.string())])
    assert kind_of(tk.parse("a * 2 + b"), schema) is Density.SAFE  # unchecked: cannot fail
    assert kind_of(a * 2 + b, schema) is Density.MASKED  # checked (the operators): may fail
    assert kind_of(tk.if_else(a > 0, a, b), schema) is Density.SAFE
    assert kind_of(b / a + 1, schema) is Density.MASKED
    assert kind_of(s.cast(pa.int64()) * 2, schema) is Density.MASKED
    # a failing kernel above a null-hiding call or a special form cannot be masked
    assert kind_of(tk.literal(1) / tk.is_null(a).cast(pa.int64()), schema) is Density.NEVER
    assert kind_of(tk.coalesce(a, tk.literal(1) / b), schema) is Density.NEVER


def test_masked_dense_branch_never_fails_on_unselected_rows():
    batch = pa.record_batch({"a": pa.array([0, 2, 0, 4] * 50, pa.int64()),
                             "b": pa.array(range(200), pa.int64()),
                             "s": pa.array(["x", "2", "y", "4"] * 50)})
    with always_dense():
        out = tk.evaluate(tk.if_else(a != 0, b / a + 1, -1), batch)
        casted = tk.evaluate(tk.if_else(a != 0, s.cast(pa.int64()) * 0 + b, -1), batch)
        with pytest.raises(KernelError) as info:
            tk.evaluate(tk.if_else(b != 1, b / a, 0), batch)
    assert out.to_pylist() == [-1 if x == 0 else y // x + 1
                               for x, y in zip(batch.column("a").to_pylist(), range(200))]
    assert casted.to_pylist()[:4] == [-1, 1, -1, 3]
    assert info.value.row == 0


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["int", "float", "bool", "str"]).flatmap(expressions), tables())
def test_dense_results_equal_compact_results(pair, table):
    expr, _ = pair
    try:
        compact = tk.evaluate(expr, table)
    except (KernelError, BindError) as failed:
        # a literal argument that cannot be cast to its parameter (round_binary(x, ''))
        # fails when the tree binds, where a column's value would fail when it runs
        with always_dense(), pytest.raises(type(failed)):
            tk.evaluate(expr, table)
        return
    with always_dense():
        dense = tk.evaluate(expr, table)
    if isinstance(compact, pa.Scalar):
        assert isinstance(dense, pa.Scalar) and compact.type == dense.type
        return
    assert dense.type == compact.type
    assert same_values(dense, compact), str(expr)


def test_a_transcendental_branch_runs_on_its_rows_only_and_the_literal_merges_with_if_else():
    import numpy as np
    import pyarrow.compute as pc

    rng = np.random.default_rng(3)
    n = 50_000
    table = pa.table({"r": rng.random(n), "b": rng.random(n) * 100})
    text = "if(r < 0.01, ln(b + 1) * sqrt(b) + exp(b / 100), 0.0)"
    bound = tk.bind(tk.parse(text), table.schema)
    with tk.trace() as trace:
        lazy = tk.evaluate(bound, table)
    assert lazy.equals(tk.evaluate(bound, table, mode="eager"))
    taken = pc.sum(pc.less(table["r"], 0.01)).as_py()
    then = next(s for s in trace.evaluations[-1].nodes if s.path == (1,))
    assert then.rows == taken and then.how == "selected"  # not 50,000 rows of ln and exp
