"""The report's stepper in a real browser (Debian's headless chromium through Playwright).

The file is opened from disk with every request outside it refused and
counted, so the test also proves the report fetches nothing.
"""

from pathlib import Path

import pyarrow as pa
import pytest
from render_helpers import CHROMIUM
from render_helpers import browser_page as _page

import toolkit as tk
from toolkit.passes import optimize
from toolkit.render import html_report

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"Debian's chromium is not installed at {CHROMIUM}"),
]


def test_previous_next_and_arrow_keys_step_through_the_passes(tmp_path):
    table = pa.table({"a": [0, 1, 2], "b": [1, 2, 3]})
    with tk.trace() as t:
        tk.evaluate(optimize(tk.less(3, tk.field("a") + (tk.literal(1) + 2)), table.schema),
                    table)
    n = len(html_report.pass_groups(t.passes))  # a run of passes that changed nothing is one
    assert n >= 3
    report = tk.write_report(t, tmp_path / "report.html")
    outside: list[str] = []
    with _page() as page:
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            "file://") else (outside.append(route.request.url), route.abort()))
        page.goto(report.resolve().as_uri())
        counter = page.locator("#step-counter")
        visible = page.locator("#passes .step:not([hidden])")

        steps = len(t.steps)  # the counter says what it counts: pass steps, of the trace's
        assert counter.inner_text().startswith(
            f"pass step 1 of {n} (the trace has {steps} steps): 1. pass ")
        assert visible.count() == 1 and visible.get_attribute("data-step") == "0"
        assert page.locator("#step-prev").is_disabled()
        page.click("#step-next")
        assert counter.inner_text().startswith(f"pass step 2 of {n}")
        page.keyboard.press("ArrowRight")
        assert visible.get_attribute("data-step") == "2"
        page.keyboard.press("ArrowLeft")
        page.click("#step-prev")
        assert visible.get_attribute("data-step") == "0"
        for _ in range(n + 2):
            page.keyboard.press("ArrowRight")
        assert counter.inner_text().startswith(f"pass step {n} of {n}")
        assert page.locator("#step-next").is_disabled()
        assert visible.locator("svg").count() == 1
    assert outside == []


def test_wide_evaluations_in_the_report_open_on_their_root_with_their_title(tmp_path):
    """A 12-term `or` and a 250-branch case_when: each figure opens with its root in view,
    its caption's first line on screen, and no text below 9 px."""
    species = pa.table({"species": [f"S{i % 20}" for i in range(2_000)],
                        "x": list(range(2_000))})
    x = tk.field("x")
    with tk.trace() as t:
        tk.evaluate(tk.parse(" or ".join(f"species = 'S{i}'" for i in range(12))), species)
        tk.evaluate(tk.case_when([(x < 8 * (k + 1), x * k) for k in range(250)], else_=x),
                    species)
    report = tk.write_report(t, tmp_path / "wide.html")
    with _page(viewport={"width": 1100, "height": 900}) as page:
        page.goto(report.resolve().as_uri())
        for k in range(2):
            figure = page.locator(".evaluation > figure").nth(k)
            figure.scroll_into_view_if_needed()
            page.wait_for_timeout(100)
            shown = figure.evaluate("""(f) => {
              const svg = f.querySelector('svg'), box = f.getBoundingClientRect();
              const root = svg.querySelector('g#node1').getBoundingClientRect();
              const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
              const sizes = [...svg.querySelectorAll('text')].map(
                t => parseFloat(t.getAttribute('font-size')) * scale);
              const title = svg.querySelector('g.graph > text').getBoundingClientRect();
              return {root: [root.left, root.right], box: [box.left, box.right],
                      title: [title.left, title.right], smallest: Math.min(...sizes)};
            }""")
            (left, right), (box_left, box_right) = shown["root"], shown["box"]
            assert box_left - 1 <= left and right <= box_right + 1, shown
            assert shown["title"][1] > box_left and shown["title"][0] < box_right, shown
            assert shown["smallest"] >= 9 - 0.05, shown
            page.screenshot(path=str(Path(__file__).resolve().parents[2] / "out"
                                     / f"report-wide-evaluation-{k + 1}.png"))


def test_a_scan_report_with_long_statistics_stays_within_the_page(tmp_path):
    """Long string statistics and file names wrap inside their cells: with every file's
    details open, nothing is wider than the window (the statistics column was cut)."""
    import os

    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    names = [f"a-very-long-string-value-{i:05d}-" * 3 for i in range(400)]
    for year in (2021, 2022):
        folder = tmp_path / "data" / f"year={year}"
        os.makedirs(folder)
        pq.write_table(pa.table({"day": [1 + i % 28 for i in range(400)], "name": names}),
                       folder / f"part-with-a-rather-long-file-name-{'0' * 16}.parquet",
                       row_group_size=50)
    scan = tk.explain_scan(ds.dataset(tmp_path / "data", partitioning="hive"),
                           "year = 2022 and day > 20 and name > 'a-very-long-string-value-00100'")
    report = tk.write_report(scan, tmp_path / "scan.html")
    with _page(viewport={"width": 1000, "height": 900}) as page:
        page.goto(report.resolve().as_uri())
        opened = page.evaluate("() => { const all = document.querySelectorAll('details');"
                               " all.forEach(d => d.open = true); return all.length; }")
        page.wait_for_timeout(100)
        widths = page.evaluate("() => [document.documentElement.scrollWidth, "
                               "...[...document.querySelectorAll('table')].map("
                               "t => Math.ceil(t.getBoundingClientRect().right))]")
    assert opened >= 1 and len(widths) >= 3, widths
    assert max(widths) <= 1000, widths


