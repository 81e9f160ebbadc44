"""Float division cannot fail (IEEE gives inf/NaN), so filters using it merge like any other;
integer division can (divide by zero), so those filters stay apart."""

import pyarrow as pa

import toolkit as tk
from toolkit import plan
from toolkit.plan.logical_plan import Filter


def _filters(p) -> int:
    count, stack = 0, [p]
    while stack:
        node = stack.pop()
        count += isinstance(node, Filter)
        stack.extend(node.children)
    return count


def test_a_float_division_filter_merges_with_the_filter_below():
    t = pa.table({"x": pa.array([1.0, 2000.0, 9000.0]), "y": [1, 2, 3]})
    p = plan.scan("t", t).filter(tk.parse("y > 1")).filter(tk.parse("x / 1000.0 > 4"))
    assert _filters(plan.optimize(p)) == 1
    assert plan.create_physical_plan(p).collect().column("y").to_pylist() == [3]


def test_an_integer_division_filter_is_kept_apart():
    t = pa.table({"x": [0, 2, 9], "y": [0, 2, 3]})
    p = plan.scan("t", t).filter(tk.parse("y != 0")).filter(tk.parse("x / y > 2"))
    assert _filters(plan.optimize(p)) == 2
    assert plan.create_physical_plan(p).collect().column("y").to_pylist() == [3]
