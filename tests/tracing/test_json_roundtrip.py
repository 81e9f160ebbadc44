"""Traces are data: JSON out and back gives the same steps, drawn the same."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies.untyped import DEFAULT_SCHEMA, expressions
from toolkit.observe import BranchSelection
from toolkit.rewrite.positions import TreePositions
from toolkit.tracing.json_expressions import expression_from_doc, expression_to_doc
from toolkit.tracing.json_steps import _paths_from_table, _position_table
from toolkit.tracing.json_values import rows_from_json, rows_to_json


def _round_trip(expr):
    return expression_from_doc(json.loads(json.dumps(expression_to_doc(expr))))


@given(expressions())
def test_random_expressions_round_trip(expr):
    back = _round_trip(expr)
    assert back.equals(expr)
    assert back.to_string() == expr.to_string()


@given(st.text(min_size=1, max_size=30))
def test_any_field_name_round_trips(name):
    expr = tk.field(name) + tk.field("x", name)
    assert _round_trip(expr).equals(expr)


@pytest.mark.parametrize("value", [
    pa.scalar(1.5, pa.float32()), pa.scalar(float("nan")), pa.scalar(None, pa.int16()),
    pa.scalar("12.345", pa.string()).cast(pa.decimal128(10, 3)),
    pa.scalar(1_700_000_000_000_000, pa.timestamp("us", tz="Europe/Paris")),
    pa.scalar({"x": 1, "y": "z"}), pa.scalar([1, None, 3], pa.list_(pa.int8())),
    pa.scalar(b"\x00\xff", pa.binary()),
])
def test_literals_keep_value_and_type(value):
    back = _round_trip(tk.literal(value))
    assert back.type == value.type and back.equals(tk.literal(value))


def test_options_round_trip():
    expr = tk.field("a").isin([1, 2, None]).cast("int8", safe=False)
    back = _round_trip(expr)
    assert back.equals(expr)
    assert isinstance(back.options, pc.CastOptions) and back.options == expr.options
    assert back.args[0].options == expr.args[0].options


def test_bound_expressions_keep_types_and_kernels():
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), 0).bind(DEFAULT_SCHEMA)
    back = _round_trip(expr)
    assert back.is_bound and back.type == expr.type
    assert back.equals(expr)  # kernels compare by identity: found again by dispatch
    field = back.args[1].args[0]
    assert field.path == expr.args[1].args[0].path and field.type == pa.float64()


def test_ten_thousand_deep_expression_round_trips():
    expr = tk.field("a")
    for _ in range(10_000):
        expr = expr + 1
    text = json.dumps(expression_to_doc(expr))
    assert _round_trip(expr).equals(expr) and len(text) < 2_000_000


@given(st.integers(0, 300).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(0, max(0, n - 1)), max_size=n))))
def test_selections_round_trip(case):
    total, rows = case
    if total == 0:
        rows = []
    for chosen in (sorted(set(rows)), rows):  # increasing (bitmap) and any order (list)
        back, count = rows_from_json(json.loads(json.dumps(
            rows_to_json(pa.array(chosen, pa.int64()), total))), total)
        selection = BranchSelection((), "then", 1, back, total, count=count)
        assert selection.rows.to_pylist() == list(chosen) and count == len(chosen)


def test_a_million_row_selection_is_small():
    rows = pa.array(np.arange(0, 1_000_000, 3, dtype=np.int64))
    assert len(json.dumps(rows_to_json(rows, 1_000_000))) < 50_000


def test_a_whole_trace_round_trips_and_draws_the_same(full_trace):
    back = tk.Trace.from_json(full_trace.to_json())
    assert [type(s) for s in back.steps] == [type(s) for s in full_trace.steps]
    assert tk.to_text(back, color=False) == tk.to_text(full_trace, color=False)
    assert tk.to_dot(back).source == tk.to_dot(full_trace).source
    failed = back.evaluations[-1]
    # the error is kept as plain facts, live and loaded alike
    assert failed.error == full_trace.evaluations[-1].error
    assert failed.error.kind == "KernelError" and failed.error.row == 0
    assert failed.data.equals(full_trace.evaluations[-1].data)
    ok = back.evaluations[-2]
    assert ok.result.equals(full_trace.evaluations[-2].result)
    for a, b in zip(back.passes, full_trace.passes):
        assert a.after.equals(b.after) and (a.after is a.before) == (b.after is b.before)
        assert [(r.rule, r.reason, r.path) for r in a.rewrites] == \
            [(r.rule, r.reason, r.path) for r in b.rewrites]


def test_plan_steps_round_trip():
    from toolkit import plan

    data = pa.table({"a": [1, 2, 3], "b": [4, 5, 6], "c": ["x", "y", "z"]})
    p = plan.scan("t", data).filter(tk.field("a") > 1).project([tk.field("a")], names=["a"])
    with tk.trace() as t:
        plan.optimize(p)
    back = tk.Trace.from_json(t.to_json())
    assert tk.to_text(back, color=False) == tk.to_text(t, color=False)
    assert [c.passed for c in back.invariant_checks] == [c.passed for c in t.invariant_checks]


@pytest.mark.parametrize("text, message", [
    ("not json", "must be JSON"),
    ('{"steps": []}', "not an exprscope trace"),
    ('{"format": "exprscope-trace", "version": 99, "steps": []}', "newer exprscope"),
])
def test_bad_input_says_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        tk.Trace.from_json(text)


@given(st.lists(st.lists(st.integers(0, 3), max_size=12).map(tuple), max_size=40))
def test_firing_places_written_as_a_positions_table_read_back_as_written(paths):
    rows, at = _position_table(paths)
    back = _paths_from_table(rows, TreePositions())
    assert [tuple(back[k]) for k in at] == paths
    assert len(rows) <= sum(len(p) for p in paths)
