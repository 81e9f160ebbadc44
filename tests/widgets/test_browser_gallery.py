"""A gallery of hard pictures in a real browser: every step opens with its root in view.

JupyterLab and Debian's headless chromium as in test_browser_explorer: a notebook
of the cases that drew unreadable or empty first views (a 250-branch case_when,
the 12-term `or` through %%explain and evaluated, a 10,000-deep if_else, 5,000,000 rows with a
fifth of the conditions null, a 240-file hive scan, static pictures of a wide step).
For every step of every explorer, and for the rich display of the wide step: the
root's box lies inside the picture's first view (its scroll box and the window) and
no text of the picture is drawn below 9 px. Screenshots of each case land in
out/gallery-*.png for a person to look at.
"""

import json
import re
from pathlib import Path

import pytest
from test_browser_explorer import (  # noqa: F401 - jupyterlab is a fixture
    OUT,
    _notebook_running,
    _steps_agree,
    jupyterlab,
    pytestmark,
)

ROWS = 5_000_000  # the null-conditions case: the size the explorer is used at

# where the root node (graphviz's first node) and the smallest text of a picture are
PICTURE = """(root, where) => {
  const svg = root.querySelector(where[0] + ' svg');
  const box = root.querySelector(where[1]);
  const node = svg && svg.querySelector('g#node1');
  if (!svg || !box || !node) return null;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  let smallest = Infinity;
  for (const text of svg.querySelectorAll('text')) {
    smallest = Math.min(smallest, parseFloat(text.getAttribute('font-size')) * scale);
  }
  const r = node.getBoundingClientRect(), b = box.getBoundingClientRect();
  return {root: [r.left, r.top, r.right, r.bottom], box: [b.left, b.top, b.right, b.bottom],
          smallest: smallest, texts: svg.querySelectorAll('text').length,
          scrolled: [box.scrollLeft, box.scrollWidth, box.clientWidth]};
}"""


def _gallery_notebook(path: Path) -> Path:
    terms = " or ".join(f"species = 'S{i}'" for i in range(12))
    cells = [
        ("%load_ext widgets\nimport tempfile\nimport numpy as np\nimport pyarrow as pa\n"
         "import pyarrow.dataset as ds\nimport pyarrow.parquet as pq\nimport toolkit as tk\n"
         "from IPython.display import SVG\nfrom widgets import Explorer\n"
         "from widgets.scan_view import ScanView\n"
         f"rng = np.random.default_rng(0)\nN = {ROWS}\n"
         "big = pa.table({'x': pa.array(rng.integers(0, 1000, N), mask=rng.random(N) < 0.2),\n"
         "                'y': rng.random(N),\n"
         "                'a': pa.array(rng.integers(-2, 3, N), mask=rng.random(N) < 0.2)})\n"
         "small = pa.table({'species': ['S1', 'S3', 'x'], 'n': [1, 2, 3]})\n"
         "X, Y, A = tk.field('x'), tk.field('y'), tk.field('a')"),
        f"%%explain --data small\n{terms}",
        ("with tk.trace() as wide:\n"
         "    tk.evaluate(tk.or_([X == i for i in range(12)]), big.slice(0, 200_000))\n"
         "    tk.evaluate(tk.case_when([(X < (k + 1) * 4, Y * k) for k in range(250)],\n"
         "                             else_=Y), big.slice(0, 200_000))\nExplorer(wide)"),
        ("deep_expr = tk.literal(-1)\nfor k in range(10_000):\n"
         "    deep_expr = tk.if_else(A != k % 3, deep_expr, k)\n"
         "with tk.trace() as deep:\n"
         "    tk.evaluate(deep_expr, pa.table({'a': [0, 1, 2, None]}))\nExplorer(deep)"),
        ("with tk.trace() as nulls:\n    tk.evaluate(tk.if_else(A > 0, Y * 2, Y), big)\n"
         "    tk.evaluate(tk.case_when([(X < 300, Y), (X < 600, Y * 2)], else_=Y * 3), big)\n"
         "Explorer(nulls)"),
        ("folder = tempfile.mkdtemp()\n"
         "years = np.repeat(np.arange(2005, 2025), 1200)\n"
         "months = np.tile(np.repeat(np.arange(1, 13), 100), 20)\n"
         "flights = pa.table({'year': years, 'month': months,\n"
         "                    'day': rng.integers(1, 29, len(years)),\n"
         "                    'v': rng.random(len(years))})\n"
         "pq.write_to_dataset(flights, folder, partition_cols=['year', 'month'])\n"
         "scan = tk.explain_scan(ds.dataset(folder, format='parquet', partitioning='hive'),\n"
         "                       (ds.field('year') == 2022) & (ds.field('day') <= 2))\n"
         "view = ScanView(scan)\n"
         "view.open_fragment(next(i for i, f in enumerate(scan.fragments) if f.kept))\nview"),
        "SVG(tk.to_svg(wide.evaluations[1]))",
        "wide.evaluations[1]",
        "wide.evaluations[1].expr",
    ]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                     "outputs": [], "source": c} for c in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


@pytest.fixture
def notebook(tmp_path_factory):
    return _gallery_notebook(tmp_path_factory.mktemp("nb") / "gallery.ipynb")


