"""evaluate simplifies each expression before any kernel runs, as Acero's project node does."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

import toolkit as tk

TABLE = pa.table({"a": [1, 2, 3], "z": [0, 0, 1], "x": [1.0, None, 3.0]})


def _acero(expr: tk.Expression):
    return ds.dataset(TABLE).to_table(columns={"r": expr.to_pyarrow()}).column("r")


@pytest.mark.parametrize("expr", [
    tk.call("add", [tk.call("divide", [tk.field("a"), tk.field("z")]), tk.literal(None, pa.int64())]),
    tk.and_(tk.literal(False), tk.call("divide", [tk.field("a"), tk.field("z")]) > 1),
    tk.or_(tk.literal(True), tk.call("divide", [tk.field("a"), tk.field("z")]) > 1),
    tk.call("multiply", [tk.literal(None, pa.int64()), tk.call("divide", [tk.field("a"),
                                                                          tk.field("z")])]),
])
def test_what_acero_folds_away_never_runs(expr):
    assert tk.evaluate(expr, TABLE).equals(_acero(expr))
    assert tk.evaluate(expr, TABLE, mode="eager").equals(_acero(expr))
    with pytest.raises(tk.KernelError, match="divide by zero"):
        tk.evaluate(expr, TABLE, mode="eager", simplify=False)


def test_the_trace_shows_what_was_folded_before_any_kernel_ran():
    expr = tk.call("add", [tk.call("divide", [tk.field("a"), tk.field("z")]),
                           tk.literal(None, pa.int64())])
    with tk.trace() as t:
        tk.evaluate(expr, TABLE)
    simplify, evaluation = t.steps
    assert simplify.name == "simplify_before_evaluation" and simplify.changed
    assert any(r.rule.startswith("fold_constants/") for r in simplify.rewrites)
    assert evaluation.expr.equals(simplify.after)  # what ran is what the pass left
    assert [n.label for n in evaluation.nodes] == ["null[int64]"]
    assert "pass simplify_before_evaluation" in tk.to_text(t)


def test_nothing_to_fold_leaves_no_step_and_the_same_answer():
    expr = tk.field("a") * 2 + tk.field("z")
    with tk.trace() as t:
        got = tk.evaluate(expr, TABLE)
    assert len(t.steps) == 1 and got.equals(tk.evaluate(expr, TABLE, simplify=False))
    assert t.steps[0].expr.equals(tk.bind(expr, TABLE.schema))


def test_constant_subtrees_are_computed_once_like_acero():
    expr = tk.field("x") + (tk.literal(1.5) * 2)
    assert tk.evaluate(expr, TABLE).equals(_acero(expr))
    assert pc.sum(tk.evaluate(expr, TABLE)).as_py() == 1.0 + 3 + 3.0 + 3
