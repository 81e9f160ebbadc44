"""A tree 1,000 levels deep draws its top levels and folds the rest, by default: drawn
whole to the node budget it was a diagonal staircase 7,000 to 14,000 pt wide and 9,000
to 13,000 pt tall, and a saved SVG opened on a blank screen, its root in the top-right
corner. The picture says how deep the tree is and how to open what it folded."""

import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from render_helpers import CHROMIUM, browser_page, needs_dot

import toolkit as tk
from toolkit.render.wide_nodes import OPEN_DEPTH

LEVELS = 1_000
BOUND = 2_000  # points, either way: the staircase was 7,000 to 14,000
A, C = tk.field("a"), tk.field("c")


def _size(svg: str) -> tuple[float, float]:
    width, height = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(width), float(height)


def _deep_trees() -> dict:
    """The review's three: `a + 1 + …` unevaluated, and `a + c + …` and a nested if_else
    (each inside the `then` of the next) traced over 2,000 rows."""
    rng = np.random.default_rng(3)
    table = pa.table({"a": pa.array(rng.integers(0, 100, 2_000), mask=rng.random(2_000) < 0.2),
                      "c": rng.random(2_000)})
    add, addc, ifs = A, A, tk.if_else(A > 5, A, 0)
    for i in range(LEVELS):
        add, addc = add + 1, addc + C
    for i in range(LEVELS - 1):
        ifs = tk.if_else(A > i % 90, ifs, i)
    with tk.trace() as t:
        tk.evaluate(addc, table)
        tk.evaluate(ifs, table)
    return {"add": add, "addc": t.evaluations[0], "ifs": t.evaluations[1]}


@pytest.fixture(scope="module")
def deep():
    return _deep_trees()


@needs_dot
@pytest.mark.parametrize("name", ["add", "addc", "ifs"])
def test_the_default_picture_of_a_1000_deep_tree_is_bounded_and_says_how_to_open_the_rest(
        deep, name):
    svg = tk.to_svg(deep[name])
    width, height = _size(svg)
    assert width <= BOUND and height <= BOUND, (name, width, height)
    assert re.search(rf"1,00[0-2] levels deep: its top {OPEN_DEPTH} levels drawn", svg)
    boxes = re.findall(r"([\d,]+) nodes folded, ([\d,]+) levels deep.*?open: subtree ([^<]+)<",
                       svg, re.DOTALL)
    assert boxes, name
    # the box's path opens the next levels of the tree, folded again below them
    path = max(boxes, key=lambda box: int(box[0].replace(",", "")))[2]
    opened = tk.to_svg(deep[name], focus=path)
    assert f"the subtree at {path}" in opened and "levels deep: its top" in opened
    assert _size(opened)[0] <= BOUND and _size(opened)[1] <= BOUND


@needs_dot
def test_every_level_is_still_drawn_when_asked(deep):
    source = tk.to_dot(deep["add"], depth=None).source
    assert "levels deep" not in source and "showing 300 of 2,001 nodes" in source


@pytest.mark.browser
@needs_dot
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no chromium at {CHROMIUM}")
def test_a_saved_picture_of_a_deep_tree_opens_on_its_root(deep, tmp_path):
    out = Path(__file__).resolve().parents[2] / "out"
    with browser_page(viewport={"width": 1400, "height": 1000}) as page:
        for name in ("addc", "ifs"):
            saved = tmp_path / f"{name}.svg"
            saved.write_text(tk.to_svg(deep[name]), encoding="utf-8")
            page.goto(saved.resolve().as_uri())
            root = page.evaluate("""() => {
              const r = document.querySelector('g.node').getBoundingClientRect();
              const title = document.querySelector('g.graph > text').getBoundingClientRect();
              return {root: [r.left, r.top, r.right, r.bottom], title: [title.left, title.top]};
            }""")
            page.screenshot(path=str(out / f"deep-tree-{name}.png"))
            left, top, right, bottom = root["root"]
            assert 0 <= left and right <= 1400 and 0 <= top and bottom <= 1000, (name, root)
            assert 0 <= root["title"][0] < 1400 and 0 <= root["title"][1] < 1000, (name, root)