def _root_in_view(page, explorer, where: str, smallest_text: float | None = 9) -> str:
    """The picture's root inside its scroll box and the window; its text at least
    `smallest_text` px tall (None: not checked, as at a zoom a person chose)."""
    tree = explorer.locator(".exprscope-tree")
    tree.locator("svg").first.wait_for(state="attached", timeout=60_000)
    tree.scroll_into_view_if_needed()
    page.wait_for_timeout(150)  # the scroll box settles on its root
    shown = explorer.evaluate(PICTURE, [".exprscope-tree", ".exprscope-tree-svg"])
    assert shown is not None, f"{where}: no picture"
    left, top, right, bottom = shown["root"]
    box_left, box_top, box_right, box_bottom = shown["box"]
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    where = f"{where}: {shown}"
    assert box_left - 1 <= left and right <= box_right + 1, "root outside the box: " + where
    assert box_top - 1 <= top and bottom <= box_bottom + 1, "root outside the box: " + where
    assert 0 <= left and right <= width and 0 <= top and bottom <= height, \
        "root outside the window: " + where
    if smallest_text is not None:
        assert shown["smallest"] >= smallest_text - 0.05, "text too small: " + where
    return where


def _check_every_step(page, explorer, name: str) -> list[str]:
    """Walk the explorer's steps; the root in the first view and text >= 9 px at each.
    Returns what each step's picture measured, for the failure message."""
    from playwright.sync_api import expect

    header = explorer.locator(".exprscope-step-title")
    expect(header).to_contain_text("Step 1 of", timeout=120_000)
    total = int(re.search(r"Step \d+ of (\d+)", header.text_content()).group(1))
    seen = []
    for step in range(1, total + 1):
        if step > 1:
            explorer.locator("button.exprscope-next").click()
            expect(header).to_contain_text(f"Step {step} of", timeout=60_000)
        assert _steps_agree(explorer) == step
        seen.append(_root_in_view(page, explorer, f"{name} step {step}"))
        if step == 1 or step == total:
            page.screenshot(path=str(OUT / f"gallery-{name}-step{step}.png"))
    return seen


def test_every_step_of_the_hard_cases_opens_on_its_root_with_readable_labels(
        jupyterlab):  # noqa: F811 - the fixture imported above
    from playwright.sync_api import expect

    OUT.mkdir(exist_ok=True)
    with _notebook_running(jupyterlab, "gallery.ipynb", 240_000) as page:
        explorers = page.locator(".exprscope-explorer")
        expect(explorers).to_have_count(5, timeout=240_000)  # four cells and the scan's
        names = ["or-explain", "or-and-case-when-250", "if-else-10000-deep", f"nulls-{ROWS}-rows",
                 "scan-240-files"]
        for k, name in enumerate(names):
            explorer = explorers.nth(k)
            explorer.scroll_into_view_if_needed()
            _check_every_step(page, explorer, name)

        # the 12-term `or` evaluation at its natural size and at 50%: the root in view too
        wide = explorers.nth(1)
        wide.locator("button.exprscope-previous").click()
        expect(wide.locator(".exprscope-step-title")).to_contain_text("Step 1 of", timeout=60_000)
        wide.locator(".exprscope-fit input").uncheck()
        _root_in_view(page, wide, "or at 100%")
        wide.locator(".exprscope-zoom select").select_option(label="50%")
        _root_in_view(page, wide, "or at 50%", smallest_text=None)
        page.screenshot(path=str(OUT / "gallery-or-at-50-percent.png"))
        wide.locator(".exprscope-fit input").check()
        wide.locator("button.exprscope-next").click()
        expect(wide.locator(".exprscope-step-title")).to_contain_text("Step 2 of", timeout=60_000)

        # the wide step's folded middle says what it holds and opens by its range
        expect(wide.locator(".exprscope-tree")).to_contain_text("more branches")
        subtree = wide.locator(".exprscope-subtree input")
        subtree.click()
        subtree.fill("5-248")
        subtree.press("Enter")
        expect(wide.locator(".exprscope-tree")).to_contain_text("arguments 5–248 of the node",
                                                                timeout=60_000)
        wide.locator(".exprscope-tree").scroll_into_view_if_needed()
        page.screenshot(path=str(OUT / "gallery-or-and-case-when-250-opened.png"))
        # its selection view counts a few branches by name and folds the rest
        summary = page.locator(".exprscope-selection-summary").filter(
            has_text="more branches").first
        summary.scroll_into_view_if_needed()
        assert summary.inner_text().count("then ") <= 10, summary.inner_text()
        page.screenshot(path=str(OUT / "gallery-or-and-case-when-250-selection.png"))

        # the rich display of the wide step: readable, opened on its root and caption
        rich = page.locator(".jp-OutputArea-output:has(.exprscope-static-picture)").first
        rich.scroll_into_view_if_needed()
        page.wait_for_timeout(150)  # the scroll box settles on its root
        shown = rich.evaluate(PICTURE, [".exprscope-picture", ".exprscope-static-picture"])
        page.screenshot(path=str(OUT / "gallery-rich-display.png"))
        assert shown is not None, "no picture in the rich display"
        assert shown["smallest"] >= 9 - 0.05, f"rich display text too small: {shown}"
        left, top, right, bottom = shown["root"]
        box_left, box_top, box_right, box_bottom = shown["box"]
        assert box_left - 1 <= left and right <= box_right + 1, f"root off view: {shown}"
        assert box_top - 1 <= top and bottom <= box_bottom + 1, f"root off view: {shown}"
        assert 0 <= left and right <= page.viewport_size["width"], f"root off view: {shown}"
        assert "more branches" in rich.inner_text()  # the folded middle is still said

        # the bare SVG: its own natural size, in an output that scrolls to what it cut
        output = page.locator(".jp-RenderedSVG").first  # the output area itself
        output.scroll_into_view_if_needed()
        sizes = output.evaluate("""(o) => { const img = o.querySelector('img');
          return [img.getBoundingClientRect().width, img.naturalWidth,
                  o.scrollWidth, o.clientWidth]; }""")
        page.screenshot(path=str(OUT / "gallery-static-svg.png"))
        assert sizes[0] <= sizes[3] + 1 or sizes[2] > sizes[3], sizes  # scaled, or it scrolls
