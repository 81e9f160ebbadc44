"""Jupyter display: the renderer loads on first display; SVG plus text, text without dot."""

import pyarrow as pa
import pytest
from render_helpers import needs_dot, svg_texts

import toolkit as tk
from toolkit import late_bound
from toolkit.render import display


@needs_dot
def test_expressions_and_traces_display_as_svg_and_text(changed_pass):
    bundle = (tk.field("a") + 1)._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml")
    assert bundle["text/plain"].startswith("add")
    t = tk.Trace([changed_pass])
    bundle = t._repr_mimebundle_()
    assert "<svg" in bundle["image/svg+xml"] and "canonicalize" in bundle["text/plain"]
    step = late_bound.mimebundle(changed_pass)  # one step of a trace
    assert "⟲ canonicalize/flip-comparison" in svg_texts(step["image/svg+xml"])


def test_without_dot_the_text_tree_shows(monkeypatch):
    monkeypatch.setattr(display, "dot_available", lambda: False)
    bundle = late_bound.mimebundle(tk.field("a") > 1)
    assert bundle == {"text/plain": "greater\n├── a\n└── 1: int64"}


def test_plans_display(monkeypatch):
    from toolkit import plan

    monkeypatch.setattr(display, "dot_available", lambda: False)
    p = plan.scan("t", pa.table({"a": [1]})).filter(tk.field("a") > 0)
    assert late_bound.mimebundle(p)["text/plain"].startswith("Filter: ")


def test_unknown_objects_fall_back_to_repr():
    assert display.mimebundle(42) == {"text/plain": "42"}


def test_an_unloadable_renderer_leaves_text(monkeypatch):
    monkeypatch.delitem(late_bound._provided, "render", raising=False)
    monkeypatch.setitem(late_bound.OPERATIONS, "render", "toolkit.no_such_renderer")
    assert late_bound.mimebundle(tk.field("a") > 1) == {"text/plain": "(a > 1)"}


def test_a_provider_that_provides_nothing_is_named(monkeypatch):
    monkeypatch.delitem(late_bound._provided, "to_sql", raising=False)
    monkeypatch.setitem(late_bound.OPERATIONS, "to_sql", "toolkit.options")
    with pytest.raises(tk.ExprscopeError, match="toolkit.options was imported but did not"):
        (tk.field("a") + 1).to_sql()
