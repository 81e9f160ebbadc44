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

import re
import unicodedata

__all__ = ["hidden_at", "visible", "visible_lines"]

# bidirectional marks, overrides and isolates reorder text on screen (most are format
# characters, Cf; these are listed so the rule reads whole)
_BIDI = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
         "\u2069", "\u200e", "\u200f", "\u061c"}
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# escaped by category: controls, format characters (zero-width space and joiners,
# U+2060, the byte order mark, tag characters), surrogates, unassigned and private-use
# code points, line and paragraph separators, and spaces other than U+0020 (a no-break
# space prints like a space, so `a\xa0b` would read as `a b`)
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn", "Co", "Zl", "Zp", "Zs"})
# letters and marks that draw nothing (Unicode's default-ignorable code points outside Cf):
# the combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and
# other variation selectors
_BLANK_RANGES = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
                 (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0100, 0xE01EF))
_ASCII_CONTROL = re.compile("[\x00-\x1f\x7f]")
_MAX_MARKS = 2  # combining marks drawn on one letter; a pile of them covers other lines


def _blank(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _BLANK_RANGES)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with every invisible or layout-changing character spelled as an escape.

    Controls, format characters, bidi controls, surrogates, unassigned and private
    code points, separators and spaces other than U+0020, and characters that draw
    nothing. A combining mark is kept only where it draws on a letter or digit, at
    most two on one, and only when the text is in NFC (composed) form: otherwise a
    decomposed `e` + U+0301 would print exactly like the single letter `é` that is
    another name, so the marks are spelled out. Two names that differ only in such
    characters therefore never print alike.
    """
    if text.isascii() and text.isprintable():  # the common case: nothing below changes it
        return text
    return "".join(_NAMED.get(ch) or _escape(ch) if hidden else ch
                   for ch, hidden in _characters(text))


def hidden_at(text: str, keep: str = "") -> int | None:
    """The index of the first character `visible` spells as an escape, those in `keep`
    aside; None when there is none. A reader refuses such characters where they do
    not belong (in a name) by the same rule that prints them."""
    if text.isascii():  # a megabyte of generated text: only its controls need a look
        for found in _ASCII_CONTROL.finditer(text):
            if found.group() not in keep:
                return found.start()
        return None
    for i, (ch, hidden) in enumerate(_characters(text)):
        if hidden and ch not in keep:
            return i
    return None


def _characters(text: str):
    """Each character of `text` with whether `visible` escapes it."""
    composed = unicodedata.is_normalized("NFC", text)
    marks = 0  # combining marks kept on the current base character
    base_ok = False  # the previous character kept is a letter, digit or kept mark
    for ch in text:
        cat = unicodedata.category(ch)
        code = ord(ch)
        if cat[0] == "M" and not _blank(code):
            keep = composed and base_ok and marks < _MAX_MARKS
            marks += 1
            base_ok = keep
            yield ch, not keep
            continue
        hidden = (ch in _NAMED or (cat in _HIDDEN_CATEGORIES and ch != " ") or ch in _BIDI
                  or _blank(code) or (not composed and unicodedata.normalize("NFC", ch) != ch))
        marks = 0
        base_ok = not hidden and cat[0] in "LN"
        yield ch, hidden


def visible_lines(text: str) -> str:
    """Like `visible`, but a multi-line message keeps its line breaks."""
    return "\n".join(visible(line) for line in text.split("\n"))
