"""Pictures of expressions, traces and single steps in Jupyter, text when `dot` is missing.

`toolkit.render` draws and provides itself to `toolkit.late_bound`: its
bundle holds `image/svg+xml` when graphviz's `dot` runs and only `text/plain`
when it does not. This module puts those bundles where a notebook needs them:
in IPython's display of the engine's bare event records (a single step of a
trace has no `_repr_mimebundle_` of its own) and inside the explorer's HTML
widgets, where the SVG is inlined and the text fallback goes in a <pre>.
"""

from __future__ import annotations

import html
import re

import toolkit as tk  # noqa: F401 - importing toolkit registers the renderer
from toolkit import late_bound, observe
from toolkit.render.svg import DotNotFound, dot_available, to_svg
from toolkit.visible_text import visible_lines

__all__ = ["mimebundle", "register_formatters", "text_html", "tree_html"]

_XML_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_EVENT_TYPES = (observe.PassEvent, observe.EvalEvent, observe.InvariantCheck,
                observe.PlanRuleEvent)


def mimebundle(obj) -> dict:
    """The renderer's bundle: SVG plus text, or text alone when `dot` is missing."""
    return late_bound.mimebundle(obj)


_SVG_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


FIT_HEIGHT = "78vh"  # a fitted picture is at most this tall: whole on screen below its controls
MIN_FIT_SCALE = 0.5  # ... unless that would shrink its 11pt labels below about 7 px


def _fitted(svg: str) -> str:
    """The SVG scaled to be seen whole: no wider than the cell nor taller than the window,
    never above its natural size nor below half of it (labels stay readable; the box
    around it scrolls then)."""
    def scale(m):
        width, height = float(m.group(1)), max(1.0, float(m.group(2)))
        fitted = f"min(100%, {width:.0f}pt, calc({FIT_HEIGHT} * {width / height:.4f}))"
        return (f'<svg style="width:max({width * MIN_FIT_SCALE:.0f}pt, {fitted});height:auto" '
                f'data-natural-width="{width:.0f}pt"')
    return _SVG_SIZE.sub(scale, svg, count=1)


def _zoomed(svg: str, zoom: float) -> str:
    """The SVG at `zoom` times its natural size (its viewBox keeps the drawing whole)."""
    if zoom == 1.0:
        return svg
    def scale(m):
        return (f'<svg width="{float(m.group(1)) * zoom:.0f}pt" '
                f'height="{float(m.group(2)) * zoom:.0f}pt"')
    return _SVG_SIZE.sub(scale, svg, count=1)


def text_html(text: str, css_class: str = "exprscope-text") -> str:
    """Text in a <pre>, escaped: labels can hold `<`, `&`, quotes and terminal escapes."""
    return f'<pre class="{css_class}" style="margin:0">{html.escape(visible_lines(text))}</pre>'


def tree_html(obj, fit: bool = True, focus="", depth: int | None = None,
              zoom: float = 1.0) -> str:
    """HTML for an ipywidgets.HTML: the inline SVG, or the text drawing when `dot` is missing.

    `fit`: the picture is scaled to the cell's width and the window's height (never
    above its natural size, nor below half of it), so a wide or tall tree is seen
    whole; otherwise it keeps its size in a box that scrolls both ways, scaled by
    `zoom`. `focus` and `depth` choose the part of a tree drawn (see `to_dot`; a bad
    path raises UsageError). The text is drawn only when it is
    shown: on a deep tree it costs as much as the SVG.
    """
    svg = None
    if dot_available():
        try:
            svg = to_svg(obj, focus=focus, depth=depth)
        except (DotNotFound, OSError, RuntimeError):
            svg = None
    if not svg:
        return text_html(mimebundle(obj).get("text/plain", ""), "exprscope-tree-text")
    svg = _XML_PROLOG.sub("", svg, count=1)
    if fit:
        svg = _fitted(svg)
        box = "overflow:auto;max-height:90vh"  # scrolls only when held at half its size
    else:
        svg = _zoomed(svg, zoom)
        box = "overflow:auto;max-height:80vh"
    return f'<div class="exprscope-tree-svg" style="{box}">{svg}</div>'


def register_formatters(ip) -> None:
    """Let IPython display single steps as trees (expressions, traces and plans already do)."""
    formatter = ip.display_formatter.mimebundle_formatter
    for cls in _EVENT_TYPES:
        formatter.for_type(cls, _format_for_ipython)


def _format_for_ipython(obj, include=None, exclude=None):
    return mimebundle(obj)
