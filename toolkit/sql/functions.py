"""The one table of SQL function names and the Arrow calls they stand for.

`parse` looks a SQL name up here to build an Arrow call (`upper(s)` ->
`utf8_upper(s)`, `round(x, 2)` -> `round(x, {ndigits=2, ...})`); `to_sql` uses
the same entries backwards to print a call in the SQL spelling, so the two
cannot drift apart. A name that is not in the table is kept as written
(binding reports it if no such function exists).

Arrow options that have no SQL syntax are written as keyword arguments of the
Arrow function, `is_null(x, nan_is_null => TRUE)`; the option class comes from
pyarrow's own function documentation, so this works for any pyarrow function.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ArgumentError, ExprscopeError
from ..model.expression import Call, Expression, Literal
from ..model.options import option_values, options_to_string

__all__ = [
    "DATE_DIFF_UNITS",
    "EXTRACT_UNITS",
    "ROUND_MODES",
    "SQL_FUNCTIONS",
    "ArgumentError",
    "SqlFunction",
    "entries_for",
    "kwargs_for_options",
    "options_from_kwargs",
]

INT64_MAX = 2**63 - 1
ROUND_MODES = ("half_to_even", "down", "up", "towards_zero", "towards_infinity", "half_down",
               "half_up", "half_towards_zero", "half_towards_infinity", "half_to_odd")


@dataclass(frozen=True)
class SqlFunction:
    """One SQL function: its spellings (the first is printed) and the Arrow call it builds.

    `build(args)` makes the Arrow call from the SQL arguments; `unbuild(call)`
    gives the SQL arguments back for a call it fits, or None.
    """

    names: tuple[str, ...]
    arrow_name: str
    build: Callable[[list[Expression]], Expression]
    unbuild: Callable[[Call], list[Expression] | None]


# -- argument helpers ------------------------------------------------------------------
def _arity(name: str, args: list, low: int, high: int | None) -> None:
    n = len(args)
    if n < low or (high is not None and n > high):
        if high is None:
            want = f"at least {low}"
        elif low == high:
            want = str(low)
        else:
            want = f"{low} to {high}"
        raise ArgumentError(f"{name}() takes {want} argument{'s' if want != '1' else ''}, got {n}")


def _int_arg(name: str, args: list, i: int, what: str) -> int:
    a = args[i]
    if not (a.is_literal and a.is_scalar and pa.types.is_integer(a.type) and a.value.is_valid):
        raise ArgumentError(f"the {what} of {name}() must be an integer constant", i)
    return a.value.as_py()


def _str_arg(name: str, args: list, i: int, what: str) -> str:
    a = args[i]
    if not (a.is_literal and a.is_scalar and pa.types.is_string(a.type) and a.value.is_valid):
        raise ArgumentError(f"the {what} of {name}() must be a string constant", i)
    return a.value.as_py()


def _is_plain(call: Call, n: int | None = None) -> bool:
    return call.options is None and (n is None or len(call.args) == n)


# -- entry makers -----------------------------------------------------------------------
def _renamed(names: tuple[str, ...], arrow: str, low: int, high: int | None = -1) -> SqlFunction:
    """A function that only changes its name (arity low..high; high=-1 means exactly low)."""
    high = low if high == -1 else high

    def build(args):
        _arity(names[0], args, low, high)
        return Call(arrow, args)

    def unbuild(call):
        n = len(call.args)
        ok = call.options is None and n >= low and (high is None or n <= high)
        return list(call.args) if ok else None

    return SqlFunction(names, arrow, build, unbuild)


def _round() -> SqlFunction:
    def build(args):
        _arity("round", args, 1, 3)
        ndigits = _int_arg("round", args, 1, "number of digits") if len(args) > 1 else 0
        mode = "half_to_even"
        if len(args) > 2:
            mode = _str_arg("round", args, 2, "rounding mode").lower()
            if mode not in ROUND_MODES:
                raise ArgumentError(f"unknown rounding mode {mode!r}; one of {', '.join(ROUND_MODES)}", 2)
        return Call("round", args[:1], pc.RoundOptions(ndigits=ndigits, round_mode=mode))

    def unbuild(call):
        if not (isinstance(call.options, pc.RoundOptions) and len(call.args) == 1):
            return None
        ndigits = option_values(call.options)["ndigits"]
        for mode in ROUND_MODES:
            if pc.RoundOptions(ndigits=ndigits, round_mode=mode) == call.options:
                digits = Literal(pa.scalar(ndigits, pa.int64()))
                if mode == "half_to_even":
                    return [call.args[0], digits]
                return [call.args[0], digits, Literal(pa.scalar(mode))]
        return None

    return SqlFunction(("round",), "round", build, unbuild)


def _substr() -> SqlFunction:
    """SQL counts from 1 and takes a length; Arrow counts from 0 and takes a stop."""

    def build(args):
        _arity("substr", args, 2, 3)
        start = _int_arg("substr", args, 1, "start")
        if start == 0:
            raise ArgumentError("substr() counts from 1 (a negative start counts from the end)", 1)
        if len(args) == 2:
            options = pc.SliceOptions(start=start - 1 if start > 0 else start)
        else:
            length = _int_arg("substr", args, 2, "length")
            if length < 0:
                raise ArgumentError("the length of substr() must not be negative", 2)
            if start < 0:
                raise ArgumentError("substr() with a length needs a start counted from 1", 1)
            options = pc.SliceOptions(start=start - 1, stop=start - 1 + length)
        return Call("utf8_slice_codeunits", args[:1], options)

    def unbuild(call):
        if not (isinstance(call.options, pc.SliceOptions) and len(call.args) == 1):
            return None
        v = option_values(call.options)
        start, stop, step = v["start"], v["stop"], v["step"]
        if step != 1:
            return None
        first = Literal(pa.scalar(start + 1 if start >= 0 else start, pa.int64()))
        if stop == INT64_MAX:
            return [call.args[0], first]
        if start >= 0 and stop >= start:
            return [call.args[0], first, Literal(pa.scalar(stop - start, pa.int64()))]
        return None

    return SqlFunction(("substr", "substring"), "utf8_slice_codeunits", build, unbuild)


def _match(name: str, arrow: str | None = None, names: tuple[str, ...] = ()) -> SqlFunction:
    """`name(x, 'pattern')`: Arrow's matcher with the pattern in MatchSubstringOptions."""
    arrow = arrow or name

    def build(args):
        _arity(name, args, 2, 2)
        pattern = _str_arg(name, args, 1, "pattern")
        return Call(arrow, args[:1], pc.MatchSubstringOptions(pattern))

    def unbuild(call):
        if not (isinstance(call.options, pc.MatchSubstringOptions) and len(call.args) == 1):
            return None
        values = option_values(call.options)
        if values["ignore_case"] or values["pattern"] is None:
            return None
        return [call.args[0], Literal(pa.scalar(values["pattern"]))]

    return SqlFunction((name, *names), arrow, build, unbuild)


