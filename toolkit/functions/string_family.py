"""Strings and binaries beyond the basics: case, padding, trimming, predicates, regex, slices.

Signatures come from pyarrow's registry (`derive`); Arrow gives these functions
no implicit casts (a dictionary column needs an explicit cast), so only the
kernels' own types bind, except `binary_repeat`, whose count may be any integer. What can fail on a row: a regex kernel (invalid UTF-8,
or a pattern RE2 rejects), a utf8 transformation that validates its input,
`binary_repeat` with a negative count, `ascii_reverse` on non-ASCII input; `binary_join` never does.
"""

from __future__ import annotations

import pyarrow.compute as pc

from . import strings  # noqa: F401  (the hand-written functions register first)
from .derive import Family, define_family
from .dispatch import best_repeat
from .function import NullHandling

__all__ = ["STRING_NAMES"]

_PREFIXES = ("ascii_", "utf8_", "binary_", "string_", "match_", "count_", "find_", "replace_",
             "extract_", "split_")
_NAMES = sorted(n for n in pc.list_functions() if n.startswith(_PREFIXES))
# utf8 functions that decode and re-encode their input reject invalid UTF-8 row by row
_DECODING = ("utf8_capitalize", "utf8_swapcase", "utf8_title", "utf8_normalize", "utf8_center",
             "utf8_lpad", "utf8_rpad", "utf8_trim", "utf8_ltrim", "utf8_rtrim",
             "utf8_replace_slice", "utf8_zero_fill", "utf8_split_whitespace")


def _can_fail(name: str, inputs) -> bool:
    return "regex" in name or name in _DECODING or name in ("binary_repeat", "ascii_reverse")


def _null_handling(name: str) -> NullHandling:
    # binary_join: a null in a list gives null, as a null list does (intersection holds)
    return NullHandling.INTERSECTION


STRING_NAMES = (
    define_family(Family("strings", None, _null_handling, _can_fail),
                  [n for n in _NAMES if n != "binary_repeat"])
    + define_family(Family("strings", best_repeat, _null_handling, _can_fail), ["binary_repeat"]))
