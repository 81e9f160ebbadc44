"""Text read as a date, as Spark's cast reads it.

Spark's `cast(s as date)` (and `to_date(s)`, which Spark rewrites into it) trims
whitespace and takes `yyyy`, `yyyy-[m]m` or `yyyy-[m]m-[d]d`, followed by nothing or
by a space or a `T` and anything (a time): `2024-3-5`, `2024-03-05 10:11:12` and
`2024` are dates there. Arrow's cast reads `yyyy-mm-dd` only. So the text is taken
apart with a regular expression, its month and day padded (`01` where missing), and
the `yyyy-mm-dd` made of them cast. Text of no such shape takes Arrow's own cast,
which fails naming the value, as Spark fails under ANSI (Spark 4's default); without
ANSI Spark gives null there, and so does this.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk

__all__ = ["text_to_date"]

_SHAPE = r"^(?P<y>\d{4})(?:-(?P<m>\d{1,2})(?:-(?P<d>\d{1,2}))?)?(?:[ T].*)?$"


def text_to_date(text: tk.Expression, ansi: bool) -> tk.Expression:
    """`text` (a string) as a date32, read as Spark reads it."""
    trimmed = tk.call("utf8_trim_whitespace", [text])
    parts = tk.call("extract_regex", [trimmed], pc.ExtractRegexOptions(_SHAPE))
    year, month, day = (tk.call("struct_field", [parts], pc.StructFieldOptions([i]))
                        for i in range(3))
    iso = tk.call("binary_join_element_wise",
                  [year, _two_digits(month), _two_digits(day), tk.literal("-")])
    otherwise = tk.cast(trimmed, pa.date32()) if ansi else tk.literal(None, pa.date32())
    return tk.if_else(tk.is_valid(parts), tk.cast(iso, pa.date32()), otherwise)


def _two_digits(part: tk.Expression) -> tk.Expression:
    """A month or day as two digits; `01` where the text has none."""
    missing = tk.call("equal", [part, tk.literal("")])
    present = tk.if_else(missing, tk.literal("1"), part)
    return tk.call("utf8_lpad", [present], pc.PadOptions(2, "0"))
