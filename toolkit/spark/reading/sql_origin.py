"""Where a Spark plan node or expression came from in the user's SQL text, for errors."""

from __future__ import annotations

from ...support.visible_text import visible

__all__ = ["origin_text"]


def origin_text(node) -> str:
    """"\\n  at line N of the query: <that line>" when Spark kept the origin, else ""."""
    try:
        origin = node.origin()
        line = origin.line()
        text = origin.sqlText()
    except Exception:  # noqa: BLE001 - nodes without an origin (py4j raises several kinds)
        return ""
    if line.isEmpty():
        return ""
    number = int(line.get())
    out = f"\n  at line {number} of the query"
    if not text.isEmpty():
        lines = str(text.get()).splitlines()
        if 0 < number <= len(lines):
            out += f": {visible(lines[number - 1].strip())}"
    return out
