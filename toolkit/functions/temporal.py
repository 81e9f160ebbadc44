"""Temporal field extraction: year, quarter, month, day, day_of_week, day_of_year, hour, ...

Every one returns int64, as Arrow's kernels do. Dates and timestamps of any unit
(time zone aware: fields are read in local time) are accepted; the time-of-day
fields also accept time32/time64. Arithmetic on timestamps and dates (plus or
minus a duration, date minus date) lives in `arithmetic`.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .function import Kernel
from .registry import definer
from .types import TIME_UNITS, exact, fixed, timestamp_unit

define = definer("temporal")

__all__: list[str] = []

_INT64 = fixed(pa.int64())
_DATES = [exact(pa.date32()), exact(pa.date64())]
_TIMES = [exact(t) for t in (pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns"))]
_TIMESTAMPS = [timestamp_unit(u) for u in TIME_UNITS]

for _name, _doc in [("year", "The year number."), ("month", "The month number (1-12)."),
                    ("day", "The day of the month (1-31)."), ("quarter", "The quarter (1-4)."),
                    ("day_of_year", "The day of the year (1-366).")]:
    define(_name, [Kernel(_name, (p,), _INT64) for p in _DATES + _TIMESTAMPS], _doc)

define("day_of_week", [Kernel("day_of_week", (p,), _INT64) for p in _DATES + _TIMESTAMPS],
       "The day of the week (Monday=0 by default; see DayOfWeekOptions).",
       options_class=pc.DayOfWeekOptions, default_options=pc.DayOfWeekOptions())

for _name, _doc in [("hour", "The hour (0-23)."), ("minute", "The minute (0-59)."),
                    ("second", "The second (0-59)."),
                    ("millisecond", "The millisecond within the second (0-999)."),
                    ("microsecond", "The microsecond within the millisecond (0-999)."),
                    ("nanosecond", "The nanosecond within the microsecond (0-999).")]:
    define(_name, [Kernel(_name, (p,), _INT64) for p in _TIMES + _TIMESTAMPS], _doc)
del _name, _doc
