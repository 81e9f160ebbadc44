"""String functions: case mapping, length, classification, matching, slicing, joining.

Signatures are Arrow's: utf8 functions take string and large_string (the output
keeps the offset width); the matchers also take binary. Patterns, slices and
separators come in options; binding checks them as Arrow's kernel init does.
Arrow gives these no implicit casts, so a dictionary column needs an explicit cast.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .ascii_fast_path import ascii_when_possible
from .conditional import all_same
from .dispatch import best_join
from .function import Arity, Kernel, NullHandling
from .init_checks import probe_empty
from .like_search import selective_match_like, selective_match_substring
from .registry import definer
from .string_compare import selective_ends_with, selective_starts_with
from .types import BASE_BINARY, STRINGS, exact, fixed, same_as

define = definer("strings")

__all__: list[str] = []


def _per_string(name: str, out=None) -> list[Kernel]:
    return [Kernel(name, (exact(t),), fixed(out[t]) if out else same_as(0, str(t))) for t in STRINGS]


define("utf8_upper", _per_string("utf8_upper"), "Upper-case each string (Unicode aware).",
       can_fail=True,  # invalid UTF-8 input raises
       execute=ascii_when_possible("ascii_upper"))
define("utf8_lower", _per_string("utf8_lower"), "Lower-case each string (Unicode aware).",
       can_fail=True, execute=ascii_when_possible("ascii_lower"))
for _name, _doc in [
    ("utf8_trim_whitespace", "Remove leading and trailing Unicode whitespace."),
    ("utf8_ltrim_whitespace", "Remove leading Unicode whitespace."),
    ("utf8_rtrim_whitespace", "Remove trailing Unicode whitespace."),
    ("utf8_reverse", "Reverse each string by code point."),
]:
    define(_name, _per_string(_name), _doc, can_fail=True)  # invalid UTF-8 input raises
define("utf8_length", _per_string("utf8_length", {pa.utf8(): pa.int32(), pa.large_utf8(): pa.int64()}),
       "The number of characters (code points) of each string.",
       execute=ascii_when_possible("binary_length"))
define("utf8_is_digit", _per_string("utf8_is_digit", {pa.utf8(): pa.bool_(), pa.large_utf8(): pa.bool_()}),
       "True where the string is non-empty and every character is a digit.")

_SELECTIVE = {"starts_with": selective_starts_with, "ends_with": selective_ends_with,
              "match_like": selective_match_like, "match_substring": selective_match_substring}
for _name, _doc in [
    ("starts_with", "True where the value starts with the pattern."),
    ("ends_with", "True where the value ends with the pattern."),
    ("match_substring", "True where the value contains the pattern."),
    ("match_like", "True where the value matches the SQL LIKE pattern ('%' any run, '_' one char)."),
]:
    define(_name, [Kernel(_name, (exact(t),), fixed(pa.bool_())) for t in BASE_BINARY], _doc,
           options_class=pc.MatchSubstringOptions, init=probe_empty, options_required=True,
           **({"execute": _SELECTIVE[_name]} if _name in _SELECTIVE else {}))

define("utf8_slice_codeunits", _per_string("utf8_slice_codeunits"),
       "The substring between start and stop (code units, Python slice rules).",
       options_class=pc.SliceOptions, init=probe_empty, options_required=True, can_fail=True)

define(
    "binary_join_element_wise",
    [Kernel("binary_join_element_wise", (exact(t),), same_as(0, str(t)), varargs=True,
            check=all_same, check_name="all of the same type") for t in BASE_BINARY],
    "Join the arguments row by row with the last argument as the separator.",
    arity=Arity(1, None), null_handling=NullHandling.COMPUTED,
    options_class=pc.JoinOptions, default_options=pc.JoinOptions(), dispatch_best=best_join,
)
del _name, _doc
