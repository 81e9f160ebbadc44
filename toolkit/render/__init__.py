"""Drawing what the engine did: DOT/SVG (graphviz), terminal text, the HTML report.

Importing this package registers the Jupyter renderer with
`toolkit.support.late` (the operation `render`), so expressions and traces display as SVG trees.
"""

from .display import install as _install_display
from .dot import to_dot
from .html_report import write_report
from .svg import DotNotFound, to_svg
from .text import to_text

__all__ = ["DotNotFound", "to_dot", "to_svg", "to_text", "write_report"]

_install_display()
