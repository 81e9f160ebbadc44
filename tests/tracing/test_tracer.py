"""The tracer records what the engine does in the block, in order, and nothing else."""

import pyarrow as pa

import toolkit as tk
from toolkit.observe import EvalEvent, PassEvent, active_observers
from toolkit.passes import optimize


def test_records_passes_then_evaluation_in_order(table):
    with tk.trace() as t:
        optimized = optimize(3 < tk.field("b") + (tk.literal(1) + 1), table.schema)
        tk.evaluate(optimized, table)
    kinds = [type(s) for s in t.steps]
    assert kinds[-1] is EvalEvent and set(kinds[:-1]) == {PassEvent}
    changed = [p.name for p in t.passes if p.changed]
    assert "canonicalize" in changed and "fold_constants" in changed
    assert t.passes[0].before is not None and t.passes[-1].after.equals(optimized)
    assert t.evaluations[0].expr.equals(optimized)
    assert "changed" in t.summary() and "1 evaluation" in t.summary()


def test_nothing_is_recorded_outside_the_block(table):
    with tk.trace() as t:
        tk.evaluate(tk.field("a") + 1, table)
    assert active_observers() == ()
    tk.evaluate(tk.field("a") + 1, table)
    assert len(t.steps) == 1


def test_traced_evaluation_gives_the_untraced_result(table):
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), 0)
    plain = tk.evaluate(expr, table)
    with tk.trace():
        traced = tk.evaluate(expr, table)
    assert traced.equals(plain)
    assert plain.to_pylist() == [0, 2, 1, 0, 1, None]


def test_selection_vectors_are_recorded_per_branch(table):
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), 0)
    with tk.trace() as t:
        tk.evaluate(expr, table)
    branches = {b.branch: b.rows.to_pylist() for b in t.evaluations[0].branches}
    assert branches == {"then": [1, 2, 4], "else": [0, 3]}
    divide = next(n for n in t.evaluations[0].nodes if n.path == (1,))
    assert divide.rows == 3


def test_an_error_is_recorded_with_its_row(full_trace):
    failed = full_trace.evaluations[-1]
    assert failed.mode == "eager" and failed.error.row == 0
    assert "divide by zero" in str(failed.error)


def test_nested_traces_both_record(table):
    with tk.trace() as outer:
        with tk.trace() as inner:
            tk.evaluate(tk.field("a"), table)
        tk.evaluate(tk.field("b"), table)
    assert len(inner.steps) == 1 and len(outer.steps) == 2


def test_trace_is_a_sequence_and_says_what_it_holds(full_trace):
    assert len(full_trace) == len(full_trace.steps)
    assert list(full_trace)[0] is full_trace[0]
    assert "1 failed" in repr(full_trace)


def test_plan_rules_and_invariant_checks_are_recorded():
    from toolkit import plan

    data = pa.table({"a": [1, 2, 3], "b": [4, 5, 6], "c": ["x", "y", "z"]})
    p = plan.scan("t", data).filter(tk.field("a") > 1).project([tk.field("a")], names=["a"])
    with tk.trace() as t:
        plan.optimize(p)
    assert t.plan_rules and any(r.changed for r in t.plan_rules)
    assert t.invariant_checks and all(c.passed for c in t.invariant_checks)

