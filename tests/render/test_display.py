"""Jupyter display: the renderer loads on first display; SVG plus text, text without dot."""

import re

import pyarrow as pa
import pytest
from render_helpers import needs_dot, svg_texts

import toolkit as tk
from toolkit.render import display
from toolkit.support import late


@needs_dot
def test_expressions_and_traces_display_as_svg_and_text(changed_pass):
    bundle = (tk.field("a") + 1)._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml")
    assert bundle["text/plain"].startswith("add")
    t = tk.Trace([changed_pass])
    bundle = t._repr_mimebundle_()
    assert "<svg" in bundle["image/svg+xml"] and "canonicalize" in bundle["text/plain"]
    step = late.mimebundle(changed_pass)  # one step of a trace
    assert "⟲ canonicalize/flip-comparison" in svg_texts(step["image/svg+xml"])


@needs_dot
def test_a_wide_step_displays_at_the_width_of_the_output_only_while_its_labels_stay_readable():
    """The notebook shows the HTML: the picture fitted to the output, never below the
    scale where its smallest (9pt) text drops under 9 px, in a box that scrolls sideways
    and opens on the root; the bare SVG stays for front ends without HTML."""
    x, y = tk.field("x"), tk.field("y")
    table = pa.table({"x": list(range(1000)), "y": [0.5] * 1000})
    with tk.trace() as t:
        tk.evaluate(tk.case_when([(x < 4 * (k + 1), y * k) for k in range(250)], else_=y), table)
    bundle = late.mimebundle(t.evaluations[0])
    page = bundle["text/html"]
    assert "<?xml" not in page and "<svg" in page and "image/svg+xml" in bundle
    box = re.search(r'<div class="exprscope-static-picture" style="([^"]+)"', page).group(1)
    assert "overflow-x:auto" in box and "container-type:inline-size" in box
    natural = float(re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', page).group(1))
    assert natural > 3000  # wide: fitted to 968 px its labels would be 2 px tall
    floor = float(re.search(r"width:max\(([\d.]+)pt, min\(100%", page).group(1))
    assert floor / natural * 9 * 4 / 3 >= 9  # 9pt labels, 4/3 px per pt
    assert "scroll-initial-target:nearest" in page
    assert "x &lt; 4" in page and "x < 4" not in page  # labels reach the page escaped


def test_without_dot_the_text_tree_shows(monkeypatch):
    monkeypatch.setattr(display, "dot_available", lambda: False)
    bundle = late.mimebundle(tk.field("a") > 1)
    assert bundle == {"text/plain": "greater\n├── a\n└── 1: int64"}


def test_plans_display(monkeypatch):
    from toolkit import plan

    monkeypatch.setattr(display, "dot_available", lambda: False)
    p = plan.scan("t", pa.table({"a": [1]})).filter(tk.field("a") > 0)
    assert late.mimebundle(p)["text/plain"].startswith("Filter: ")


def test_unknown_objects_fall_back_to_repr():
    assert display.mimebundle(42) == {"text/plain": "42"}


def test_an_unloadable_renderer_leaves_text(monkeypatch):
    monkeypatch.delitem(late._provided, "render", raising=False)
    monkeypatch.setitem(late._DECLARED[late.OPERATIONS], "render", "toolkit.no_such_renderer")
    assert late.mimebundle(tk.field("a") > 1) == {"text/plain": "(a > 1)"}


def test_a_provider_that_provides_nothing_is_named(monkeypatch):
    monkeypatch.delitem(late._provided, "to_sql", raising=False)
    monkeypatch.setitem(late._DECLARED[late.OPERATIONS], "to_sql", "toolkit.model.options")
    with pytest.raises(tk.ExprscopeError, match="toolkit.model.options was imported but did not"):
        (tk.field("a") + 1).to_sql()
