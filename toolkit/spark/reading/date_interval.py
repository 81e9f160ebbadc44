"""Spark's `date ± interval` as exprscope expressions, row by row, with Arrow's kernels.

Arrow has no kernel that adds months to a date, so `add_months(d, n)` (what Spark's
`d + INTERVAL n MONTH`, `DateAddYMInterval`, computes) is built from ones it has:
the month index `t = year*12 + month-1 + n`, the first day of month `t` as days
since 1970 by Howard Hinnant's `days_from_civil` (integer arithmetic, exact for every
proleptic Gregorian year >= 0), the first day of the month after it
(`floor_temporal` of 31 days later) and Spark's end-of-month rule: the day of `d`,
clamped to the last day of the target month (Jan 31 + 1 month = Feb 29 in 2024).
A day count (`date_add`, `d - INTERVAL '3' DAY`) is added to the date's days.
A timestamp plus months (`TimestampAddYMInterval`) moves its wall-clock date in the
session's time zone by that rule and keeps the time of day; the new wall-clock time is
placed back on the time line as `java.time`'s `atZone` does (an overlap takes the
earlier offset, a gap moves the time later by the gap's length). Arrow's time zone
kernels know a zone's offsets only up to the last transition its zone file lists (2037
for the system's files), where `java.time` extends the daylight-saving rule forever: in
a zone with daylight saving, a timestamp after 2037 is an hour off from Spark's in the
summer months, as every Arrow time zone kernel is.
A year-month interval is its number of months (int32), as Spark stores it.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk

__all__ = [
    "add_days",
    "add_months",
    "add_months_to_timestamp",
    "day_time_interval",
    "instant_of_wall_clock",
    "months_of",
]

_MONTH = pc.RoundTemporalOptions(unit="month")
_DAY = pc.RoundTemporalOptions(unit="day")


def _int(x) -> tk.Expression:
    return tk.literal(pa.scalar(x, pa.int64()))


def _call(name: str, *args) -> tk.Expression:
    return tk.call(name, [a if isinstance(a, tk.Expression) else _int(a) for a in args])


def _first_day_of_month(month_index: tk.Expression) -> tk.Expression:
    """Days since 1970-01-01 of the first day of month `year*12 + month-1` (int64)."""
    m0 = _call("modulo", month_index, 12)  # 0 = January
    year = _call("divide", _call("subtract", month_index, m0), 12)
    y = _call("subtract", year, tk.cast(_call("less", m0, 2), pa.int64()))  # March-based
    yoe = _call("modulo", y, 400)
    era = _call("divide", _call("subtract", y, yoe), 400)
    day_of_year = _call("divide", _call("add", _call("multiply", _call("modulo",
                                                                       _call("add", m0, 10),
                                                                       12), 153), 2), 5)
    day_of_era = _call("add", _call("subtract", _call("add", _call("multiply", yoe, 365),
                                                      _call("divide", yoe, 4)),
                                    _call("divide", yoe, 100)), day_of_year)
    return _call("subtract", _call("add", _call("multiply", era, 146097), day_of_era), 719468)


def _as_date(days: tk.Expression) -> tk.Expression:
    return tk.cast(tk.cast(days, pa.int32()), pa.date32())


def _days(date: tk.Expression) -> tk.Expression:
    return tk.cast(tk.cast(date, pa.int32()), pa.int64())


def add_months(date: tk.Expression, months: tk.Expression) -> tk.Expression:
    """Spark's `add_months(date, months)`: the same day `months` months later, or the last
    day of that month when it is shorter (null when either is null)."""
    index = _call("add_checked", _call("add", _call("multiply", tk.call("year", [date]), 12),
                                       _call("subtract", tk.call("month", [date]), 1)),
                  tk.cast(months, pa.int64()))
    first = _first_day_of_month(index)
    next_first = _days(tk.call("floor_temporal", [_as_date(_call("add", first, 31))],
                               _MONTH))
    same_day = _call("subtract", _call("add", first, tk.call("day", [date])), 1)
    return _as_date(tk.call("min_element_wise", [same_day, _call("subtract", next_first, 1)]))


def add_months_to_timestamp(timestamp: tk.Expression, months: tk.Expression,
                            zone: str | None) -> tk.Expression:
    """Spark's `timestamp + INTERVAL n MONTH`: `add_months` on the wall-clock date in `zone`
    (None for a timestamp without time zone), the time of day kept."""
    if zone is None:
        return _wall_clock_plus_months(timestamp, months)
    wall = tk.call("local_timestamp", [tk.cast(timestamp, pa.timestamp("us", zone))])
    return instant_of_wall_clock(_wall_clock_plus_months(wall, months), zone)


def instant_of_wall_clock(wall: tk.Expression, zone: str) -> tk.Expression:
    """The instant (timestamp[us, UTC]) a naive wall-clock time names in `zone`, as Java's
    ZonedDateTime reads it: in an overlap the earlier offset, in a gap the offset before
    it (02:30 in a 02:00-03:00 gap is 03:30)."""
    # the offset in force at the wall-clock time; in a gap, the one just before it
    before = tk.call("assume_timezone", [wall], pc.AssumeTimezoneOptions(
        zone, ambiguous="earliest", nonexistent="earliest"))
    offset = tk.call("subtract", [tk.call("local_timestamp", [before]),
                                  tk.cast(before, pa.timestamp("us"))])
    instant = tk.call("subtract_checked", [wall, offset])
    return tk.cast(instant, pa.timestamp("us", "UTC"))


def _wall_clock_plus_months(wall: tk.Expression, months: tk.Expression) -> tk.Expression:
    """A naive timestamp's date moved by `add_months`, its time of day kept."""
    midnight = tk.call("floor_temporal", [wall], _DAY)
    time_of_day = tk.call("subtract", [wall, midnight])
    moved_date = add_months(tk.cast(midnight, pa.date32()), months)
    return tk.call("add_checked", [tk.cast(moved_date, pa.timestamp("us")), time_of_day])


def add_days(date: tk.Expression, days: tk.Expression, subtract: bool = False) -> tk.Expression:
    """`date_add(date, days)` (`date_sub` with `subtract`): failing on overflow, as ANSI Spark."""
    count = tk.cast(days, pa.int32())
    return tk.cast(tk.call("subtract_checked" if subtract else "add_checked",
                           [tk.cast(date, pa.int32()), count]), pa.date32())


def day_time_interval(days: tk.Expression, hours: tk.Expression, minutes: tk.Expression,
                      seconds: tk.Expression) -> tk.Expression:
    """Spark's `make_dt_interval(days, hours, mins, secs)`: a duration in microseconds,
    failing on overflow as Spark does (`secs` is a decimal(18, 6), exact in microseconds)."""
    total = tk.cast(tk.call("multiply_checked", [
        seconds, tk.literal(pa.scalar(1_000_000, pa.decimal128(7, 0)))]), pa.int64())
    for part, micros in ((days, 86_400_000_000), (hours, 3_600_000_000), (minutes, 60_000_000)):
        total = _call("add_checked", total, _call("multiply_checked",
                                                  tk.cast(part, pa.int64()), micros))
    return tk.cast(total, pa.duration("us"))


def months_of(literal_value) -> tk.Expression:
    """A year-month interval constant (Spark's Int of months) as an int32 literal."""
    return tk.literal(pa.scalar(None if literal_value is None else int(literal_value),
                                pa.int32()))
