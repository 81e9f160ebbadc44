"""Translators of the logic functions to pyspark Columns."""

from __future__ import annotations

from .common import (
    F,
    register,
)


@register("and_kleene")
def _and_kleene(call, a, t):
    return a[0] & a[1]


@register("or_kleene")
def _or_kleene(call, a, t):
    return a[0] | a[1]


def _null_if_any_null(call, args, value):
    cond = args[0].isNull()
    for col in args[1:]:
        cond = cond | col.isNull()
    return F.when(cond, F.lit(None).cast("boolean")).otherwise(value)


@register("and")
def _and(call, a, t):
    return _null_if_any_null(call, a, a[0] & a[1])


@register("or")
def _or(call, a, t):
    return _null_if_any_null(call, a, a[0] | a[1])


@register("xor")
def _xor(call, a, t):
    return a[0] != a[1]  # null in, null out: as Arrow


@register("and_not")
def _and_not(call, a, t):
    return _null_if_any_null(call, a, a[0] & ~a[1])


@register("and_not_kleene")
def _and_not_kleene(call, a, t):
    return a[0] & ~a[1]


@register("invert")
def _invert(call, a, t):
    return ~a[0]
