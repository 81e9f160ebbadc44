"""Text that cannot take over a screen: control and layout characters spelled out.

Names, literals and messages come from users' data and from files others wrote.
An ESC can recolor or clear a terminal, a bidi override can reorder what a
reader sees ("Trojan source"), a NUL or an unassigned code point breaks XML.
Everything exprscope shows as text (terminal trees, `plan.explain()`, error
messages, the CLI, widgets and reports) passes through `visible` first, which
writes such characters as escapes (`\\x1b`, `\\u202e`); newlines are kept only
where a caller splits lines itself (`visible_lines`).
"""

from __future__ import annotations

import unicodedata

__all__ = ["visible", "visible_lines"]

# bidirectional overrides and isolates reorder text on screen
_BIDI = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
         "\u2069", "\u200e", "\u200f", "\u061c"}
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def visible(text: str) -> str:
    """`text` with every invisible or layout-changing character spelled as an escape.

    Controls, line separators, bidi overrides, surrogates and unassigned code
    points (U+FFFF is not even allowed in XML, so SVG would break).
    """
    if text.isprintable():  # the common case: nothing below would change it
        return text
    out = []
    for ch in text:
        if ch in _NAMED:
            out.append(_NAMED[ch])
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs", "Cn", "Zl", "Zp") or ch in _BIDI:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def visible_lines(text: str) -> str:
    """Like `visible`, but a multi-line message keeps its line breaks."""
    return "\n".join(visible(line) for line in text.split("\n"))
