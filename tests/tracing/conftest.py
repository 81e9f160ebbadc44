"""Real traces for the tracer tests: the real passes and the real evaluator, never fakes."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.passes import optimize


@pytest.fixture
def table():
    return pa.table({"a": pa.array([0, 1, 2, 0, 5, None], pa.int64()),
                     "b": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
                     "s": ["x", "y", "x", None, "z", "y"]})


@pytest.fixture
def full_trace(table):
    """Passes that change the tree, a lazy evaluation, an eager one that fails at row 0."""
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), tk.literal(1) + 2)
    with tk.trace() as t:
        optimized = optimize(3 < tk.field("b") + (tk.literal(1) + 1), table.schema)
        tk.evaluate(optimized, table)
        tk.evaluate(expr, table)
        with pytest.raises(tk.KernelError):
            tk.evaluate(expr, table, mode="eager")
    return t
