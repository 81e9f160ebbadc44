"""Translators of casts to pyspark Columns."""

from __future__ import annotations

import pyarrow.types as pat

from ....model.options import cast_target
from ..types import to_spark_type
from .common import (
    F,
    fail,
    is_float,
    options_of,
    register,
)


@register("cast")
def _cast(call, a, t):
    target = cast_target(call.options)
    source = t[0]
    # Arrow casts a date32 to and from its day number; Spark has functions for that
    if pat.is_date32(source) and pat.is_integer(target):
        return F.unix_date(a[0]).cast(to_spark_type(target))
    if pat.is_integer(source) and pat.is_date32(target):
        return F.date_from_unix_date(a[0])
    out = a[0].cast(to_spark_type(target))
    safe = not options_of(call).get("allow_float_truncate", False)
    if is_float(source) and pat.is_integer(target) and safe:
        # Arrow's safe cast refuses to drop a fraction; Spark truncates
        return F.when(a[0] != F.floor(a[0]), fail(
            f"cast: float value would be truncated converting to {target}")).otherwise(out)
    return out