# date_diff('unit', start, end): the unit names and the Arrow function counting them
DATE_DIFF_UNITS = {
    "year": "years_between", "quarter": "quarters_between", "week": "weeks_between",
    "day": "days_between", "hour": "hours_between", "minute": "minutes_between",
    "second": "seconds_between", "millisecond": "milliseconds_between",
    "microsecond": "microseconds_between", "nanosecond": "nanoseconds_between",
}


def _date_diff(unit: str) -> SqlFunction:
    """`date_diff('day', start, end)`: the unit boundaries crossed, Arrow's `*_between`.

    `datediff(end, start)` with two arguments counts days (the end comes first, as
    in Spark and MySQL). One entry per unit so `to_sql` prints each `*_between`
    back with its unit; the day entry is the one `parse` reads every unit with.
    """
    arrow = DATE_DIFF_UNITS[unit]

    def build(args):
        if len(args) == 2:
            return Call("days_between", [args[1], args[0]])
        _arity("date_diff", args, 2, 3)
        given = _str_arg("date_diff", args, 0, "unit").lower()
        given = given.removesuffix("s")
        if given not in DATE_DIFF_UNITS:
            raise ArgumentError(f"date_diff(): unknown unit {given!r}; one of "
                                f"{', '.join(DATE_DIFF_UNITS)}", 0)
        return Call(DATE_DIFF_UNITS[given], args[1:])

    def unbuild(call):
        return [Literal(pa.scalar(unit)), *call.args] if _is_plain(call, 2) else None

    return SqlFunction(("date_diff", "datediff"), arrow, build, unbuild)


