"""Real events for the renderer tests: the real passes and evaluator, never hand-made fakes."""

import shutil
import xml.etree.ElementTree as ET

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.passes import canonicalize, fold_constants

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is missing")

HOSTILE = ['<script>alert(1)</script>', 'a"b\'c', "{x|y}<z>", "back\\slash \\N \\G",
           "new\nline", "tab\tand\x1b[31mred", "&amp; &lt;", "\u202eevil", "]] --> <!--"]


@pytest.fixture
def schema():
    return pa.schema([("a", pa.int64()), ("b", pa.int64())])


@pytest.fixture
def changed_pass(schema):
    """canonicalize flipping `3 < a` and reordering `b * 2`: two rules, two changed nodes."""
    expr = tk.and_(tk.less(3, tk.field("a")), tk.field("b") * 2 > 1).bind(schema)
    with tk.trace() as t:
        canonicalize(expr)
    (event,) = t.passes
    assert event.changed and len(event.rewrites) == 2
    return event


@pytest.fixture
def folding_pass(schema):
    """fold_constants turning `add(1, 2)` into 3: one changed node, two removed literals."""
    expr = (tk.field("a") + (tk.literal(1) + tk.literal(2))).bind(schema)
    with tk.trace() as t:
        fold_constants(expr)
    (event,) = t.passes
    return event


def evaluation(table, expr, mode="lazy"):
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
