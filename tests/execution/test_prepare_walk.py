"""Before any kernel runs, evaluate prepares a tree once (`prepare.py`): one post-order walk
of the tree as given binds each node, simplifies it (canonicalize then fold constants, node
for node the passes' tree) and computes every fact evaluation needs (fields read, morsel
size, array literals, the density facts of every node, how each case_when runs). Counted
here: the first call walks the tree once, bound or not, thousands deep or hundreds wide,
and runs no pass; a tree evaluated batch after batch on the same schema is neither bound,
walked, simplified nor checked against the schema again, and an unbound tree parsed anew
from the same text is the same tree. The record equals what binding, the two passes and
a walk for the facts give on generated trees."""

from __future__ import annotations

import importlib

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, example, given, settings

import toolkit as tk
from tests.strategies import typed
from toolkit.execution.dense_path import DensityFactsBuilder
from toolkit.execution.forms.case_when import case_when_method
from toolkit.execution.morsel_size import morsel_rows
from toolkit.functions.bind import Binder
from toolkit.model.expression import Call, postorder, preorder
from toolkit.passes.common_conjuncts import taken_out_of_ors
from toolkit.support.bounded_cache import BoundedCache

# the modules, not the functions the package exports under the same names
prepare_module = importlib.import_module("toolkit.execution.prepare")
dense_path = importlib.import_module("toolkit.execution.dense_path")
trampoline = importlib.import_module("toolkit.execution.trampoline")
bind_module = importlib.import_module("toolkit.functions.bind")
rewrite_driver = importlib.import_module("toolkit.rewrite.driver")
model_visit = importlib.import_module("toolkit.model.visit")

TEXT = "case " + " ".join(f"when a < {2 * (i + 1)} then b * {i}" for i in range(20)) + \
    " else 0.0 end"


@pytest.fixture(autouse=True)
def _nothing_prepared(monkeypatch):
    """Each test starts with no tree prepared (another test may have prepared the same)."""
    monkeypatch.setattr(prepare_module, "_PREPARED", BoundedCache(prepare_module.CACHE_SIZE))


def _counting(monkeypatch, owner, name: str) -> list:
    calls = []
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


class _Visits:
    """Every node a walk yields, counted per walk, the sweeps of passes, the nodes bound,
    and what had happened by the first kernel."""

    def __init__(self, monkeypatch):
        self.walks: list[list] = []
        self.before_first_kernel: int | None = None
        for module in (prepare_module, dense_path, bind_module):
            monkeypatch.setattr(module, "postorder", self._walk)
        # a pass sweeps a tree with modify_tree: none may run on the way to the kernels
        self.sweeps = _counting(monkeypatch, rewrite_driver, "modify_tree")
        self.sweeps += _counting(monkeypatch, model_visit, "modify_tree")
        self.bound = _counting(monkeypatch, Binder, "node")
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
    checked = _counting(monkeypatch, prepare_module, "_where_now")
    batch = _batch()
    bound = tk.bind(tk.parse(TEXT), batch.schema)
    visits = _Visits(monkeypatch)
    first = tk.evaluate(bound, batch)
    assert [walk[-1] for walk in visits.walks] == [bound]  # one walk, not one per fact
    assert visits.sweeps == []  # simplified inside that walk: no pass ran
    assert len(checked) == 2  # each distinct field once, though the tree reads them 40 times
    again = pa.record_batch(batch.columns, schema=pa.schema(list(batch.schema)))  # equal schema
    for data in (batch, again, batch):
        assert tk.evaluate(bound, data).equals(first)
        assert tk.evaluate(bound, data, mode="eager").equals(first)
    assert len(visits.walks) == 1 and visits.sweeps == [] and len(checked) == 2


def _assert_one_walk(visits: _Visits, given, bound_given: bool) -> None:
    """One walk before the first kernel and none after; it visited every node of the tree
    as given once; no pass swept it; each node was bound once (none when bound)."""
    assert visits.before_first_kernel == 1
    assert len(visits.walks) == 1
    visited = visits.walks[0]
    assert visited[-1] is given
    distinct = {id(node) for node in postorder(given)}
    assert len(visited) == len(distinct)  # every node of the tree as given, once
    assert visits.sweeps == []
    assert len(visits.bound) == (0 if bound_given else len(distinct))


@pytest.mark.parametrize("given", ["bound", "unbound"])
def test_one_walk_visits_each_node_once_before_the_first_kernel(monkeypatch, given):
    batch = _batch()
    expr = tk.parse(TEXT)
    if given == "bound":
        expr = tk.bind(expr, batch.schema)
    visits = _Visits(monkeypatch)
    value = tk.evaluate(expr, batch)
    _assert_one_walk(visits, expr, given == "bound")
    assert len(visits.walks[0]) > 100
    assert value.equals(tk.evaluate(tk.bind(tk.parse(TEXT), batch.schema), batch,
                                    mode="eager"))


