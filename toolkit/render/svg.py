"""SVG through graphviz's `dot` program, and SVG fit to sit inside an HTML page.

The Python package only writes DOT; the system's `dot` lays it out. When it is
missing, the error says how to install it instead of a FileNotFoundError.
"""

from __future__ import annotations

import re
import shutil

from .. import heavy_imports
from ..errors import (
    DotNotFound,  # defined with every other exprscope error
    )
from .dot import to_dot

__all__ = ["to_svg", "dot_available", "fitted", "inline_svg", "without_ids", "zoomed",
           "DotNotFound"]


def dot_available() -> bool:
    return shutil.which("dot") is not None


def to_svg(obj, **options) -> str:
    """The picture of `obj` (anything `to_dot` draws, or a graphviz graph) as SVG text."""
    graphviz = heavy_imports.graphviz()
    graph = obj if isinstance(obj, (graphviz.Digraph, graphviz.Graph)) else to_dot(obj, **options)
    try:
        return without_ids(graph.pipe(format="svg", encoding="utf-8"))
    except graphviz.ExecutableNotFound:
        raise DotNotFound("graphviz's `dot` program is not installed; install it with "
                          "`apt-get install graphviz` (or `make system-packages`)") from None


_TITLE = re.compile(r"<title>[^<]*</title>\n?")


def without_ids(svg: str) -> str:
    """The SVG without graphviz's <title> elements.

    Graphviz gives every node, edge and cluster a <title> holding its internal
    name (`n6`, `n0->n1`, `cluster_legend`), which browsers show as a tooltip
    wherever an element has no tooltip of its own. The pictures' own tooltips
    (their full labels) are kept: graphviz writes those as the links' titles.
    """
    return _TITLE.sub("", svg)


_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_XMLNS = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')


def inline_svg(svg: str) -> str:
    """The `<svg>` element alone: no XML prolog, DTD, comments or namespace URIs.

    HTML parses inline SVG without them, and a report that opens offline
    should not even name a URL it could fetch.
    """
    svg = _PROLOG.sub("", svg, count=1)
    svg = _COMMENT.sub("", svg)
    head, sep, rest = svg.partition(">")
    return _XMLNS.sub("", head) + sep + rest


# -- how big a picture is shown: one rule for the notebook and the HTML report ---------
_SVG_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


FIT_HEIGHT = "78vh"  # a fitted picture is at most this tall: whole on screen below its controls
MIN_FIT_SCALE = 0.5  # ... unless that would shrink its 11pt labels below about 7 px


def fitted(svg: str) -> str:
    """The SVG scaled to be seen whole: no wider than the cell nor taller than the window,
    never above its natural size nor below half of it (labels stay readable; the box
    around it scrolls then)."""
    def scale(m):
        width, height = float(m.group(1)), max(1.0, float(m.group(2)))
        fitted = f"min(100%, {width:.0f}pt, calc({FIT_HEIGHT} * {width / height:.4f}))"
        return (f'<svg style="width:max({width * MIN_FIT_SCALE:.0f}pt, {fitted});height:auto" '
                f'data-natural-width="{width:.0f}pt"')
    return _SVG_SIZE.sub(scale, svg, count=1)


def zoomed(svg: str, zoom: float) -> str:
    """The SVG at `zoom` times its natural size (its viewBox keeps the drawing whole)."""
    if zoom == 1.0:
        return svg
    def scale(m):
        return (f'<svg width="{float(m.group(1)) * zoom:.0f}pt" '
                f'height="{float(m.group(2)) * zoom:.0f}pt"')
    return _SVG_SIZE.sub(scale, svg, count=1)
