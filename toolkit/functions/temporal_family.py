"""Temporal functions beyond field extraction: parsing, formatting, rounding, differences.

Signatures come from pyarrow's registry (`derive`); Arrow gives these no
implicit casts. The rounding functions keep their input's type,
`assume_timezone` gives the options' time zone and `local_timestamp` drops it.
What can fail on a row: `strptime` (a string that does not parse, unless
error_is_null), `strftime` (a time zone the database lacks), `assume_timezone`
(ambiguous or nonexistent local times, by default) and rounding in a time zone
(a rounded local time that does not exist).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..model.options import option_values
from . import temporal  # noqa: F401  (the hand-written functions register first)
from .derive import Family, define_family, first_type
from .function import NullHandling
from .types import computed

__all__ = ["TEMPORAL_NAMES"]

_NAMES = sorted(
    n for n in pc.list_functions()
    if n.endswith(("_between", "_temporal")) or n in (
        "strptime", "strftime", "iso_week", "iso_year", "iso_calendar", "us_week", "us_year",
        "week", "year_month_day", "is_leap_year", "is_dst", "subsecond", "assume_timezone",
        "local_timestamp"))
_CAN_FAIL = ("strptime", "strftime", "assume_timezone", "round_temporal", "floor_temporal",
             "ceil_temporal")


def _can_fail(name: str, inputs) -> bool:
    return name in _CAN_FAIL


def _assumed_zone(types, options) -> pa.DataType:
    zone = option_values(options)["timezone"] if options is not None else None
    return pa.timestamp(types[0].unit, zone)


def _computed(name: str, inputs):
    if name.endswith("_temporal"):
        return first_type(name, inputs)
    if name == "assume_timezone":
        return computed("timestamp(unit, the options' time zone)", _assumed_zone)
    if name == "local_timestamp":
        return computed("timestamp(unit) without a time zone",
                        lambda types, options: pa.timestamp(types[0].unit))
    return None


TEMPORAL_NAMES = define_family(
    Family("temporal", None, lambda name: NullHandling.INTERSECTION, _can_fail, _computed),
    _NAMES)