def _is_empty_separator(e: Expression) -> bool:
    return e.is_literal and e.is_scalar and e.type == pa.string() and e.value.as_py() == ""


def _concat() -> SqlFunction:
    """concat(a, b) joins with an empty separator (Arrow takes the separator last)."""

    def build(args):
        _arity("concat", args, 1, None)
        return Call("binary_join_element_wise", [*args, Literal(pa.scalar(""))])

    def unbuild(call):
        if _is_plain(call) and len(call.args) >= 2 and _is_empty_separator(call.args[-1]):
            return list(call.args[:-1])
        return None

    return SqlFunction(("concat",), "binary_join_element_wise", build, unbuild)


def _concat_ws() -> SqlFunction:
    def build(args):
        _arity("concat_ws", args, 2, None)
        return Call("binary_join_element_wise", [*args[1:], args[0]])

    def unbuild(call):
        if _is_plain(call) and len(call.args) >= 2:
            return [call.args[-1], *call.args[:-1]]
        return None

    return SqlFunction(("concat_ws",), "binary_join_element_wise", build, unbuild)


def _build_table(entries: list[SqlFunction]) -> dict[str, SqlFunction]:
    table: dict[str, SqlFunction] = {}
    for entry in entries:
        for name in entry.names:
            assert name not in table, name
            table[name] = entry
    return table


_ENTRIES = [
    _renamed(("upper", "ucase"), "utf8_upper", 1),
    _renamed(("lower", "lcase"), "utf8_lower", 1),
    _renamed(("length", "char_length", "character_length"), "utf8_length", 1),
    _renamed(("trim",), "utf8_trim_whitespace", 1),
    _renamed(("ltrim",), "utf8_ltrim_whitespace", 1),
    _renamed(("rtrim",), "utf8_rtrim_whitespace", 1),
    _renamed(("reverse",), "utf8_reverse", 1),
    _match("starts_with"),
    _match("ends_with"),
    _match("regexp_like", "match_substring_regex", ("regexp_matches",)),
    _renamed(("octet_length",), "binary_length", 1),
    _substr(),
    _concat(),
    _concat_ws(),
    _renamed(("abs",), "abs", 1),
    _round(),
    _renamed(("floor",), "floor", 1),
    _renamed(("ceil", "ceiling"), "ceil", 1),
    _renamed(("sqrt",), "sqrt", 1),
    _renamed(("power", "pow"), "power", 2),
    _renamed(("ln",), "ln", 1),
    _renamed(("exp",), "exp", 1),
    _renamed(("sign",), "sign", 1),
    _renamed(("mod",), "remainder", 2),  # SQL's mod keeps the dividend's sign, as remainder
    _renamed(("greatest",), "max_element_wise", 1, None),  # both skip nulls
    _renamed(("least",), "min_element_wise", 1, None),
    _renamed(("is_finite", "isfinite"), "is_finite", 1),
    _renamed(("is_inf", "isinf"), "is_inf", 1),
    _renamed(("coalesce",), "coalesce", 1, None),
    _renamed(("ifnull", "nvl"), "coalesce", 2),
    _renamed(("year",), "year", 1),
    _renamed(("quarter",), "quarter", 1),
    _renamed(("month",), "month", 1),
    _renamed(("day", "dayofmonth"), "day", 1),
    _renamed(("day_of_week", "dayofweek"), "day_of_week", 1),
    _renamed(("day_of_year", "dayofyear"), "day_of_year", 1),
    _renamed(("hour",), "hour", 1),
    _renamed(("minute",), "minute", 1),
    _renamed(("second",), "second", 1),
    _renamed(("millisecond",), "millisecond", 1),
    _renamed(("microsecond",), "microsecond", 1),
    _renamed(("nanosecond",), "nanosecond", 1),
    _date_diff("day"),
]
# printed by to_sql only: parse reads every unit through the day entry above
_PRINTED_ONLY = [_date_diff(unit) for unit in DATE_DIFF_UNITS if unit != "day"]

