"""Translators of the temporal functions to pyspark Columns."""

from __future__ import annotations

import pyarrow.types as pat

from ..types import to_spark_type
from .common import (
    TRANSLATORS,
    F,
    as_call_type,
    options_of,
    register,
    untranslatable,
)


def _temporal(spark_name):
    def translate(call, a, t):
        return as_call_type(call, getattr(F, spark_name)(a[0])).cast(
            to_spark_type(call.type) if call.type is not None else "long")

    return translate


for _name, _spark in {"year": "year", "month": "month", "day": "dayofmonth", "hour": "hour",
                      "minute": "minute", "second": "second", "quarter": "quarter",
                      "day_of_year": "dayofyear"}.items():
    TRANSLATORS[_name] = _temporal(_spark)


def _micros_of_second(column):
    """Microseconds within the second (time zones move whole seconds, so any zone will do)."""
    return F.pmod(F.unix_micros(column.cast("timestamp")), F.lit(1_000_000))


@register("millisecond", "microsecond", "nanosecond")
def _subsecond(call, a, t):
    """Arrow: ms within the second, us within the ms, ns within the us (Spark keeps us only)."""
    micros = _micros_of_second(a[0])
    if call.name == "millisecond":
        out = F.floor(micros / 1000)
    elif call.name == "microsecond":
        out = F.pmod(micros, F.lit(1000))
    else:
        if t[0] is not None and pat.is_timestamp(t[0]) and t[0].unit == "ns":
            raise untranslatable("nanosecond", "Spark keeps timestamps in microseconds")
        out = F.when(a[0].isNotNull(), F.lit(0))
    return as_call_type(call, out).cast(
        to_spark_type(call.type) if call.type is not None else "long")


@register("day_of_week")
def _day_of_week(call, a, t):
    values = options_of(call)
    zero = bool(values.get("count_from_zero", True))
    week_start = int(values.get("week_start", 1))  # 1 = Monday ... 7 = Sunday
    monday0 = F.weekday(a[0])  # Spark: Monday = 0 ... Sunday = 6
    shifted = (monday0 - (week_start - 1) + 7) % 7 + (0 if zero else 1)
    return as_call_type(call, shifted).cast(
        to_spark_type(call.type) if call.type is not None else "long")
