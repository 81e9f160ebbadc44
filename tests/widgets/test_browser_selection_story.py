"""A row's story in the selection view, in a real browser at real size.

JupyterLab and Debian's headless chromium as in test_browser_explorer: a notebook
evaluates a 12-term `or` filter over 2,000,000 rows (x null on every 20th row) inside
tk.trace() and shows its SelectionView. Chromium clicks a row and goes to a row near the
end; each time the row's story (the picture tk.explain_row draws) opens beside the table,
inside the window. The value column stays in view while the table scrolls sideways, the
`or` columns are named by their terms, and hostile names and values show as text.
Screenshots land in out/browser-row-story-*.png for a person to look at.
"""

import json
from pathlib import Path

import pytest
from test_browser_explorer import (  # noqa: F401 - jupyterlab is a fixture
    OUT,
    TRUNCATED,
    _notebook_running,
    jupyterlab,
    pytestmark,
)

ROWS = 2_000_000
LATE_ROW = ROWS - 17  # x is null there: the 12-term `or` is null

HOSTILE = '"><img src=x onerror=alert(1)>'


def _story_notebook(path: Path) -> Path:
    terms = " or ".join(["x > 98"] + [f"c{i} = {i}" for i in range(1, 12)])
    cells = [
        ("%load_ext widgets\nimport numpy as np\nimport pyarrow as pa\nimport toolkit as tk\n"
         "from widgets import SelectionView\n"
         f"N = {ROWS}\nrng = np.random.default_rng(7)\n"
         "cols = {'x': pa.array(rng.integers(0, 100, N), mask=np.arange(N) % 20 == 3)}\n"
         "for i in range(1, 12):\n    cols[f'c{i}'] = pa.array(rng.integers(0, 1000, N))\n"
         "big = pa.table(cols)\n"
         f"with tk.trace() as t:\n    result = tk.evaluate(tk.parse({terms!r}), big)\n"
         "SelectionView(t.evaluations[-1])"),
        (f"hostile = pa.table({{{HOSTILE!r}: ['<script>alert(1)</script>', None, "
         "'<b>bold</b>']})\n"
         f"with tk.trace() as h:\n    tk.evaluate(tk.coalesce(tk.field({HOSTILE!r}), "
         "'<i>none</i>'), hostile)\nSelectionView(h.evaluations[-1])"),
    ]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                     "outputs": [], "source": c} for c in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


@pytest.fixture
def notebook(tmp_path_factory):
    return _story_notebook(tmp_path_factory.mktemp("nb") / "row-story.ipynb")


def _inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def _shot(page, name: str) -> None:
    OUT.mkdir(exist_ok=True)
    shot = OUT / name
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


def test_a_clicked_row_and_a_row_gone_to_open_their_story_beside_the_table(
        jupyterlab):  # noqa: F811 - the fixture imported above
    from playwright.sync_api import expect

    with _notebook_running(jupyterlab, "row-story.ipynb", 120_000) as page:
        window = {"x": 0, "y": 0, **dict(zip(("width", "height"),
                                             page.viewport_size.values()))}
        view = page.locator(".exprscope-selection").filter(has_text="on 2,000,000 rows").first
        table = view.locator(".exprscope-row-table")
        table.wait_for(state="attached")
        view.locator(".exprscope-node-table").wait_for(state="attached")
        table.scroll_into_view_if_needed()
        # the value column is the second, in view without scrolling sideways
        value_head = view.locator(".exprscope-value-head")
        expect(value_head).to_have_text("value")
        assert _inside(value_head.bounding_box(), window)
        story = view.locator(".exprscope-row-story")
        assert not story.is_visible()  # no story until a row is asked for

        # a click on a cell of row 3 (x is null there)
        view.locator("td.exprscope-row-3").nth(2).click()
        expect(story).to_contain_text("Row 3", timeout=60_000)
        expect(story).to_contain_text("the null comes from column x")
        svg = story.locator("svg").first
        svg.wait_for(state="attached")
        _shot(page, "browser-row-story-click.png")
        box = view.locator(".exprscope-row-story-box").bounding_box()
        scroller = view.locator(".exprscope-rows").locator("xpath=..")  # the table's box
        table_box = scroller.bounding_box()
        assert box["x"] >= table_box["x"] + table_box["width"] - 1  # beside, not below
        assert box["y"] < table_box["y"] + table_box["height"]
        assert box["x"] + box["width"] <= window["width"] + 1  # within the window
        root = svg.locator("g#node1").bounding_box()  # the picture opens on its root
        assert _inside(root, box) and _inside(root, window)
        assert svg.bounding_box()["height"] > 200  # drawn, not scaled to nothing
        expect(view.locator("tr.exprscope-target-row")).to_contain_text("null")

        # "go to row" a row near the end of the 2,000,000
        number = view.locator(".widget-inline-hbox input").first
        number.fill(str(LATE_ROW))
        number.press("Enter")
        view.locator(".exprscope-go-to-row").click()
        expect(story).to_contain_text(f"Row {LATE_ROW:,}", timeout=60_000)
        target = view.locator("tr.exprscope-target-row")
        expect(target).to_contain_text(f"{LATE_ROW:,}")
        story.locator("svg").first.wait_for(state="attached")
        target.scroll_into_view_if_needed()
        assert view.evaluate(TRUNCATED) == []  # no button or label cut
        _shot(page, "browser-row-story-go-to-row.png")

        # the table scrolled to its far right: the `or` columns by term, the value still there
        scroller.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        head = view.locator("th.exprscope-form-head").filter(has_text="or c11 == 11")
        expect(head).to_have_count(1)
        assert "or_kleene at root" in head.get_attribute("title")
        assert _inside(head.bounding_box(), scroller.bounding_box())
        cell = target.locator("td").nth(1)  # the value of the row gone to
        expect(cell).to_have_text("null")
        assert _inside(cell.bounding_box(), scroller.bounding_box())
        assert scroller.evaluate("el => el.scrollLeft") > 0  # it did scroll
        _shot(page, "browser-row-story-scrolled.png")

        # hostile names and values are text, never markup
        hostile = page.locator(".exprscope-selection").filter(has_text="on 3 rows").first
        hostile.locator("td.exprscope-row-0").first.click()
        hostile_story = hostile.locator(".exprscope-row-story")
        expect(hostile_story).to_contain_text("Row 0", timeout=60_000)
        expect(hostile_story).to_contain_text("<script>alert(1)</script>")
        assert hostile.locator("img, script, b:text('bold')").count() == 0
        expect(hostile.locator(".exprscope-row-table")).to_contain_text(HOSTILE)
        hostile.scroll_into_view_if_needed()
        _shot(page, "browser-row-story-hostile.png")
