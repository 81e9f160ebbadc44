"""Arrow scalars as Spark literals of exactly their type: the leaves of every translation."""

from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pyarrow.types as pat

from ..errors import SparkTranslationError
from .types import to_spark_type

__all__ = ["literal_column"]


def literal_column(value):
    """A Spark literal with exactly the Arrow scalar's type (typed nulls included)."""
    from pyspark.sql import functions as F  # pyspark loads on first use, not on import

    if isinstance(value, pa.Array):
        raise SparkTranslationError("cannot translate an array literal to Spark")
    t = value.type
    spark_type = to_spark_type(t)
    if not value.is_valid:
        return F.lit(None).cast(spark_type)
    py = value.as_py()
    if pat.is_timestamp(t):
        # through text: Python datetimes would pass the driver's local time zone
        text = value.cast(pa.timestamp("us", t.tz)).as_py().isoformat()
        return F.lit(text).cast(spark_type)
    if pat.is_date(t):
        return F.lit(value.cast(pa.date32()).as_py().isoformat()).cast(spark_type)
    if pat.is_duration(t):
        micros = value.cast(pa.duration("us")).value
        return F.lit(datetime.timedelta(microseconds=micros))
    if pat.is_decimal(t):
        return F.lit(decimal.Decimal(py)).cast(spark_type)
    if pat.is_floating(t):
        return F.lit(float(py)).cast(spark_type)
    if pat.is_struct(t):
        return F.struct(*[literal_column(value[f.name]).alias(f.name) for f in t])
    if pat.is_list(t) or pat.is_large_list(t):
        return F.array(*[literal_column(v) for v in value.values]).cast(spark_type)
    return F.lit(py).cast(spark_type)
