"""Calls Arrow's kernels never finish: refused when they bind and again before they run.

Arrow's split and replace kernels step from one match of the pattern to the next;
a match of the empty string does not move them on. Found by running every regex
function pyarrow has (and their literal cousins) with empty-matching patterns in a
child process under a time and memory limit (tests/functions/test_endless_calls.py
keeps doing so), these loop forever, growing their output until memory runs out:

- `split_pattern_regex` with no limit on splits (`max_splits` None or negative) and a
  pattern that can match the empty string (`x*`, `^`, `\\b`), on any string, even "";
- `replace_substring_regex` with `max_replacements` below -1 (-1 itself, "all", and
  every limit from 0 up finish) and such a pattern, on a non-empty string;
- `replace_substring` with the empty pattern and a negative `max_replacements`.

`count_`, `find_`, `match_substring_regex`, `extract_regex(_span)` and the bounded
forms above finish. Options are constants, so the refusal is certain at bind time;
it runs again where the kernel is called, for a call bound some other way.
"""

from __future__ import annotations

import functools

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import EndlessCallError
from ..model.options import option_values
from ..support.visible_text import visible
from .function import call_pyarrow

__all__ = ["ENDLESS_NAMES", "can_match_empty", "endless_reason", "guarded_execute",
           "refuse_endless"]

ENDLESS_NAMES = ("split_pattern_regex", "replace_substring_regex", "replace_substring")

# Every context an RE2 empty match can depend on: the start or end of the text or of a line,
# a word character or not on either side (RE2 has no lookaround; `\b` is ASCII words).
_PROBES = ["", "a", " ", "\n", "aa", "a ", " a", "  ", "a\n", "\na", "\n\n", " \n", "\n ", "a a",
           "a\na", "é", "_1"]
_OPEN, _CLOSE = "\x01", "\x02"  # around each match: an empty match leaves them side by side

@functools.lru_cache(maxsize=1024)
def can_match_empty(pattern: str) -> bool:
    """Whether the RE2 `pattern` matches the empty string at some place of some text.

    Asked of RE2 itself: each match of the pattern over probe texts that hold every
    context an assertion reads is replaced by itself between two markers (a bounded
    number of replacements, which finishes); the markers side by side mean an empty
    match. A pattern RE2 rejects raises its ArrowInvalid.
    """
    probes = pa.array(_PROBES, pa.string())  # built here: pa.array looks for pandas
    marked = pc.replace_substring_regex(probes, pattern=pattern,
                                        replacement=f"{_OPEN}\\0{_CLOSE}", max_replacements=-1)
    return bool(pc.any(pc.match_substring(marked, _OPEN + _CLOSE)).as_py())


def endless_reason(name: str, options) -> str | None:
    """Why `name` with `options` would never finish, or None when it finishes."""
    if options is None or name not in ENDLESS_NAMES:
        return None
    try:
        values = option_values(options)
    except (pa.ArrowException, TypeError, ValueError):
        return None  # not options these functions read: the kernel refuses them itself
    pattern = values.get("pattern")
    if not isinstance(pattern, str):
        return None
    if name == "split_pattern_regex":
        splits = values.get("max_splits")
        if (splits is None or splits < 0) and _matches_empty(pattern):
            return (f"the pattern {visible(repr(pattern))} matches the empty string, and "
                    "Arrow's split_pattern_regex never moves past an empty match when "
                    "max_splits has no limit: give max_splits a limit, or a pattern that "
                    "matches at least one character (`x+`, not `x*`)")
    elif name == "replace_substring_regex":
        limit = values.get("max_replacements")
        if limit is not None and limit < -1 and _matches_empty(pattern):
            return (f"the pattern {visible(repr(pattern))} matches the empty string, and "
                    f"Arrow's replace_substring_regex never ends with max_replacements="
                    f"{limit}: -1 replaces every match; 0 or more bounds them")
    elif name == "replace_substring":
        limit = values.get("max_replacements")
        if pattern == "" and (limit is None or limit < 0):
            return ("the empty pattern matches between every two characters, and Arrow's "
                    "replace_substring never ends when max_replacements has no limit: "
                    "give a pattern, or max_replacements 0 or more")
    return None


def _matches_empty(pattern: str) -> bool:
    try:
        return can_match_empty(pattern)
    except (pa.ArrowException, ValueError):
        return False  # a pattern RE2 rejects: the kernel itself refuses it with RE2's reason


def refuse_endless(name: str, options) -> None:
    """Raise EndlessCallError when `name` with `options` is a call Arrow never finishes."""
    reason = endless_reason(name, options)
    if reason is not None:
        raise EndlessCallError(f"{name} would never finish: {reason}", function=name)


def guarded_execute(function, args, options, kernel):
    """Run pyarrow's kernel, unless these options make it loop forever."""
    refuse_endless(function.name, options)
    return call_pyarrow(function, args, options, kernel)
