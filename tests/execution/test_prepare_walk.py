"""Before any kernel runs, evaluate prepares a tree once (`prepare.py`): binds it, simplifies it
and walks it one time for every fact evaluation needs (fields read, morsel size, array
literals, the density facts of every node, how each case_when runs). A tree evaluated batch
after batch on the same schema is neither bound, walked, simplified nor checked against the
schema again, and an unbound tree parsed anew from the same text is the same tree."""

from __future__ import annotations

import importlib

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.model.expression import postorder
from toolkit.support.bounded_cache import BoundedCache

# the modules, not the functions the package exports under the same names
prepare_module = importlib.import_module("toolkit.execution.prepare")
dense_path = importlib.import_module("toolkit.execution.dense_path")
trampoline = importlib.import_module("toolkit.execution.trampoline")

TEXT = "case " + " ".join(f"when a < {2 * (i + 1)} then b * {i}" for i in range(20)) + \
    " else 0.0 end"


@pytest.fixture(autouse=True)
def _nothing_prepared(monkeypatch):
    """Each test starts with no tree prepared (another test may have prepared the same)."""
    monkeypatch.setattr(prepare_module, "_PREPARED", BoundedCache(prepare_module.CACHE_SIZE))


def _counting(monkeypatch, module, name: str) -> list:
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


class _Visits:
    """Every node a walk yields, counted per walk, and what had happened by the first kernel."""

    def __init__(self, monkeypatch):
        self.walks: list[list] = []
        self.before_first_kernel: int | None = None
        for module in (prepare_module, dense_path):
            monkeypatch.setattr(module, "postorder", self._walk)
        real_run = trampoline.run_tree

        def run_tree(ctx, root, sel=None):
            if self.before_first_kernel is None:
                self.before_first_kernel = len(self.walks)
            return real_run(ctx, root, sel)

        monkeypatch.setattr(importlib.import_module("toolkit.execution.evaluation"), "run_tree",
                            run_tree)

    def _walk(self, root):
        visited = []
        self.walks.append(visited)
        for node in postorder(root):
            visited.append(node)
            yield node


def _batch(rows: int = 1000) -> pa.RecordBatch:
    return pa.record_batch({"a": pa.array([i % 50 for i in range(rows)], pa.int64()),
                            "b": pa.array([i / 7 for i in range(rows)], pa.float64())})


def test_a_tree_is_walked_once_before_its_first_evaluation_and_not_again(monkeypatch):
    walks = _counting(monkeypatch, prepare_module, "postorder")
    simplified = _counting(monkeypatch, prepare_module, "canonicalize")
    checked = _counting(monkeypatch, prepare_module, "_where_now")
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


@pytest.mark.parametrize("given", ["bound", "unbound"])
def test_one_walk_visits_each_node_once_before_the_first_kernel(monkeypatch, given):
    batch = _batch()
    expr = tk.parse(TEXT)
    if given == "bound":
        expr = tk.bind(expr, batch.schema)
    binds = _counting(monkeypatch, prepare_module, "bind")
    visits = _Visits(monkeypatch)
    value = tk.evaluate(expr, batch)
    assert visits.before_first_kernel == 1  # the facts, the density, the methods: one walk
    assert len(visits.walks) == 1  # and nothing walks the tree once kernels run
    visited = visits.walks[0]
    distinct = {id(node) for node in postorder(visited[-1])}
    assert len(visited) == len(distinct) > 100  # every node of the tree that runs, once
    assert len(binds) == (1 if given == "unbound" else 0)
    assert value.equals(tk.evaluate(tk.bind(tk.parse(TEXT), batch.schema), batch,
                                    mode="eager"))


def test_the_same_text_parsed_again_is_prepared_once(monkeypatch):
    batch = _batch()
    binds = _counting(monkeypatch, prepare_module, "bind")
    simplified = _counting(monkeypatch, prepare_module, "canonicalize")
    visits = _Visits(monkeypatch)
    first = tk.evaluate(tk.parse(TEXT), batch)
    second = tk.evaluate(tk.parse(TEXT), batch)  # a new tree of the same structure
    assert second.equals(first)
    assert len(binds) == 1 and len(simplified) == 1 and len(visits.walks) == 1
    # what the preparation depends on is in its key: another schema, or no simplification
    other = pa.record_batch({"b": batch["b"], "a": batch["a"]})
    assert tk.evaluate(tk.parse(TEXT), other).equals(first)
    assert tk.evaluate(tk.parse(TEXT), batch, simplify=False).equals(first)
    assert len(binds) == 3 and len(visits.walks) == 3


def test_a_cached_tree_of_other_literals_or_options_is_not_taken_for_another():
    batch = _batch(10)
    assert tk.evaluate(tk.parse("a + 1"), batch).to_pylist() == [i + 1 for i in range(10)]
    assert tk.evaluate(tk.parse("a + 2"), batch).to_pylist() == [i + 2 for i in range(10)]
    assert tk.evaluate(tk.parse("a + 1.5"), batch).to_pylist() == [i + 1.5 for i in range(10)]
    one = tk.evaluate(tk.call("round", [tk.field("b")], pc.RoundOptions(1)), batch)
    two = tk.evaluate(tk.call("round", [tk.field("b")], pc.RoundOptions(2)), batch)
    assert one.equals(pc.round(batch["b"], 1)) and two.equals(pc.round(batch["b"], 2))
