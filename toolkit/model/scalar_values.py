"""A scalar's Python value, even where Python's datetime cannot hold it.

Arrow's timestamps, dates and durations reach far past Python's `datetime`
(years 1 to 9999, days within a billion): a Parquet statistic or a literal of
INT64_MAX ("infinity" in many files) is a valid Arrow value, yet `as_py()`
raises OverflowError on it. Everything that only needs a value to hash,
compare or show asks `python_value`, which falls back to the stored integer.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["physical_int", "python_value", "value_text"]


def physical_int(scalar: pa.Scalar) -> int | None:
    """The integer Arrow stores for a temporal scalar (None for null or other types)."""
    t = scalar.type
    if not scalar.is_valid or not (pa.types.is_temporal(t) and not pa.types.is_interval(t)):
        return None
    width = pa.int32() if t.bit_width == 32 else pa.int64()
    return scalar.cast(width).as_py()


def python_value(scalar: pa.Scalar):
    """`scalar.as_py()`, or for a temporal value Python cannot hold, the pair
    (Arrow type text, stored integer): distinct values stay distinct and equal ones equal."""
    try:
        return scalar.as_py()
    except (OverflowError, ValueError):
        raw = physical_int(scalar)
        if raw is None:
            raise
        return (str(scalar.type), raw)


def value_text(scalar: pa.Scalar) -> str:
    """`str(scalar.as_py())`, or Arrow's own text for a temporal value Python cannot hold."""
    value = python_value(scalar)
    if isinstance(value, tuple):
        return str(pc.scalar(scalar))
    return str(value)
