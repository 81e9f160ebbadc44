"""Where each call of a parsed expression stands in the text it was read from.

An error found after parsing (binding finds no kernel for `species + 1`) puts a
caret under the call in the user's text. Expression nodes are values compared
by structure, so a position is not part of the node: the parser remembers it
here by the node's identity, for the most recent parses (a bounded table).
"""

from __future__ import annotations

from .bounded_cache import ObjectCache

__all__ = ["remember", "span_in"]

_SPANS = ObjectCache(4096)


def remember(node, text: str, span: tuple[int, int] | None) -> None:
    """`node` was read from `text[start:end]`."""
    if span is not None:
        _SPANS.put(node, (text, span))


def span_in(node, text: str) -> tuple[int, int] | None:
    """(start, end) of `node` in `text`, when `node` was parsed from that very text."""
    found = _SPANS.get(node)
    if found is None:
        return None
    source, span = found
    if source == text:
        return span
    offset = text.find(source)  # the text with something around it (a magic's cell)
    return None if offset < 0 else (span[0] + offset, span[1] + offset)
