"""The one rewrite core: a rule answers a node, apply_rule walks, places and records."""

import dataclasses

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit.errors import RuleError
from toolkit.model.visit import EXPRESSION_SHAPE, node_at
from toolkit.plan.optimizer import run_rule
from toolkit.plan.rules import MergeFilters, PushDownFilter
from toolkit.plan.tree import PLAN_SHAPE
from toolkit.rewrite import RewriteLog, RuleApplied, Transformed, apply_rule
from toolkit.tracing import Trace

SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.int64())])


def _deep_sum(depth: int):
    expr = tk.field("a")
    for _ in range(depth):
        expr = expr + tk.field("b")
    return expr.bind(SCHEMA)


def _rename_fields_to_literals(node):
    if node.is_field and node.ref.name == "a":
        return Transformed.fired(tk.literal(0).bind(SCHEMA), "test/a-is-0", "a is 0 here")
    return None


@pytest.mark.parametrize("order", ["pre", "post"])
def test_a_rule_deep_in_a_ten_thousand_deep_tree_is_placed_by_path(order):
    expr = _deep_sum(10_000)
    log = RewriteLog(EXPRESSION_SHAPE)

    def rule(node):  # post only sees calls: fire on the innermost add's left operand
        if order == "post" and node.is_call and node.args[0].is_field:
            return Transformed.fired(node.with_args([tk.literal(0).bind(SCHEMA), node.args[1]]),
                                     "test/a-is-0", "a is 0 here")
        return _rename_fields_to_literals(node) if order == "pre" else None

    out = apply_rule(expr, rule, order, log)
    (applied,) = log.resolve(out)
    expected_path = (0,) * (10_000 if order == "pre" else 9_999)
    assert applied.path == expected_path
    assert node_at(out, applied.path) is applied.after
    assert applied.rule == "test/a-is-0" and applied.reason == "a is 0 here"


def test_nothing_fired_is_the_very_same_tree_and_no_record():
    expr = _deep_sum(50)
    log = RewriteLog(EXPRESSION_SHAPE)
    assert apply_rule(expr, lambda node: None, "post", log) is expr
    assert not log.changed and log.resolve(expr) == []


def test_a_rule_answering_with_something_else_is_refused_by_name():
    def sloppy(node):
        return node

    with pytest.raises(RuleError, match="rule sloppy returned a Call; a rule returns Transformed"):
        apply_rule(_deep_sum(3), sloppy, "post", RewriteLog(EXPRESSION_SHAPE))
    with pytest.raises(RuleError, match="order 'pre' or 'post'"):
        apply_rule(_deep_sum(3), sloppy, "up", RewriteLog(EXPRESSION_SHAPE))


def test_rule_applied_is_plain_immutable_data():
    log = RewriteLog(EXPRESSION_SHAPE)
    out = apply_rule(_deep_sum(2), _rename_fields_to_literals, "pre", log)
    (applied,) = log.resolve(out)
    assert isinstance(applied, RuleApplied)
    with pytest.raises(dataclasses.FrozenInstanceError):
        applied.reason = "edited"
    assert dataclasses.asdict(applied)["path"] == (0, 0)


def test_chained_firings_at_one_place_are_each_recorded_oldest_first():
    first = Transformed.fired("x1", "r/one", "first")
    both = first.then(Transformed.fired("x2", "r/two", "second"))
    assert both.node == "x2" and [f.rule for f in both.firings] == ["r/one", "r/two"]
    assert both.firings[1].before == "x1"
    assert first.then(None) is first


def _table():
    return pa.table({"a": [1, 2, 3], "b": [4, 5, 6]})


def test_five_thousand_filters_merge_in_one_firing_at_the_root():
    p = plan.scan("t", _table())
    for k in range(5_000):
        p = p.filter(tk.field("a") > k)
    after, applied = run_rule(MergeFilters(), p, None)
    (fired,) = applied
    assert fired.path == () and "merged 5000 filters" in fired.reason
    assert type(after).__name__ == "Filter" and type(after.input).__name__ == "TableScan"


def test_a_plan_rule_names_the_node_it_changed_by_path_and_keeps_it_through_json():
    p = plan.scan("t", _table()).project(["a", "b"]).sort(["a"]).filter(tk.field("a") > 1)
    with tk.trace() as t:
        plan.optimize(p, rules=[PushDownFilter()], max_rounds=1)
    event, bound = t.plan_rules  # the one round changed the plan: the bound says so
    assert bound.rule == plan.ROUND_LIMIT and not bound.changed
    assert event.changed and [a.rule for a in event.applied] == ["push_down_filter"] * 2
    assert [a.path for a in event.applied] == [(), (0,)]
    assert "below a sort" in event.applied[0].reason
    assert all(a.after is node_at_plan(event.after, a.path) for a in event.applied)
    back = Trace.from_json(t.to_json())
    loaded, _ = back.plan_rules
    assert [(a.rule, a.reason, a.path) for a in loaded.applied] == \
        [(a.rule, a.reason, a.path) for a in event.applied]
    assert loaded.reason == event.reason
    text = tk.to_text(loaded, color=False)
    assert "⟲ push_down_filter at root (plan after): pushed (t.a > 1) below a sort" in text


def node_at_plan(root, path):
    for i in path:
        root = PLAN_SHAPE.children(root)[i]
    return root
