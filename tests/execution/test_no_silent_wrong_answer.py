"""Answers that used to be wrong without any error: each now right, or a clear error."""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution.evaluation import EvaluationError


def test_a_bound_field_reads_its_column_by_name_when_the_data_reorders_columns():
    table = pa.table({"a": [1, 2, 3], "b": [10, 20, 30]})
    bound = (tk.field("a") + 0).bind(table.schema)
    reordered = pa.table({"b": [10, 20, 30], "a": [1, 2, 3]})
    assert tk.evaluate(bound, reordered).to_pylist() == [1, 2, 3]
    assert tk.evaluate(bound, reordered.to_batches()[0]).to_pylist() == [1, 2, 3]
    nested = pa.table({"x": [0, 0, 0], "s": pa.array([{"q": 1, "a": 5}] * 3)})
    bound_nested = tk.field("s", "a").bind(nested.schema)
    swapped = pa.table({"s": pa.array([{"a": 7, "q": 1}] * 3), "x": [0, 0, 0]})
    assert tk.evaluate(bound_nested, swapped).to_pylist() == [7, 7, 7]


@pytest.mark.parametrize("data, says", [
    (pa.table({"z": [1, 2]}), "no such field"),
    (pa.table({"a": ["x", "y"]}), "it as string"),
    (pa.table({"a": [1, 2], "b": [3, 4]}).rename_columns(["a", "a"]), "2 fields of that name"),
])
def test_a_bound_field_the_data_lacks_is_an_error_naming_the_field_and_the_data(data, says):
    bound = (tk.field("a") + 0).bind(pa.schema([("a", pa.int64())]))
    with pytest.raises(EvaluationError) as info:
        tk.evaluate(bound, data)
    message = str(info.value)
    assert "field a was bound as int64" in message and says in message
    assert "the data's fields:" in message


def test_index_refs_still_read_by_position():
    bound = tk.field(1).bind(pa.schema([("p", pa.int64()), ("q", pa.int64())]))
    assert tk.evaluate(bound, pa.table({"x": [0], "y": [5]})).to_pylist() == [5]


@given(st.permutations(["a", "b", "c", "d"]))
def test_any_column_order_gives_the_same_answer(order):
    table = pa.table({"a": [1, 2], "b": [3, 4], "c": [5, 6], "d": [7, 8]})
    bound = tk.parse("a * 1000 + b * 100 + c * 10 + d").bind(table.schema)
    assert tk.evaluate(bound, table.select(list(order))).to_pylist() == [1357, 2468]


def test_negative_zero_literals_keep_their_sign_whatever_was_bound_before():
    schema = pa.schema([("f", pa.float32())])
    for first, second in [(0.0, -0.0), (-0.0, 0.0)]:
        a = (tk.field("f") * tk.literal(first)).bind(schema)
        b = (tk.field("f") * tk.literal(second)).bind(schema)
        assert math.copysign(1, a.args[1].value.as_py()) == math.copysign(1, first)
        assert math.copysign(1, b.args[1].value.as_py()) == math.copysign(1, second)
    table = pa.table({"f": pa.array([1.0], pa.float32())})
    product = tk.call("multiply", [tk.field("f"), tk.literal(-0.0)])
    result = tk.evaluate(tk.call("divide", [tk.literal(1.0), product]), table)
    assert result.to_pylist() == [float("-inf")]
    assert pc.divide(1.0, pc.multiply(table["f"], -0.0)).to_pylist() == [float("-inf")]
