"""Rich display for Jupyter: the picture as HTML and SVG, with a text fallback,
registered with the engine's hook.

The engine's objects ask `toolkit.support.late` for a mimebundle; importing
`toolkit.render` provides `mimebundle` there. Notebooks prefer the HTML: the
picture fitted to the output's width while its labels stay readable, else held
readable in a box that scrolls sideways and opens on the root (a notebook shows
the bare SVG scaled to the output, or at full size with nothing to bring the root
into view). The SVG stays for front ends that show no HTML. No `dot` (or a graph
it cannot lay out) still shows the text tree rather than an error.
"""

from __future__ import annotations

from ..scan import ScanExplanation
from ..support import late
from .scan_html import scan_html
from .svg import DotNotFound, dot_available, scrolling_picture, to_svg
from .text import to_text

graphviz_package = late.module("graphviz")

__all__ = ["install", "mimebundle"]


def mimebundle(obj) -> dict:
    if isinstance(obj, ScanExplanation):  # a table reads better than a tree here
        return {"text/plain": to_text(obj, color=False), "text/html": scan_html(obj)}
    try:
        text = to_text(obj, color=False)
    except TypeError:
        return {"text/plain": repr(obj)}
    bundle = {"text/plain": text}
    if dot_available():
        graphviz = graphviz_package
        try:
            svg = to_svg(obj)
        except (DotNotFound, graphviz.CalledProcessError, OSError):  # text still shows
            return bundle
        bundle["image/svg+xml"] = svg
        bundle["text/html"] = scrolling_picture(svg)
    return bundle


def install() -> None:
    late.provide("render", mimebundle)