SQL_FUNCTIONS: dict[str, SqlFunction] = _build_table(_ENTRIES)

_BY_ARROW: dict[str, list[SqlFunction]] = {}
for _entry in _ENTRIES + _PRINTED_ONLY:
    _BY_ARROW.setdefault(_entry.arrow_name, []).append(_entry)


def entries_for(arrow_name: str) -> list[SqlFunction]:
    """The table entries that build calls of `arrow_name`, preferred spelling first."""
    return _BY_ARROW.get(arrow_name, [])


# EXTRACT(unit FROM x): the unit names and the Arrow function each one calls
EXTRACT_UNITS = {
    "YEAR": "year", "QUARTER": "quarter", "MONTH": "month", "DAY": "day", "HOUR": "hour",
    "MINUTE": "minute", "SECOND": "second", "MILLISECOND": "millisecond",
    "MICROSECOND": "microsecond", "NANOSECOND": "nanosecond", "DOW": "day_of_week",
    "DAYOFWEEK": "day_of_week", "DOY": "day_of_year", "DAYOFYEAR": "day_of_year",
}


# -- options as keyword arguments ---------------------------------------------------------
def options_class_of(function_name: str) -> type | None:
    """The FunctionOptions class pyarrow documents for a function (None if it has none)."""
    try:
        doc = pc.get_function(function_name)._doc
    except (KeyError, pa.ArrowException, AttributeError):
        return None
    name = getattr(doc, "options_class", "") or ""
    return getattr(pc, name, None) if name else None


def options_from_kwargs(function_name: str, kwargs: dict[str, object]) -> pc.FunctionOptions:
    """`f(x, key => value)`: the options of pyarrow function `f` built from the keywords."""
    cls = options_class_of(function_name)
    if cls is None:
        raise ArgumentError(
            f"{function_name}() takes no keyword options (it is not a pyarrow function with options)")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError, pa.ArrowException) as exc:
        raise ArgumentError(f"bad options for {function_name}() ({cls.__name__}): {exc}") from None


# TimeUnit prints as SECOND, MILLI, ...; options take "s", "ms", ...
_TIME_UNIT_NAMES = {"second": "s", "milli": "ms", "micro": "us", "nano": "ns"}


def kwargs_for_options(options: pc.FunctionOptions) -> dict[str, object]:
    """Keyword arguments that rebuild `options` exactly, or an ExprscopeError saying why not."""
    values = option_values(options)
    text = options_to_string(options)
    kwargs: dict[str, object] = {}
    for key, value in values.items():
        if isinstance(value, (bool, float, str)):
            kwargs[key] = value
        elif isinstance(value, int):
            # enums serialize as numbers but are built from their (lower-case) names
            m = re.search(rf"(?:^|[{{ ]){re.escape(key)}=([A-Z][A-Z_0-9]*)(?:[,}}])", text)
            name = m.group(1).lower() if m else value
            kwargs[key] = _TIME_UNIT_NAMES.get(name, name) if key == "unit" else name
        else:
            raise ExprscopeError(
                f"options {text} have no SQL text: {key}={value!r} is not a number, string or boolean")
    try:
        rebuilt = type(options)(**kwargs)
    except (TypeError, ValueError, pa.ArrowException) as exc:
        raise ExprscopeError(f"options {text} have no SQL text: {exc}") from None
    if rebuilt != options:
        raise ExprscopeError(f"options {text} have no SQL text (keywords do not rebuild them)")
    return kwargs