def test_a_long_expression_and_many_form_columns_stay_within_the_report_s_width(tmp_path):
    """A 60-term `and` chain: its text has no space to wrap at (`((((((…`) and its row
    table a column per form. The summary wraps and the table scrolls in a box of its own;
    the page itself was twice the window's width."""
    table = pa.table({"c": [i / 100 for i in range(100)]})
    c = tk.field("c")
    expr = c > 0.001
    for i in range(60):
        expr = tk.and_(expr, c > 0.001 * (i % 7 + 1) / 10)
    with tk.trace() as t:
        tk.evaluate(expr, table)
    report = tk.write_report(t, tmp_path / "chain.html")
    with _page(viewport={"width": 1000, "height": 900}) as page:
        page.goto(report.resolve().as_uri())
        shown = page.evaluate("""() => ({page: document.documentElement.scrollWidth,
            summary: Math.ceil(document.querySelector('#summary dd').getBoundingClientRect().right),
            table: Math.ceil(document.querySelector('table.data').parentElement
                             .getBoundingClientRect().right)})""")
    assert max(shown.values()) <= 1000, shown


def test_a_caption_as_wide_as_the_picture_is_not_cut_at_its_edge(tmp_path):
    """A row's story: its caption (the sentence why) is the widest thing in the picture.
    Graphviz measures text narrower than the browser draws it; the caption, moved flush
    to the picture's right edge to sit over the root, lost its last characters there."""
    table = pa.table({"a": [3, 0, 5], "b": [-203.0, 997.0, 1.0], "name": ["x", "y", "z"]})
    story = tk.explain_row("if(a != 0, b / a, 0.0) > 1 and b > 3 and name != 'beta'", table, 1)
    report = tk.write_report(story, tmp_path / "row.html")
    with _page(viewport={"width": 1400, "height": 1000}) as page:
        page.goto(report.resolve().as_uri())
        cut = page.evaluate("""() => {
          const svg = document.querySelector('svg'), view = svg.viewBox.baseVal;
          const shift = svg.querySelector('g.graph').transform.baseVal.consolidate().matrix.e;
          return [...svg.querySelectorAll('g.graph > text')].map(t => {
            const b = t.getBBox();
            const left = b.x + shift - view.x;
            return [t.textContent, left, view.width - left - b.width];
          }).filter(([, left, right]) => left < 0 || right < 0);
        }""")
    assert cut == [], cut


def test_a_row_journey_s_report_lists_its_stops_within_the_window(tmp_path):
    """A row dropped by a long filter after a wide scan (14 columns of long strings): the
    page lists each operator it passed with the row there, and the one that dropped it
    with why; the rows tables scroll in their own boxes, the page never sideways."""
    from toolkit import plan

    wide = {f"column_with_a_long_name_{i}": [f"a long value <b>{i}</b> " * 4] * 3
            for i in range(14)}
    table = pa.table({"a": [3, 0, 7], "b": [-203.0, 997.0, 8.0], **wide})
    journey = (plan.scan("t", table)
               .filter("if(a != 0, b / a, 0.0) > 1 and b > 3 and column_with_a_long_name_0 "
                       "!= 'none of these values at all, however long it is'")
               .project(["a", "b"])).explain_row("t", 0)
    report = tk.write_report(journey, tmp_path / "journey.html")
    with _page(viewport={"width": 1000, "height": 900}) as page:
        page.goto(report.resolve().as_uri())
        shown = page.evaluate("""() => ({
            page: document.documentElement.scrollWidth,
            stops: [...document.querySelectorAll('li.stop')].map(s => [
              s.querySelector('.stop-head').innerText, Math.ceil(s.getBoundingClientRect().right)]),
            pictures: [...document.querySelectorAll('.picture')].map(
              p => Math.ceil(p.getBoundingClientRect().right)),
            why: document.querySelector('.journey > p.why').innerText})""")
        page.screenshot(path=str(Path(__file__).resolve().parents[2] / "out"
                                 / "report-row-journey.png"), full_page=True)
    heads = [head for head, _ in shown["stops"]]
    assert [h.split()[0] for h in heads] == ["✓", "✗"], heads
    assert heads[0].startswith("✓ TableScan: t") and "dropped here" in heads[1], heads
    assert "is false (with `if_else(" in shown["why"], shown["why"]
    widths = [shown["page"], *(right for _, right in shown["stops"]), *shown["pictures"]]
    assert max(widths) <= 1000, shown
