"""Shared helpers of the renderer tests (fixtures live in conftest.py)."""

import contextlib
import shutil
import xml.etree.ElementTree as ET

import pytest

import toolkit as tk

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is missing")

HOSTILE = ['<script>alert(1)</script>', 'a"b\'c', "{x|y}<z>", "back\\slash \\N \\G",
           "new\nline", "tab\tand\x1b[31mred", "&amp; &lt;", "\u202eevil", "]] --> <!--"]


def evaluation(table, expr, mode="lazy"):
    """The EvalEvent of one real evaluation (a failing one included)."""
    with tk.trace() as t:
        try:
            tk.evaluate(expr, table, mode=mode)
        except tk.KernelError:
            pass
    return t.evaluations[0]


def svg_texts(svg: str) -> list[str]:
    """Every text the SVG shows, parsed as XML (so the SVG must be well formed)."""
    root = ET.fromstring(svg)
    return [(el.text or "").replace("\xa0", " ") for el in root.iter()
            if el.tag.endswith("text")]


CHROMIUM = "/usr/bin/chromium"
_CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]


@contextlib.contextmanager
def browser_page(**page_options):
    """A fresh page of Debian's headless chromium (through Playwright), closed afterwards."""
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=_CHROMIUM_ARGS)
        try:
            yield browser.new_page(**page_options)
        finally:
            browser.close()
