"""Before any kernel runs, evaluate walks a tree once for what it needs (fields read, morsel
size, array literals) and simplifies it once; a tree evaluated batch after batch on the same
schema is neither walked, simplified nor checked against the schema again."""

from __future__ import annotations

import importlib

import pyarrow as pa

import toolkit as tk

# the module, not the function the package exports under the same name
evaluate_module = importlib.import_module("toolkit.execution.evaluate")

TEXT = "case " + " ".join(f"when a < {2 * (i + 1)} then b * {i}" for i in range(20)) + \
    " else 0.0 end"


def _counting(monkeypatch, name: str) -> list:
    calls = []
    real = getattr(evaluate_module, name)

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, name, counted)
    return calls


def _batch(rows: int = 1000) -> pa.RecordBatch:
    return pa.record_batch({"a": pa.array([i % 50 for i in range(rows)], pa.int64()),
                            "b": pa.array([i / 7 for i in range(rows)], pa.float64())})


def test_a_tree_is_walked_once_before_its_first_evaluation_and_not_again(monkeypatch):
    walks = _counting(monkeypatch, "postorder")
    simplified = _counting(monkeypatch, "canonicalize")
    checked = _counting(monkeypatch, "_where_now")
    batch = _batch()
    bound = tk.bind(tk.parse(TEXT), batch.schema)
    first = tk.evaluate(bound, batch)
    assert walks == [bound]  # one walk, not one per fact
    assert simplified == [bound]
    assert len(checked) == 2  # each distinct field once, though the tree reads them 40 times
    again = pa.record_batch(batch.columns, schema=pa.schema(list(batch.schema)))  # equal schema
    for data in (batch, again, batch):
        assert tk.evaluate(bound, data).equals(first)
        assert tk.evaluate(bound, data, mode="eager").equals(first)
    assert walks == [bound] and simplified == [bound] and len(checked) == 2
