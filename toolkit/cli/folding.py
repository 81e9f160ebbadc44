"""Text the `exprscope` command prints, folded to the terminal's width.

A plan's line or an error message may be far wider than an 80-column terminal,
which would break it wherever the terminal likes, inside a word. Here a line
breaks between words, its continuations indented deeper than the line itself
(deeper than a plan node's inputs, so a continuation never reads as a node), and
a caret under a culprit stays under it: the quoted line and its carets are shown
as one window around the carets instead of being wrapped.
"""

from __future__ import annotations

import re

from ..render.text import display_width

__all__ = ["fold_line", "fold_message", "fold_text"]

_CARETS = re.compile(r"^( *)(\^+)\s*$")
_ELLIPSIS = "..."


def fold_line(line: str, width: int, hang: int = 4) -> list[str]:
    """`line` as lines of at most `width` columns, broken between words; continuations
    start `hang` columns right of the line's own indentation (less when that leaves
    under half the width). A word wider than a whole line is split into pieces."""
    if display_width(line) <= width:
        return [line]
    body = line.lstrip(" ")
    lead = line[: len(line) - len(body)]
    if display_width(lead) > width // 2:
        lead = " " * (width // 2)
    indent = lead + " " * hang
    if display_width(indent) > width // 2:
        indent = " " * min(hang, width // 4)
    out: list[str] = []
    current = lead
    fresh = True  # nothing but indentation on the current line yet
    for word in body.split(" "):
        candidate = word if fresh else " " + word
        if display_width(current) + display_width(candidate) <= width:
            current += candidate
            fresh = False
            continue
        if not fresh:
            out.append(current.rstrip())
            current, fresh = indent, True
        for piece in _pieces(word, width - display_width(indent), width - display_width(current)):
            if not fresh:
                out.append(current)
                current = indent
            current += piece
            fresh = False
    out.append(current.rstrip() if not fresh else current)
    return [line for line in out if line.strip()] or [""]


def _pieces(word: str, room: int, first_room: int) -> list[str]:
    """`word` cut into runs of at most `first_room`, then `room` columns."""
    pieces, current, used, limit = [], "", 0, max(1, first_room)
    for c in word:
        w = display_width(c)
        if used + w > limit and current:
            pieces.append(current)
            current, used, limit = "", 0, max(1, room)
        current += c
        used += w
    pieces.append(current)
    return pieces


def fold_text(text: str, width: int, hang: int = 4) -> str:
    """Every line of `text` folded by `fold_line`."""
    return "\n".join(piece for line in text.split("\n") for piece in fold_line(line, width, hang))


def fold_message(message: str, width: int) -> str:
    """An error message within `width`: its sentences folded between words (continuations
    two columns in), a quoted line with carets under it shown as a window around them."""
    lines = message.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        carets = _CARETS.match(lines[i + 1]) if i + 1 < len(lines) else None
        if carets is not None and lines[i].startswith(carets.group(1)[:2]):
            out += _caret_window(lines[i], carets, width)
            i += 2
            continue
        out += fold_line(lines[i], width, hang=2)
        i += 1
    return "\n".join(out)


def _caret_window(quoted: str, carets: re.Match, width: int) -> list[str]:
    """The quoted line and its caret line, cut to a window of the line around the carets."""
    column, count = len(carets.group(1)), len(carets.group(2))
    if display_width(quoted) <= width and column + count <= width:
        return [quoted, carets.group(0).rstrip()]
    body = quoted.lstrip(" ")
    margin = quoted[: len(quoted) - len(body)][:2]
    column -= len(quoted) - len(body)
    room = max(8, width - len(margin) - 2 * len(_ELLIPSIS))
    start = max(0, min(column - room // 3, len(body) - room))
    end = min(len(body), start + room)
    while start < end and display_width(body[start:end]) > room:  # wide characters
        end -= 1
    prefix = _ELLIPSIS if start > 0 else ""
    suffix = _ELLIPSIS if end < len(body) else ""
    shown = max(1, min(count, end - max(column, start)))
    under = max(0, column - start) + len(prefix)
    return [f"{margin}{prefix}{body[start:end]}{suffix}", f"{margin}{' ' * under}{'^' * shown}"]
