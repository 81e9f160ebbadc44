"""Translators of the string functions to pyspark Columns."""

from __future__ import annotations

import re

from .common import (
    F,
    as_call_type,
    options_of,
    register,
    untranslatable,
)


@register("utf8_upper")
def _upper(call, a, t):
    return F.upper(a[0])


@register("utf8_lower")
def _lower(call, a, t):
    return F.lower(a[0])


@register("utf8_length")
def _utf8_length(call, a, t):
    return as_call_type(call, F.char_length(a[0]))


@register("utf8_reverse")
def _reverse(call, a, t):
    return F.reverse(a[0])


_TRIMS = {"utf8_trim_whitespace": "(?U)^\\s+|\\s+$", "utf8_ltrim_whitespace": "(?U)^\\s+",
          "utf8_rtrim_whitespace": "(?U)\\s+$"}


@register(*_TRIMS)
def _trim(call, a, t):
    """Unicode whitespace, as Arrow's utf8 trims (Java's \\s alone is ASCII: hence (?U))."""
    return F.regexp_replace(a[0], _TRIMS[call.name], "")


@register("utf8_is_digit")
def _is_digit(call, a, t):
    return a[0].rlike("^\\p{Nd}+$")


def _pattern(call):
    values = options_of(call)
    return values["pattern"], bool(values.get("ignore_case", False))


def _folded(column, pattern, ignore_case):
    if ignore_case:
        return F.lower(column), pattern.lower()
    return column, pattern


@register("starts_with")
def _starts_with(call, a, t):
    column, pattern = _folded(a[0], *_pattern(call))
    return column.startswith(pattern)


@register("ends_with")
def _ends_with(call, a, t):
    column, pattern = _folded(a[0], *_pattern(call))
    return column.endswith(pattern)


@register("match_substring")
def _match_substring(call, a, t):
    column, pattern = _folded(a[0], *_pattern(call))
    return column.contains(pattern)


@register("match_like")
def _match_like(call, a, t):
    pattern, ignore_case = _pattern(call)
    return a[0].ilike(pattern) if ignore_case else a[0].like(pattern)


@register("utf8_slice_codeunits")
def _slice(call, a, t):
    values = options_of(call)
    start, stop, step = int(values["start"]), int(values["stop"]), int(values.get("step", 1))
    if step != 1:
        raise untranslatable("utf8_slice_codeunits", f"step {step} (only step 1 has a Spark "
                             "equivalent)")
    n = F.char_length(a[0])
    begin = F.greatest(n + start, F.lit(0)) if start < 0 else F.least(F.lit(start), n)
    stop = min(stop, 2**31 - 1)
    end = F.greatest(n + stop, F.lit(0)) if stop < 0 else F.least(F.lit(stop), n)
    return a[0].substr(begin + 1, F.greatest(end - begin, F.lit(0)))


@register("binary_join_element_wise")
def _join(call, a, t):
    values = options_of(call)
    handling = _null_handling(values.get("null_handling", 0))
    *parts, separator = a
    if handling == "replace":
        replacement = F.lit(values.get("null_replacement", ""))
        parts = [F.coalesce(p, replacement) for p in parts]
    joined = F.call_function("concat_ws", separator, *parts)
    if handling == "emit_null":
        any_null = separator.isNull()
        for p in parts:
            any_null = any_null | p.isNull()
        return F.when(~any_null, joined)
    return F.when(separator.isNotNull(), joined)


def _null_handling(value) -> str:
    if isinstance(value, str):
        return value
    return ["emit_null", "skip", "replace"][int(value)]


@register("utf8_lpad")
def _lpad(call, a, t):
    """Spark's lpad cuts a longer value to the width; Arrow's leaves it whole."""
    values = options_of(call)
    width, padding = int(values["width"]), values.get("padding", " ")
    return F.when(F.char_length(a[0]) >= width, a[0]).otherwise(F.lpad(a[0], width, padding))


@register("extract_regex")
def _extract_regex(call, a, t):
    """A struct of the named groups (null where the text does not match; a group that
    took no part is empty, as in both): Spark's regexp_extract per group. The pattern's
    RE2 named groups `(?P<name>` are Java's `(?<name>`."""
    pattern = options_of(call)["pattern"]
    names = re.findall(r"\(\?P<(\w+)>", pattern)
    java = pattern.replace("(?P<", "(?<")
    groups = [F.regexp_extract(a[0], java, i + 1).alias(n) for i, n in enumerate(names)]
    return F.when(a[0].rlike(java), F.struct(*groups))
