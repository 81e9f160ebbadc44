"""Pictures of expressions, traces and single steps in Jupyter, text when `dot` is missing.

`toolkit.render` draws and provides itself to `toolkit.support.late`: its
bundle holds `image/svg+xml` when graphviz's `dot` runs and only `text/plain`
when it does not. This module puts those bundles where a notebook needs them:
in IPython's display of the engine's bare event records (a single step of a
trace has no `_repr_mimebundle_` of its own) and inside the explorer's HTML
widgets, where the SVG is inlined and the text fallback goes in a <pre>.
"""

from __future__ import annotations

import html

import toolkit as tk  # noqa: F401 - importing toolkit registers the renderer
from toolkit import observe
from toolkit.render.svg import DotNotFound, dot_available, fitted, inline_svg, to_svg, zoomed
from toolkit.render.wide_nodes import AUTO_DEPTH
from toolkit.support import late
from toolkit.support.visible_text import visible_lines

__all__ = ["mimebundle", "register_formatters", "text_html", "tree_html"]

_EVENT_TYPES = (observe.PassEvent, observe.EvalEvent, observe.InvariantCheck,
                observe.PlanRuleEvent)


def mimebundle(obj) -> dict:
    """The renderer's bundle: SVG plus text, or text alone when `dot` is missing."""
    return late.mimebundle(obj)


def text_html(text: str, css_class: str = "exprscope-text") -> str:
    """Text in a <pre>, escaped: labels can hold `<`, `&`, quotes and terminal escapes.
    A long line wraps between words, never inside one (the notebook's own style breaks
    anywhere)."""
    return (f'<pre class="{css_class}" style="margin:0;white-space:pre-wrap;'
            f'word-break:normal;overflow-wrap:break-word">{html.escape(visible_lines(text))}</pre>')


def tree_html(obj, fit: bool = True, focus="", depth: int | str | None = AUTO_DEPTH,
              zoom: float = 1.0) -> str:
    """HTML for an ipywidgets.HTML: the inline SVG, or the text drawing when `dot` is missing.

    `fit`: the picture is scaled to the cell's width and the window's height (never
    above its natural size, nor below `MIN_FIT_SCALE` of it, where its 9pt labels would
    drop below 9 px), so a wide or tall tree is seen whole or scrolls; otherwise it keeps its size in a box that scrolls both ways, scaled by
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
    svg = inline_svg(svg)
    if fit:
        svg = fitted(svg)
        box = "overflow:auto;max-height:90vh"  # scrolls only when held at its smallest
    else:
        svg = zoomed(svg, zoom)
        box = "overflow:auto;max-height:80vh"
    # as wide as the cell whatever the picture's width (a size container: its content
    # does not widen it), so a picture at its natural size scrolls inside it instead
    return (f'<div class="exprscope-tree-svg" style="{box};width:100%;container-type:inline-size">'
            f"{svg}</div>")


def register_formatters(ip) -> None:
    """Let IPython display single steps as trees (expressions, traces and plans already do)."""
    formatter = ip.display_formatter.mimebundle_formatter
    for cls in _EVENT_TYPES:
        formatter.for_type(cls, _format_for_ipython)


def _format_for_ipython(obj, include=None, exclude=None):
    return mimebundle(obj)
