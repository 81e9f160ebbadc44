"""An expression as a row's story prints it: as plans print it, and cut only between tokens.

Arrow's own text gives a cast its seven options (`{to_type=double,
allow_int_overflow=false, …}`), which fills a sentence before it names anything.
Plans print options only where they differ from Arrow's defaults
(`cast(a, {to_type=double})`, `Expression.to_string(short=True)`), so a story
and the plan a journey draws spell one node alike. A term quoted in a sentence
that is still too long ends after a whole token (a name, a number, a string, an
option list's closing brace), never in the middle of one.
"""

from __future__ import annotations

from ..model.expression import Expression
from ..support.visible_text import visible

__all__ = ["TERM_CHARS", "cut_between_tokens", "expression_text", "term_text"]

TERM_CHARS = 80  # a term quoted in a sentence: longer ones end at a token, with `…`
_BREAK_AFTER = frozenset("(,{[)]}")  # a token ends after one of these, or before a space


def expression_text(node) -> str:
    """The node's text as plans print it: every name and value `visible`, options only
    where they differ from Arrow's defaults (anything else as `str` prints it)."""
    if not isinstance(node, Expression):
        return visible(str(node))
    return visible(node.to_string(shown=True, short=True))


def term_text(node: Expression, limit: int = TERM_CHARS) -> str:
    """The node quoted for a sentence: `` `(a > 1)` ``, cut between tokens past `limit`."""
    return f"`{cut_between_tokens(expression_text(node), limit)}`"


def cut_between_tokens(text: str, limit: int) -> str:
    """`text` whole when it fits in `limit` characters, else its longest beginning that
    ends between two tokens (outside any quoted string), then ` …` (`…` right after an
    opening bracket). A first token longer than the whole room is the one thing cut
    inside: there is nowhere else to cut."""
    if len(text) <= limit:
        return text
    room = limit - 2  # for " …"
    end, quote, escaped = 0, None, False  # end: where the last whole token ends, so far
    for i, c in enumerate(text[: room + 1]):  # a space right after the room ends a token
        if quote is not None:  # inside a string literal or a quoted name
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = None
                end = i + 1 if i < room else end
        elif c == " ":
            end = i
        elif c in "\"'":
            quote = c
        elif c in _BREAK_AFTER and i < room:
            end = i + 1
    if not end:
        return text[: limit - 1] + "…"
    kept = text[:end].rstrip()
    return kept + ("…" if kept.endswith(("(", "{", "[")) else " …")
