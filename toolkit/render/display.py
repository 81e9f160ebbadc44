"""Rich display for Jupyter: SVG with a text fallback, registered with the engine's hook.

The engine's objects ask `toolkit.late_bound` for a mimebundle; importing
`toolkit.render` provides `mimebundle` there. No `dot` (or a graph it cannot
lay out) still shows the text tree rather than an error.
"""

from __future__ import annotations

from .. import heavy_imports, late_bound
from ..scan import ScanExplanation
from .scan_html import scan_html
from .svg import DotNotFound, dot_available, to_svg
from .text import to_text

__all__ = ["mimebundle", "install"]


def mimebundle(obj) -> dict:
    if isinstance(obj, ScanExplanation):  # a table reads better than a tree here
        return {"text/plain": to_text(obj, color=False), "text/html": scan_html(obj)}
    try:
        text = to_text(obj, color=False)
    except TypeError:
        return {"text/plain": repr(obj)}
    bundle = {"text/plain": text}
    if dot_available():
        graphviz = heavy_imports.graphviz()
        try:
            bundle["image/svg+xml"] = to_svg(obj)
        except (DotNotFound, graphviz.CalledProcessError, OSError):  # text still shows
            pass
    return bundle


def install() -> None:
    late_bound.provide("render", mimebundle)
