"""Deep trees fold past a depth, any subtree opens by its path, and paths read back as typed."""

import re

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import UsageError
from toolkit.render.dot import to_dot
from toolkit.render.labels import parse_path_text, path_text
from widgets import Explorer
from widgets.explorer import OPEN_DEPTH


def _chain(depth: int) -> tk.Expression:
    a = tk.field("a")
    expr = tk.literal(-1)
    for k in range(depth):
        expr = tk.if_else(a != k, expr, k)
    return expr


def _folded_boxes(source: str) -> list[tuple[int, str]]:
    """(nodes folded, path to open) of every folded box in a DOT source."""
    return [(int(n.replace(",", "")), p) for n, p in re.findall(
        r"([\d,]+) nodes folded.*?open: subtree ([^<]+)<", source, re.DOTALL)]


def test_a_chain_folds_past_the_depth_and_each_box_says_what_it_holds_and_its_path():
    expr = _chain(30)  # five nodes per level
    boxes = _folded_boxes(to_dot(expr, depth=4).source)
    # at depth 4 below the root: the deeper if_else and the not_equal beside it fold
    assert sorted(n for n, _ in boxes) == [3, 5 * 26 + 1 - 5]
    deeper = next(p for n, p in boxes if n > 3)
    assert parse_path_text(deeper) == (1, 1, 1, 1, 1)
    # opening it draws that subtree, folded again four levels below it
    opened = to_dot(expr, focus=deeper, depth=4).source
    assert "the subtree at 1/1/1/1/1<" in opened and len(_folded_boxes(opened)) == 2
    # every level: nothing folded
    assert _folded_boxes(to_dot(expr, depth=None).source) == []


def test_a_folded_picture_says_folded_and_a_summarized_one_summarized():
    expr = _chain(30)
    folded = to_dot(expr, depth=4).source
    assert "the rest folded (▸)" in folded and "summarized" not in folded
    cut = to_dot(expr, max_nodes=20, depth=None).source
    assert "deeper levels are summarized" in cut and "folded" not in cut


def test_leaves_at_the_fold_are_drawn_not_folded():
    expr = tk.field("a") + 1
    assert _folded_boxes(to_dot(expr, depth=1).source) == []


def test_a_path_that_is_not_in_the_tree_is_named_with_the_node_it_stops_at():
    with pytest.raises(UsageError, match=r"no subtree at 1/5: the node at 1 \(if_else\) has 3 "
                                         r"arguments, numbered from 0"):
        to_dot(_chain(5), focus="1/5")
    with pytest.raises(UsageError, match="is not a path"):
        to_dot(_chain(5), focus="1/x")
    with pytest.raises(UsageError, match="depth must be a whole number"):
        to_dot(_chain(5), depth=0)


def test_an_evaluation_folds_with_its_row_counts_kept_on_the_open_part():
    table = pa.table({"a": list(range(40))})
    with tk.trace() as t:
        tk.evaluate(_chain(30), table)
    source = to_dot(t.evaluations[0], focus="1*14", depth=3).source
    assert "the subtree at 1*14 (depth 14)" in source and "of 40 rows" in source
    assert len(_folded_boxes(source)) == 2


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 60)), max_size=12))
def test_paths_written_for_people_read_back_to_the_same_path(runs):
    path = tuple(i for i, n in runs for _ in range(n))
    text = path_text(path)
    if "…" in text:  # more than twelve runs: shortened for reading, not for typing
        return
    assert parse_path_text(text) == path


def test_a_deep_evaluation_opens_folded_in_the_explorer_and_a_box_opens_by_its_path():
    table = pa.table({"a": list(range(50))})
    with tk.trace() as t:
        tk.evaluate(_chain(40), table)
    explorer = Explorer(t)
    explorer.go(len(explorer.steps) - 1)
    assert explorer.tree_depth(explorer.index) == 41
    assert f"folded past {OPEN_DEPTH}" in explorer.window_note.value
    assert "nodes folded" in explorer.tree.value
    deeper = next(p for n, p in _folded_boxes(explorer.tree.value.replace("&#160;", " "))
                  if n > 3)
    explorer.open_subtree(deeper)
    assert f"the subtree at {deeper}" in explorer.tree.value
    note = explorer.open_subtree("1/9")
    assert "no subtree at 1/9" in note and "Showing the whole tree" in note
    explorer.open_subtree("", depth=None)
    assert "nodes folded" not in explorer.tree.value and explorer.window_note.value == ""
