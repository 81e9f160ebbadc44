"""A pass drawn as a diff: changed, added and removed nodes in their colors, rules named."""

import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.model.expression import postorder
from toolkit.passes import fold_constants, simplify_with_guarantee
from toolkit.render.dot_style import STATUS_STYLE
from toolkit.render.tree_diff import diff_pass

CHANGED = STATUS_STYLE["changed"]["color"]
ADDED = STATUS_STYLE["added"]["color"]
REMOVED = STATUS_STYLE["removed"]["color"]


def _tree_nodes(source: str, status: str) -> list[str]:
    """Nodes of the tree (legend excluded) carrying a diff status."""
    return [line for line in source.splitlines()
            if 'class="kind-' in line and f"diff-{status}" in line]


def test_flip_and_reorder_mark_two_changed_nodes_with_their_rules(changed_pass):
    source = tk.to_dot(changed_pass).source
    changed = _tree_nodes(source, "changed")
    assert len(changed) == 2
    assert all(f'color="{CHANGED}"' in line for line in changed)
    assert any("canonicalize/flip-comparison" in line and "was: less" in line
               for line in changed)
    assert any("canonicalize/reorder-commutative" in line for line in changed)
    assert not _tree_nodes(source, "added") and not _tree_nodes(source, "removed")
    # both rewrites swapped their operands: the four operands are the old nodes, moved
    assert len(_tree_nodes(source, "moved")) == 4
    # the tree after the pass has 9 nodes; the legend: unchanged, changed, moved, added, removed
    assert len(re.findall(r'class="kind-', source)) == 9
    (legend,) = [line for line in source.splitlines() if "class=legend" in line]
    assert [m for m in re.findall(r"COLOR=\"#111827\">([^<]+)<", legend)] == [
        "unchanged", "changed (⟲ rule)", "moved to another position", "added", "removed"]


def test_folding_removes_the_literals_it_consumed(folding_pass):
    source = tk.to_dot(folding_pass).source
    (changed,) = _tree_nodes(source, "changed")
    assert "fold_constants/" in changed and "was: add" in changed and ">3<" in changed
    removed = _tree_nodes(source, "removed")
    assert len(removed) == 2 and all(f'color="{REMOVED}"' in line for line in removed)
    assert len(re.findall(r"style=dashed", source)) >= 2  # ghosts hang on dashed edges


def test_a_guarantee_that_drops_a_conjunct(schema):
    expr = tk.and_(tk.field("a") == 1, tk.field("b") > 2).bind(schema)
    with tk.trace() as t:
        out = simplify_with_guarantee(expr, tk.field("a") == 1)
    assert out.to_string() == "(b > 2)"
    diff = diff_pass(t.passes[0])
    # `b > 2` is the very node that stood under the `and`: kept, the `and` removed above it
    assert diff.after is expr.args[1]
    assert diff.status_of(diff.after) == "kept"
    assert [n.name for n in diff.removed_above_of(diff.after)] == ["and_kleene"]
    assert [g.to_string() for _, g in diff.removed] == ["(a == 1)"]


def test_an_unchanged_pass_has_no_colors_and_no_legend(changed_pass):
    with tk.trace() as t:
        from toolkit.passes import canonicalize

        canonicalize(changed_pass.after)
    (event,) = t.passes
    assert not event.changed and event.after is event.before
    source = tk.to_dot(event).source
    assert "diff-" not in source and "legend" not in source and "no change" in source


def test_added_nodes_are_green(schema):
    before = tk.field("a").bind(schema)
    from toolkit.observe import PassEvent

    after = tk.if_else(tk.field("a") > 0, tk.field("a"), 0).bind(schema)
    # a real pass never grows a tree this way; the diff engine still must say "added"
    event = PassEvent("hand", before, after, True, [])
    source = tk.to_dot(event).source
    added = _tree_nodes(source, "added")
    assert len(added) == 3 and all(f'color="{ADDED}"' in line for line in added)
    assert len(_tree_nodes(source, "changed")) == 1  # the root took a's place


@pytest.mark.slow
def test_a_ten_thousand_deep_pass_renders(tmp_path):
    import pyarrow as pa

    from toolkit.passes import fold_constants

    expr = tk.field("a") * (tk.literal(1) + 2)
    for _ in range(10_000):
        expr = expr + 1
    with tk.trace() as t:
        fold_constants(expr.bind(pa.schema([("a", pa.int64())])))
    (event,) = t.passes
    diff = diff_pass(event)
    assert diff.count("changed") == 1 and len(diff.removed) == 2
    text = tk.to_text(event, color=False, width=200, depth=None)
    assert "~ 3: int64 [fold_constants/evaluate-literals] (was add_checked)" in text
    assert "levels deep: its top 8 levels printed" in tk.to_text(event, color=False)
    # the change itself is deep below: every level drawn, the node budget cuts it
    assert "showing 300 of" in tk.to_dot(event, depth=None).source
    html = tk.write_report(t, tmp_path / "deep.html").read_text(encoding="utf-8")
    assert html.count('<div class="step"') == 1 and "…" in html


