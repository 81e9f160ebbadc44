"""The report's stepper in a real browser (Debian's headless chromium through Playwright).

The file is opened from disk with every request outside it refused and
counted, so the test also proves the report fetches nothing.
"""

from pathlib import Path

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.passes import optimize
from toolkit.render import html_report

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"Debian's chromium is not installed at {CHROMIUM}"),
]


def test_previous_next_and_arrow_keys_step_through_the_passes(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api")
    table = pa.table({"a": [0, 1, 2], "b": [1, 2, 3]})
    with tk.trace() as t:
        tk.evaluate(optimize(tk.less(3, tk.field("a") + (tk.literal(1) + 2)), table.schema),
                    table)
    n = len(html_report.pass_groups(t.passes))  # a run of passes that changed nothing is one
    assert n >= 3
    report = tk.write_report(t, tmp_path / "report.html")
    outside: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
                "file://") else (outside.append(route.request.url), route.abort()))
            page.goto(report.resolve().as_uri())
            counter = page.locator("#step-counter")
            visible = page.locator("#passes .step:not([hidden])")

            assert counter.inner_text().startswith(f"step 1 of {n}: pass ")
            assert visible.count() == 1 and visible.get_attribute("data-step") == "0"
            assert page.locator("#step-prev").is_disabled()
            page.click("#step-next")
            assert counter.inner_text().startswith(f"step 2 of {n}")
            page.keyboard.press("ArrowRight")
            assert visible.get_attribute("data-step") == "2"
            page.keyboard.press("ArrowLeft")
            page.click("#step-prev")
            assert visible.get_attribute("data-step") == "0"
            for _ in range(n + 2):
                page.keyboard.press("ArrowRight")
            assert counter.inner_text().startswith(f"step {n} of {n}")
            assert page.locator("#step-next").is_disabled()
            assert visible.locator("svg").count() == 1
        finally:
            browser.close()
    assert outside == []
