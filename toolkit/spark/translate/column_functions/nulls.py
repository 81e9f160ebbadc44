"""Translators of the null tests to pyspark Columns."""

from __future__ import annotations

from .common import (
    F,
    is_float,
    options_of,
    register,
)


@register("is_null")
def _is_null(call, a, t):
    if options_of(call).get("nan_is_null") and is_float(t[0]):
        return a[0].isNull() | F.isnan(a[0])
    return a[0].isNull()


@register("is_valid")
def _is_valid(call, a, t):
    return a[0].isNotNull()


@register("is_nan")
def _is_nan(call, a, t):
    if t[0] is not None and not is_float(t[0]):
        return F.when(a[0].isNotNull(), F.lit(False))
    return F.when(a[0].isNotNull(), F.isnan(a[0]))


@register("true_unless_null")
def _true_unless_null(call, a, t):
    return F.when(a[0].isNotNull(), F.lit(True))


@register("coalesce")
def _coalesce(call, a, t):
    return F.coalesce(*a) if len(a) > 1 else a[0]
