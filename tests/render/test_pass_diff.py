"""A pass drawn as a diff: changed, added and removed nodes in their colors, rules named."""

import re

import pytest

import toolkit as tk
from toolkit.passes import simplify_with_guarantee
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
    # the tree after the pass has 9 nodes; the legend adds 4 samples
    assert len(re.findall(r'class="kind-', source)) == 9
    assert source.count('class=legend') == 4


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
    assert diff.status_of(diff.after) == "changed"
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
    text = tk.to_text(event, color=False)
    assert "~ 3: int64 [fold_constants/evaluate-literals] (was add_checked)" in text
    assert "showing 300 of" in tk.to_dot(event).source  # the change itself is deep below
    html = tk.write_report(t, tmp_path / "deep.html").read_text(encoding="utf-8")
    assert html.count('<div class="step"') == 1 and "…" in html
