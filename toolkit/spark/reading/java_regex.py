"""Java regular expressions (Spark's) read as RE2 (Arrow's), only where both mean the same.

The pattern is read token by token; what RE2 reads differently is rewritten or refused:
`.` excludes Java's line terminators (\\n \\r \\u0085 \\u2028 \\u2029), not only \\n;
`$` also matches before a final line terminator in Java (rewritten when only whether a
match exists matters, refused when the match's text matters); `\\s` holds \\x0B in Java;
`\\b` and `\\p{..}` follow Unicode rules in Java; backreferences, lookaround, possessive
quantifiers, nested classes and `&&` have no RE2 form. A pattern that can match the empty
string is refused for replacing, where Java and RE2 step over empty matches differently.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SparkImportError

__all__ = ["named_groups", "quote", "replacement_to_re2", "to_re2"]

_ANY = r"[^\n\r\x{85}\x{2028}\x{2029}]"
_END = r"(?:\r\n|[\n\r\x{85}\x{2028}\x{2029}])?\z"
_SAFE_ESCAPES = set("\\.*+?()[]{}|^$-/dDwWtnrf")
_CLASS_ESCAPES = set("\\.*+?()[]{}|^$-/dDwtnrf&")


def _refuse(node, pattern: str, why: str):
    name = str(node.getClass().getSimpleName())
    raise SparkImportError(f"cannot import the Spark expression {name} with the pattern "
                           f"{pattern!r}: {why} (Java's regular expressions and Arrow's RE2 "
                           "differ there)", spark_class=name)


def quote(text: str) -> str:
    """A literal text as an RE2 pattern."""
    return re.sub(r"([\\.*+?()\[\]{}|^$])", r"\\\1", text)


def to_re2(pattern: str, node, matching: bool) -> str:
    """The RE2 pattern that matches what Java's `pattern` matches; `matching` when only
    whether a match exists matters (RLIKE)."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                _refuse(node, pattern, "a trailing backslash")
            e = pattern[i + 1]
            if e not in (_CLASS_ESCAPES if in_class else _SAFE_ESCAPES):
                _refuse(node, pattern, f"the escape \\{e}")
            out.append("\\" + e)
            i += 2
            continue
        if in_class:
            if c == "[" or pattern.startswith("&&", i):
                _refuse(node, pattern, "a nested class or class intersection")
            if c == "]" and out[-1] not in ("[", "[^"):
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append("[^" if pattern.startswith("[^", i) else "[")
            i += 2 if pattern.startswith("[^", i) else 1
            continue
        if c == "(" and pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
            _refuse(node, pattern, "a group with flags, a name or lookaround")
        if c in "*+?}" and i + 1 < len(pattern) and pattern[i + 1] == "+":
            _refuse(node, pattern, "a possessive quantifier")
        if c == ".":
            out.append(_ANY)
        elif c == "$":
            if not matching:
                _refuse(node, pattern, "$ (Java's also matches before a final line end)")
            out.append(_END)
        else:
            out.append(c)
        i += 1
    if in_class:
        _refuse(node, pattern, "an unclosed class")
    re2 = "".join(out)
    try:
        empty = pc.match_substring_regex(pa.array([""]), re2)[0].as_py()
    except pa.ArrowInvalid as exc:
        _refuse(node, pattern, f"RE2 cannot read it ({exc})")
    if empty and not matching:
        _refuse(node, pattern, "it matches the empty string")
    return re2


def replacement_to_re2(replacement: str, node) -> str:
    """Java's replacement text ($1 a group, \\x a literal x) as RE2's (\\1, \\\\)."""
    out, i = [], 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            out.append("\\\\" if replacement[i + 1] == "\\" else replacement[i + 1])
            i += 2
        elif c == "$":
            if i + 1 < len(replacement) and replacement[i + 1].isdigit() and (
                    i + 2 >= len(replacement) or not replacement[i + 2].isdigit()):
                out.append("\\" + replacement[i + 1])
                i += 2
            else:
                _refuse(node, replacement, "a replacement with ${name}, $NN or a lone $")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def named_groups(re2: str) -> tuple[str, int]:
    """The pattern with its whole match named g0 and each capturing group gN (Arrow's
    extract_regex needs names), and the number of groups."""
    out, count, i, in_class = ["(?P<g0>"], 0, 0, False
    while i < len(re2):
        c = re2[i]
        if c == "\\":
            out.append(re2[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]" or out[-1] in ("[", "[^")
        elif c == "[":
            in_class = True
        elif c == "(" and not re2.startswith("(?", i):
            count += 1
            out.append(f"(?P<g{count}>")
            i += 1
            continue
        out.append(c)
        i += 1
    out.append(")")
    return "".join(out), count