def _deep(depth: int):
    """((b * 2.0 + 1) ... ) with an abs every third level and a literal sum on the way
    that folds: `depth` calls deep, chains in and out of canonical order."""
    expr = tk.field("b")
    for k in range(depth):
        if k % 3 == 0:
            expr = Call("abs", [expr])
        elif k % 3 == 1:
            expr = Call("add", [expr, tk.literal(float(k % 5))])
        else:
            expr = Call("multiply", [tk.literal(1.0), Call("add", [expr, tk.field("a")])])
    return Call("add", [expr, Call("add", [tk.literal(1.0), tk.literal(2.0)])])


def _wide(width: int):
    """A case_when of `width` cases and a coalesce of `width` arguments under one add."""
    case = tk.case_when([(tk.less(tk.field("a"), tk.literal(k)), tk.field("b") * float(k))
                         for k in range(width)], else_=tk.literal(0.0))
    coalesce = Call("coalesce", [tk.field("b") + float(k) for k in range(width)])
    return Call("add", [case, coalesce])


@pytest.mark.parametrize("given", ["bound", "unbound"])
@pytest.mark.parametrize("shape", ["3,000 deep", "300 wide"])
def test_a_deep_or_wide_tree_is_walked_once_on_its_first_call(monkeypatch, given, shape):
    batch = _batch(100)
    expr = _deep(3_000) if shape == "3,000 deep" else _wide(300)
    if given == "bound":
        expr = tk.bind(expr, batch.schema)
    want = tk.evaluate(prepare_module._folded(tk.bind(expr, batch.schema)), batch,
                       simplify=False)
    visits = _Visits(monkeypatch)
    got = tk.evaluate(expr, batch)
    _assert_one_walk(visits, expr, given == "bound")
    assert got.equals(want)


def test_the_same_text_parsed_again_is_prepared_once(monkeypatch):
    batch = _batch()
    visits = _Visits(monkeypatch)
    first = tk.evaluate(tk.parse(TEXT), batch)
    second = tk.evaluate(tk.parse(TEXT), batch)  # a new tree of the same structure
    assert second.equals(first)
    assert len(visits.walks) == 1
    # what the preparation depends on is in its key: another schema, or no simplification
    other = pa.record_batch({"b": batch["b"], "a": batch["a"]})
    assert tk.evaluate(tk.parse(TEXT), other).equals(first)
    assert tk.evaluate(tk.parse(TEXT), batch, simplify=False).equals(first)
    assert len(visits.walks) == 3


def _by_separate_steps(expr, schema):
    """The oracle: bind, canonicalize then fold_constants as passes, the terms every
    branch of an `or` shares taken out (`null or (null and b)` is `null`), then the facts
    of the tree that runs, each by a walk of its own."""
    tree = taken_out_of_ors(prepare_module._folded(tk.bind(expr, schema)))
    density = DensityFactsBuilder()
    methods = {}
    for node in postorder(tree):
        density.visit(node)
        if node.is_call and node.name == "case_when":
            methods[id(node)] = case_when_method(node, density)
    return tree, density.done(), methods


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(typed.expressions(depth=3))
@example(tk.case_when([(tk.or_(tk.literal(pa.scalar(None, pa.bool_())),
                               tk.and_(tk.literal(pa.scalar(None, pa.bool_())), tk.field("b"))),
                        tk.literal(pa.scalar(None, pa.int32())))]))
def test_the_one_walk_prepares_what_the_separate_steps_do(expr):
    prepared = prepare_module.prepare(expr, typed.SCHEMA)
    tree, density, methods = _by_separate_steps(expr, typed.SCHEMA)
    assert prepared.expr.equals(tree), f"{prepared.expr}\n{tree}"
    assert prepared.rows_per_morsel == morsel_rows(tree)
    for got, want in zip(preorder(prepared.expr), preorder(tree), strict=True):
        assert got.type == want.type
        assert prepared.density.of(got) == density.of(want), str(want)
        assert (id(got) in prepared.density.cheap_forms) == (id(want) in density.cheap_forms)
        got_casts = prepared.density.range_casts.get(id(got), ())
        want_casts = density.range_casts.get(id(want), ())
        assert [(c.cast.to_string(), c.low, c.high) for c in got_casts] == \
            [(c.cast.to_string(), c.low, c.high) for c in want_casts]
        if want.is_call and want.name == "case_when":
            assert prepared.case_methods[id(got)] == methods[id(want)]


def test_a_cached_tree_of_other_literals_or_options_is_not_taken_for_another():
    batch = _batch(10)
    assert tk.evaluate(tk.parse("a + 1"), batch).to_pylist() == [i + 1 for i in range(10)]
    assert tk.evaluate(tk.parse("a + 2"), batch).to_pylist() == [i + 2 for i in range(10)]
    assert tk.evaluate(tk.parse("a + 1.5"), batch).to_pylist() == [i + 1.5 for i in range(10)]
    one = tk.evaluate(tk.call("round", [tk.field("b")], pc.RoundOptions(1)), batch)
    two = tk.evaluate(tk.call("round", [tk.field("b")], pc.RoundOptions(2)), batch)
    assert one.equals(pc.round(batch["b"], 1)) and two.equals(pc.round(batch["b"], 2))
