"""exprscope's Jupyter face: rich display, the step-through explorer, the magics.

    %load_ext widgets          # %expr, %%explain, %%trace, %%explain_scan, %%catalyst
    from widgets import Explorer
    Explorer(trace)            # previous / next / slider / previous and next change

Nothing in `toolkit` imports this package: the engine stays usable without Jupyter.
"""

from .explorer import Explorer
from .invariants_panel import InvariantsPanel
from .magics import ExprscopeMagics
from .rich_display import mimebundle, register_formatters
from .scan_view import ScanView
from .selection_view import SelectionView
from .substrait_formatters import register_substrait_formatters

__all__ = [
    "Explorer",
    "InvariantsPanel",
    "ScanView",
    "SelectionView",
    "load_ipython_extension",
    "mimebundle",
]


def load_ipython_extension(ip) -> None:
    """`%load_ext widgets`: register the magics, the display of single steps and that of
    Substrait messages."""
    ip.register_magics(ExprscopeMagics)
    register_formatters(ip)
    register_substrait_formatters(ip)
