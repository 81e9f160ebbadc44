"""Pictures of expressions, traces and steps for Jupyter, and text when `dot` is missing.

`toolkit.render` draws (`tk.to_svg` needs graphviz's `dot` program); this module
decides what a notebook gets: SVG plus text when `dot` runs, readable text when
it does not, so a notebook on a machine without graphviz still shows every tree.
It also teaches IPython to display the engine's bare event records (a single
step of a trace), which carry no `_repr_mimebundle_` of their own.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess

import graphviz

import toolkit as tk

__all__ = ["dot_available", "svg_of", "text_of", "mimebundle", "tree_html", "text_html",
           "register_formatters"]

_XML_PROLOG = re.compile(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.S)


def dot_available() -> bool:
    """Whether graphviz's `dot` program is on PATH (looked up each time: PATH can change)."""
    return shutil.which("dot") is not None


def svg_of(obj) -> str | None:
    """The SVG drawing of `obj`, or None when `dot` is missing or fails on it."""
    if not dot_available():
        return None
    try:
        svg = tk.to_svg(obj)
    except (graphviz.ExecutableNotFound, subprocess.CalledProcessError, FileNotFoundError):
        return None  # `dot` vanished or crashed: the text drawing still tells the story
    if isinstance(svg, bytes):
        svg = svg.decode("utf-8")
    return svg


def text_of(obj) -> str:
    """The terminal drawing of `obj` (`tk.to_text`)."""
    return tk.to_text(obj)


def mimebundle(obj) -> dict:
    """`image/svg+xml` and `text/plain` when `dot` runs, `text/plain` alone otherwise."""
    text = text_of(obj)
    svg = svg_of(obj)
    if svg is None:
        return {"text/plain": text}
    return {"image/svg+xml": svg, "text/plain": text}


def text_html(text: str, css_class: str = "exprscope-text") -> str:
    """Text in a <pre>, escaped: labels can hold `<`, `&` and quotes."""
    return f'<pre class="{css_class}" style="margin:0">{html.escape(text)}</pre>'


def tree_html(obj) -> str:
    """HTML for an ipywidgets.HTML: the inline SVG, or the text drawing when `dot` is missing."""
    svg = svg_of(obj)
    if svg is None:
        return text_html(text_of(obj), "exprscope-tree-text")
    return f'<div class="exprscope-tree-svg">{_XML_PROLOG.sub("", svg, count=1)}</div>'


def _event_types() -> tuple:
    from toolkit import observe

    return (observe.PassEvent, observe.EvalEvent, observe.InvariantCheck, observe.PlanRuleEvent)


def register_formatters(ip) -> None:
    """Let IPython display single steps (and a Trace without its own rich display)."""
    formatter = ip.display_formatter.mimebundle_formatter
    for cls in _event_types():
        formatter.for_type(cls, _format_for_ipython)
    trace_cls = getattr(tk, "Trace", None)
    if trace_cls is not None and not hasattr(trace_cls, "_repr_mimebundle_"):
        formatter.for_type(trace_cls, _format_for_ipython)


def _format_for_ipython(obj, include=None, exclude=None):
    return mimebundle(obj)
