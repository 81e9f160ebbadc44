"""The visual vocabulary of every graph: colors and shapes by node kind and by change.

One place, so the legend, the DOT builders, the HTML report's CSS and the
tests agree on what "changed" looks like.
"""

from __future__ import annotations

__all__ = [
    "ERROR_STYLE",
    "FONT",
    "KIND_STYLE",
    "SELECTED",
    "SKIPPED_STYLE",
    "STATUS_LEGEND",
    "STATUS_STYLE",
    "UNSELECTED",
    "density_color",
]

FONT = "Helvetica"

KIND_STYLE = {
    "field": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dbeafe",
              "color": "#3b6fb6"},
    "literal": {"shape": "ellipse", "style": "filled", "fillcolor": "#fef3c7", "color": "#b7791f"},
    "call": {"shape": "box", "style": "filled", "fillcolor": "#f3f4f6", "color": "#4b5563"},
    "special": {"shape": "hexagon", "style": "filled", "fillcolor": "#ede9fe", "color": "#6d28d9"},
}

STATUS_STYLE = {
    "changed": {"fillcolor": "#ffedd5", "color": "#ea580c", "penwidth": "2.5"},
    "added": {"fillcolor": "#dcfce7", "color": "#16a34a", "penwidth": "2.5"},
    "removed": {"fillcolor": "#fee2e2", "color": "#dc2626", "penwidth": "1.5", "dashed": "1"},
    "moved": {"fillcolor": "#e0f2fe", "color": "#0284c7", "penwidth": "2"},
    "kept": {"color": "#ea580c", "penwidth": "2.5"},
}
# what each status means, in the order a legend lists them
STATUS_LEGEND = {
    "changed": "changed (⟲ rule)",
    "kept": "kept, its parent removed",
    "moved": "moved to another position",
    "added": "added",
    "removed": "removed",
}

ERROR_STYLE = {"fillcolor": "#fecaca", "color": "#b91c1c", "penwidth": "3"}
SKIPPED_STYLE = {"fillcolor": "#ffffff", "color": "#9ca3af", "fontcolor": "#6b7280", "dashed": "1"}

SELECTED = "#2563eb"
UNSELECTED = "#e5e7eb"


def density_color(share: float) -> str:
    """From the unselected gray (0) to the selected blue (1)."""
    share = min(1.0, max(0.0, share))
    lo = (0xE5, 0xE7, 0xEB)
    hi = (0x25, 0x63, 0xEB)
    r, g, b = (round(low + (high - low) * share) for low, high in zip(lo, hi))
    return f"#{r:02x}{g:02x}{b:02x}"
