"""One value as a person reads it in a sentence: `null`, `3`, `'abc'`, cut when long.

Values come from users' data, so the text passes through `visible` (no control or
bidi characters reach a terminal); HTML and DOT printers escape it again for
their own syntax.
"""

from __future__ import annotations

import pyarrow as pa

from ..support.visible_text import visible

__all__ = ["MAX_VALUE_CHARS", "value_text"]

MAX_VALUE_CHARS = 60


def value_text(value, limit: int = MAX_VALUE_CHARS) -> str:
    if value is None:
        return "—"
    if isinstance(value, pa.Scalar):
        if not value.is_valid:
            return "null"
        try:
            plain = value.as_py()
        except (ValueError, OverflowError, NotImplementedError, pa.ArrowException):
            plain = str(value)
    else:
        plain = value
    if isinstance(plain, bool):
        return "true" if plain else "false"
    text = visible(repr(plain) if isinstance(plain, (str, bytes)) else str(plain))
    return text if len(text) <= limit else text[: limit - 1] + "…"
