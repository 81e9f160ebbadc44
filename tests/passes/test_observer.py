"""What the observer sees: one PassEvent per pass, each rule that fired, on the right node."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import observe
from toolkit.model.visit import node_at
from toolkit.render.html_report import report_html

SCHEMA = pa.schema([pa.field("a", pa.int32()), pa.field("b", pa.bool_()),
                    pa.field("r", pa.int32(), nullable=False)])
F = tk.field


def i32(n):
    return tk.literal(pa.scalar(n, pa.int32()))


class Recorder(observe.Observer):
    def __init__(self):
        self.events = []

    def on_pass(self, event):
        self.events.append(event)


def run(pass_fn, expr, *args):
    recorder = Recorder()
    out = pass_fn(tk.bind(expr, SCHEMA), *args, observer=recorder)
    assert len(recorder.events) == 1
    return out, recorder.events[0]


def test_flip_is_reported_at_the_comparison_inside_the_tree():
    out, event = run(tk.canonicalize, tk.and_(F("b"), tk.less(i32(1), F("a"))))
    assert event.name == "canonicalize" and event.changed and event.after is out
    [rewrite] = event.rewrites
    assert rewrite.rule == "canonicalize/flip-comparison"
    assert rewrite.reason == "literal moved to the right, less became greater"
    assert rewrite.path == (1,)
    assert node_at(event.before, rewrite.path) is rewrite.before
    assert node_at(out, rewrite.path).equals(rewrite.after)
    assert str(rewrite.before) == "(1 < a)" and str(rewrite.after) == "(a > 1)"


def test_reorder_is_reported_at_the_chain_and_a_nested_flip_below_it():
    out, event = run(tk.canonicalize, tk.is_valid(tk.and_(tk.less(i32(1), F("a")), tk.literal(True))))
    rules = {r.rule: r.path for r in event.rewrites}
    assert rules["canonicalize/reorder-commutative"] == (0,)
    assert rules["canonicalize/flip-comparison"] == (0, 0)  # where (1 < a) was given
    assert str(node_at(event.before, (0, 0))) == "(1 < a)"
    assert str(node_at(out, (0, 1))) == "(a > 1)"


def test_nested_folds_name_each_node_where_the_pass_was_given_it():
    out, event = run(tk.fold_constants, tk.equal(F("a"), (i32(2) * i32(3)) + i32(1)))
    assert [r.rule for r in event.rewrites] == ["fold_constants/evaluate-literals"] * 2
    assert [r.path for r in event.rewrites] == [(1, 0), (1,)]
    assert str(node_at(event.before, (1, 0))) == "multiply_checked(2, 3)"
    assert str(out) == "(a == 7)"
    assert "evaluated to 7" in event.rewrites[1].reason


def test_a_rule_on_a_rebuilt_node_names_the_position_it_had():
    # true and (a == 2 * 3): the inner fold happens at 1/1, then and-true on the rebuilt root
    out, event = run(tk.fold_constants, tk.and_(tk.literal(True), tk.equal(F("a"), i32(2) * i32(3))))
    by_rule = {r.rule: r.path for r in event.rewrites}
    assert by_rule == {"fold_constants/evaluate-literals": (1, 1), "fold_constants/and-true": ()}
    assert str(out) == "(a == 6)"


def test_passes_inside_simplify_with_guarantee_report_through_it():
    out, event = run(tk.simplify_with_guarantee, tk.and_(tk.greater(F("a"), i32(5)), F("b")),
                     tk.equal(F("a"), i32(7)))
    assert event.name == "simplify_with_guarantee"
    rules = [r.rule for r in event.rewrites]
    assert rules == ["replace_fields/known-value", "fold_constants/evaluate-literals",
                     "fold_constants/and-true"]
    assert str(out) == "b"
    # the field where it was given, the comparison the literal made, the root
    assert [r.path for r in event.rewrites] == [(0, 0), (0,), ()]


def test_inequality_rewrite_names_the_guarantee():
    out, event = run(tk.simplify_with_guarantee, tk.and_(F("b"), tk.less(F("a"), i32(3))),
                     tk.greater(F("a"), i32(5)))
    assert [r.rule for r in event.rewrites] == [
        "simplify/inequality-false", "canonicalize/reorder-commutative", "fold_constants/and-false"]
    first = event.rewrites[0]
    assert first.reason == "the guarantee a > 5 makes (a < 3) always false"
    assert [r.path for r in event.rewrites] == [(1,), (), ()] and str(out) == "false"


def test_optimize_calls_a_plain_function_observer_after_each_pass():
    calls = []
    out = tk.optimize(tk.and_(tk.is_null(F("r")), F("b")), SCHEMA,
                      observer=lambda name, before, after, changed, rewrites:
                      calls.append((name, changed, [r.rule for r in rewrites])))
    assert str(out) == "false"
    assert calls[:3] == [
        ("canonicalize", False, []),
        ("fold_constants", False, []),
        ("simplify_identities", True, ["identities/non-nullable-field"]),
    ]
    assert ("fold_constants", True, ["fold_constants/and-false"]) in calls
    assert all(not changed for _, changed, _ in calls[-3:])  # the last round changed nothing


def test_observing_block_sees_passes_without_an_explicit_observer():
    recorder = Recorder()
    with observe.observing(recorder):
        tk.canonicalize(tk.bind(tk.less(i32(1), F("a")), SCHEMA))
    assert [e.name for e in recorder.events] == ["canonicalize"]
    assert recorder.events[0].elapsed >= 0


def test_no_observer_means_no_event_and_the_same_result():
    expr = tk.bind(tk.less(i32(1), F("a")), SCHEMA)
    assert tk.canonicalize(expr).equals(run(tk.canonicalize, tk.less(i32(1), F("a")))[0])


@pytest.mark.parametrize("depth", [3_000])
def test_rewrites_in_a_deep_tree_have_full_paths(depth):
    """Deeper than Python's recursion limit; every rewrite carries a full path tuple, so
    recording n rewrites at depth d costs O(n * d) (10,000 x 10,000 is left to benchmarks)."""
    expr = F("a")
    for _ in range(depth):
        expr = expr + (i32(1) * i32(1))
    _, event = run(tk.fold_constants, expr)
    assert len(event.rewrites) == depth
    deepest = max(event.rewrites, key=lambda r: len(r.path))
    assert len(deepest.path) == depth
    assert str(node_at(event.before, deepest.path)) == "multiply_checked(1, 1)"


def test_every_printer_names_the_node_each_rule_changed_as_subtree_at_reads_it():
    schema = pa.schema([("year", pa.int64()), ("day", pa.int64())])
    expr = tk.bind(tk.parse("year = 2022 and day <= 2"), schema)
    with tk.trace() as t:
        tk.simplify_with_guarantee(expr, tk.bind(tk.parse("year = 2022"), schema))
    (event,) = t.steps
    assert [(r.rule, r.path) for r in event.rewrites] == [
        ("replace_fields/known-value", (0, 0)), ("fold_constants/evaluate-literals", (0,)),
        ("fold_constants/and-true", ())]
    assert str(node_at(event.before, (0, 0))) == "year"
    text = tk.to_text(t, color=False)
    assert "known-value at 0/0:" in text and "evaluate-literals at 0:" in text
    assert "and-true at root:" in text
    html = report_html(t)
    assert "at 0/0" in html and "at 0.0" not in html