def _changed_passes(expr, schema):
    with tk.trace() as t:
        tk.optimize(tk.parse(expr), schema)
    return [p for p in t.passes if p.changed]


def test_a_removed_double_negation_is_drawn_above_its_kept_child():
    schema = pa.schema([("a", pa.int64()), ("b", pa.int64())])
    (event,) = _changed_passes("not (not (a = 1)) and b > 2", schema)
    diff = diff_pass(event)
    kept = diff.after.args[0]
    assert kept.name == "equal" and kept is event.before.args[0].args[0].args[0]
    assert diff.status_of(kept) == "kept"
    assert [n.name for n in diff.removed_above_of(kept)] == ["invert", "invert"]
    assert diff.was_of(kept) is None and not diff.removed
    text = tk.to_text(event, color=False)
    assert "equal: bool [identities/double-negation] (removed above it: invert ▸ invert)" in text
    assert "was: invert" not in text and "- removed" not in text
    source = tk.to_dot(event).source
    assert "removed above" in source and "invert ▸ invert" in source
    assert not _tree_nodes(source, "changed")


def test_folding_inside_a_rewritten_call_names_what_stood_in_the_tree_before():
    schema = pa.schema([("a", pa.int64())])
    fold = next(p for p in _changed_passes("a + (1 + 2) * 3", schema)
                if p.name == "fold_constants")
    diff = diff_pass(fold)
    (nine,) = [n for n in postorder(diff.after) if diff.status_of(n) == "changed"]
    assert nine.value.as_py() == 9
    # the multiply the pass was given, not the rebuilt copy the second rule saw
    assert any(diff.was_of(nine) is n for n in postorder(fold.before))
    assert diff.was_of(nine).to_string() == "multiply(3, add(1, 2))"
    assert sorted(g.to_string() for g in diff.removed_under(nine)) == ["3", "add(1, 2)"]
    assert diff.rule_counts == {"fold_constants/evaluate-literals": 2}


def test_the_caption_lists_each_rule_once_with_its_count():
    schema = pa.schema([("a", pa.int64())])
    expr = tk.field("a")
    for k in range(60):
        expr = expr + (tk.literal(k) + 1)
    with tk.trace() as t:
        fold_constants(expr.bind(schema))
    (event,) = t.passes
    source = tk.to_dot(event).source
    assert source.count("fold_constants/evaluate-literals ×60") == 1
    assert "changed again later" not in source
    text = tk.to_text(event, color=False)
    assert "20 more rewrites; every rule that fired: fold_constants/evaluate-literals ×60" in text
    assert text.count("⟲ fold_constants") == 40


@given(st.lists(st.sampled_from(["not (not ({}))", "({}) and true", "({}) or false",
                                 "({}) + 0", "0 + ({})", "({}) * 1"]), min_size=1, max_size=6))
@settings(max_examples=60, deadline=None)
def test_identity_rewrites_keep_the_inner_node_and_remove_only_wrappers(wrappers):
    """Wrapping `a > 1` (or `b`) in identities: the node the pass returns is the old one."""
    schema = pa.schema([("a", pa.int64()), ("b", pa.int64())])
    text = "b"
    boolean = wrappers[0] not in ("({}) + 0", "0 + ({})", "({}) * 1")
    text = "a > 1" if boolean else "b"
    for w in wrappers:
        is_bool = w in ("not (not ({}))", "({}) and true", "({}) or false")
        if is_bool != boolean:
            continue
        text = w.format(text)
    expr = tk.parse(text).bind(schema)
    with tk.trace() as t:
        out = tk.optimize(expr)
    inner = [n for n in postorder(expr) if n.to_string() in ("(a > 1)", "b")]
    if out.to_string() not in ("(a > 1)", "b") or out is expr:
        return
    assert any(out is n for n in inner)  # the pass returned the very node, not a copy
    for event in (p for p in t.passes if p.changed):
        diff = diff_pass(event)
        old = {id(n) for n in postorder(event.before)}
        for node in postorder(diff.after):
            if id(node) in old:  # an old node is never drawn as new or as replaced
                assert diff.status_of(node) in ("same", "kept", "moved")
