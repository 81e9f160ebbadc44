"""The Explorer over a deep chain grows with the tree, not with its square.

A pass fires a rule at every level of a deep chain; each firing's position is a
shared `TreePath`. Printing or placing them must not copy each whole: that made
the Explorer quadratic (2,000 deep 0.26 s, 8,000 deep 3.7 s). Counted here as the
indices copied out of position tables, at two depths.
"""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.render.labels import parse_path_text, path_text
from toolkit.rewrite import positions as tree_positions

widgets = pytest.importorskip("widgets")


def _chain(depth: int) -> tk.Expression:
    """`add(1, add(1, ... a))`: canonicalize moves the literal right at every level."""
    e = tk.field("a")
    for _ in range(depth):
        e = tk.call("add", [tk.literal(1), e])
    return e


def _indices_copied(depth: int, monkeypatch) -> int:
    with tk.trace() as t:
        tk.evaluate(_chain(depth), pa.table({"a": [1, 2, 3]}))
    assert len(t.passes[0].rewrites) == depth  # a firing at every level
    copied = [0]
    whole = tree_positions.TreePositions.path

    def counting(self, pos):
        out = whole(self, pos)
        copied[0] += len(out) + 1
        return out

    monkeypatch.setattr(tree_positions.TreePositions, "path", counting)
    explorer = widgets.Explorer(t)
    for i in range(len(t.steps)):
        explorer.go(i)
    explorer.go(0)
    assert f"0*{depth - 1} (depth" in explorer.rules.value  # runs, not every step
    monkeypatch.undo()
    return copied[0]


def test_the_explorer_of_a_deep_chain_grows_linearly(monkeypatch):
    small, large = _indices_copied(300, monkeypatch), _indices_copied(1_200, monkeypatch)
    assert large <= 6 * max(small, 100), (small, large)  # 4x deeper: ~4x, not 16x


def test_a_shared_path_prints_as_its_tuple_does_and_reads_back():
    positions = tree_positions.TreePositions()
    path, steps = positions.root, []
    for k in range(3_000):
        i = 1 if k in (0, 1_500) else 0
        path, steps = path.child(i), steps + [i]
        if k in (5, 11, 12, 13, 200, 2_999):
            assert path_text(path) == path_text(tuple(steps))
            assert parse_path_text(path_text(path)) == tuple(steps)
    assert path_text(path) == "1/0*1499/1/0*1499 (depth 3,000)"


def test_the_explorer_keeps_a_bounded_number_of_pictures():
    table = pa.table({"a": [1, 2, 3]})
    with tk.trace() as t:
        for k in range(widgets.explorer.TREE_PICTURES + 10):
            tk.evaluate(tk.field("a") + k, table)
    explorer = widgets.Explorer(t)
    for i in range(len(t.steps)):
        explorer.go(i)
    assert len(explorer._tree_cache) <= widgets.explorer.TREE_PICTURES
    explorer.go(0)  # drawn again when asked again
    assert "add" in explorer.tree.value
