"""Spark SQL functions (Catalyst classes) -> exprscope calls over Arrow's kernels.

One table, `CONVERTERS`, maps a Catalyst class name to a converter `(node, args)`,
where `args` are the node's children already converted. Each converter keeps SPARK's
semantics where Arrow's kernel differs:

- nulls: `concat` is null when any argument is; `concat_ws` skips null arguments;
  `greatest`/`least` skip nulls, and NaN is the largest double (Arrow's element-wise
  max ignores NaN).
- rounding: `round` is HALF_UP (away from zero), `bround` HALF_EVEN, on integers and
  decimals. A double is rounded by Spark through its shortest decimal text (1.005 ->
  1.01) where Arrow rounds the binary value (1.005 -> 1.0): refused.
- `ln`/`log10`/`log2`/`log(b, x)` of a non-positive number are null (Arrow: -inf/NaN);
  `pow` follows Java's Math.pow (pow(1, NaN) is NaN; C's is 1).
- `pmod` is never negative for a positive divisor (Spark's `(r + n) % n`).
- positions are 1-based characters, 0 when not found (`instr`, `locate`); `left`,
  `right`, `lpad`, `rpad`, `repeat` with a non-positive length give "".
- `trim` without characters trims spaces only (Spark), not all whitespace (Arrow's
  utf8_trim_whitespace).
- results carry Spark's types (`quarter`, `weekofyear`, `datediff` ... are int).
- regular expressions are Java's in Spark and RE2's in Arrow: a pattern is accepted
  only when it reads the same in both (see `java_regex`), else refused.
- ANSI mode: a zero divisor fails (`divide_checked`); `try_divide` gives null.

A RuntimeReplaceable expression whose one child is its replacement (`nvl`, `nvl2`,
`nullif`, `extract`, `positive`, `try_divide` ...) is that child. Functions that cannot
be exact are refused with the reason (`REFUSED`).
"""

from __future__ import annotations

import decimal
import math

import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk

from ..errors import SparkImportError
from ..translate.types import from_spark_type
from . import date_interval, java_regex
from .catalyst_nodes import children, class_name

__all__ = ["CONVERTERS", "HANDLED", "REFUSED", "convert", "decimal_constant"]


def _arrow_type(node) -> pa.DataType:
    from pyspark.sql.types import _parse_datatype_json_string

    return from_spark_type(_parse_datatype_json_string(node.dataType().json()))


def _type_name(node) -> str:
    return str(node.dataType().typeName())


def _refuse(node, why: str):
    name = class_name(node)
    raise SparkImportError(f"cannot import the Spark expression {name} "
                           f"({node.toString()}): {why}", spark_class=name)


def _constant(node, arg: tk.Expression, what: str):
    """The Python value of an argument Spark requires (or exprscope needs) to be constant."""
    if not arg.is_literal:
        _refuse(node, f"its {what} must be a constant, not {arg}")
    return arg.value.as_py()


def _eval_mode(node) -> str:
    from py4j.protocol import Py4JError

    try:
        return str(node.evalMode().toString())
    except Py4JError:
        return "LEGACY"


def _null(t: pa.DataType) -> tk.Expression:
    return tk.literal(None, t)


def _false_if_null(cond: tk.Expression) -> tk.Expression:
    return tk.coalesce(cond, tk.literal(False))


def _int32(e: tk.Expression) -> tk.Expression:
    return tk.cast(e, pa.int32())


def _string_only(node, args) -> None:
    for kid in children(node):
        if _type_name(kid) not in ("string", "null", "integer", "long"):
            _refuse(node, f"only strings are imported (an argument is {_type_name(kid)})")


# --- replacements and null handling ---------------------------------------------------

def _replacement(node, args) -> tk.Expression:
    """A RuntimeReplaceable whose one child is the expression Spark runs instead."""
    kids = children(node)
    if len(kids) != 1 or not kids[0].equals(node.replacement()):
        _refuse(node, "its children are not its replacement")
    return args[0]


def _null_if_result(node, args) -> tk.Expression:
    """nullif's body: null when the comparison is true, else the value."""
    return tk.if_else(_false_if_null(args[0]), _null(_arrow_type(node)), args[1])


def _nan_vl(node, args) -> tk.Expression:
    return tk.if_else(tk.call("is_nan", [args[0]]), args[1], args[0])


def _is_float(node) -> bool:
    return _type_name(node) in ("double", "float")


def _greatest(node, args, fn: str = "max_element_wise") -> tk.Expression:
    out = tk.call(fn, args, pc.ElementWiseAggregateOptions(skip_nulls=True))
    if _is_float(node) and fn == "max_element_wise":  # Spark: NaN is above every double
        any_nan = tk.literal(False)
        for a in args:
            any_nan = tk.call("or_kleene", [any_nan, _false_if_null(tk.call("is_nan", [a]))])
        out = tk.if_else(any_nan, tk.literal(pa.scalar(math.nan, _arrow_type(node))), out)
    return out


def _least(node, args) -> tk.Expression:  # Arrow's min skips NaN, as Spark's order puts it last
    return _greatest(node, args, "min_element_wise")


# --- arithmetic -----------------------------------------------------------------------

def _divide(node, args) -> tk.Expression:
    """Spark's `/` (and `div`): a zero divisor fails under ANSI and is null otherwise (Arrow's
    float division gives inf/NaN); an integral `div` is a long."""
    if _eval_mode(node) == "ANSI":
        out = tk.call("divide_checked", args)
    else:
        zero = tk.call("equal", [args[1], tk.literal(0, pa.int8())])
        out = tk.if_else(_false_if_null(zero), _null(_arrow_type(node)),
                         tk.call("divide", args))
    target = _arrow_type(node)
    if pa.types.is_decimal(target):
        return _decimal_divide(node, args, target)
    return tk.cast(out, target)


def _decimal_divide(node, args, target: pa.DataType) -> tk.Expression:
    """Spark rounds a decimal quotient HALF_UP to its result scale; Arrow's truncates it to
    max(4, s1 + p2 - s2 + 1) digits. The dividend is widened so that Arrow keeps one digit
    more than Spark's scale; that digit decides the HALF_UP rounding exactly."""
    (p1, s1), (p2, s2) = [(int(k.dataType().precision()), int(k.dataType().scale()))
                          for k in children(node)]
    wide_scale = max(s1, target.scale - p2 + s2)
    wide = pa.decimal128(p1 - s1 + wide_scale, wide_scale)
    quotient_scale = max(4, wide_scale + p2 - s2 + 1)
    if wide.precision > 38 or wide.precision - wide_scale + s2 + quotient_scale > 38:
        _refuse(node, "the quotient needs more than 38 digits in Arrow's decimal division")
    dividend = tk.cast(args[0], wide)
    if _eval_mode(node) == "ANSI":
        quotient = tk.call("divide_checked", [dividend, args[1]])
    else:
        zero = tk.call("equal", [args[1], tk.literal(0, pa.int8())])
        quotient = tk.if_else(_false_if_null(zero), _null(pa.decimal128(
            wide.precision - wide_scale + s2 + quotient_scale, quotient_scale)),
            tk.call("divide", [dividend, args[1]]))
    rounded = tk.call("round", [quotient], pc.RoundOptions(target.scale, "half_towards_infinity"))
    return tk.cast(rounded, target)


def _round(node, args, mode: str) -> tk.Expression:
    if _type_name(children(node)[0]) in ("double", "float"):
        _refuse(node, "Spark rounds a double through its shortest decimal text (1.005 -> "
                      "1.01) where Arrow rounds its binary value (1.005 -> 1.0)")
    scale = _constant(node, args[1], "scale")
    target = _arrow_type(node)
    if scale is None:
        return _null(target)
    value = args[0]
    source = children(node)[0].dataType()
    if _type_name(children(node)[0]).startswith("decimal"):
        # Arrow's decimal round gives 0 when rounding up needs one more digit than the type
        # has (99999999.99 as decimal(10, 2)): round in one digit more
        value = tk.cast(value, pa.decimal128(min(38, int(source.precision()) + 1),
                                             int(source.scale())))
    rounded = tk.call("round", [value], pc.RoundOptions(ndigits=scale, round_mode=mode))
    return tk.cast(rounded, target)


def _power(node, args) -> tk.Expression:
    """Java's Math.pow: |base| = 1 with a NaN or infinite exponent is NaN (C's pow gives 1)."""
    base, exponent = args
    odd = tk.call("and_kleene", [
        tk.call("equal", [tk.call("abs", [base]), tk.literal(1.0)]),
        tk.call("or_kleene", [tk.call("is_nan", [exponent]), tk.call("is_inf", [exponent])])])
    return tk.if_else(_false_if_null(odd), tk.literal(math.nan), tk.call("power", args))


def _logarithm(fn: str, floor: float = 0.0):
    def convert(node, args) -> tk.Expression:
        x = args[-1]
        out = tk.call(fn, [x])
        bad = tk.call("less_equal", [x, tk.literal(floor)])
        if len(args) == 2:  # log(base, x) = ln(x) / ln(base)
            out = tk.call("divide", [out, tk.call(fn, [args[0]])])
            bad = tk.call("or_kleene", [bad, tk.call("less_equal", [args[0], tk.literal(0.0)])])
        return tk.if_else(_false_if_null(bad), _null(pa.float64()), out)
    return convert


def _signum(node, args) -> tk.Expression:
    """Math.signum keeps a zero's sign."""
    x = args[0]
    return tk.if_else(_false_if_null(tk.call("equal", [x, tk.literal(0.0)])), x,
                      tk.call("sign", [x]))


def _pmod(node, args) -> tk.Expression:
    n = args[1]
    target = _arrow_type(node)
    if _eval_mode(node) == "ANSI":
        r = tk.call("remainder_checked", args)
    else:
        zero = tk.call("equal", [n, tk.literal(0, pa.int8())])
        r = tk.if_else(_false_if_null(zero), _null(target), tk.call("remainder", args))
    negative = tk.call("less", [r, tk.literal(0, pa.int8())])
    return tk.cast(tk.if_else(negative, tk.call("remainder", [tk.call("add", [r, n]), n]), r),
                   target)


def _bitwise(fn: str):
    def convert(node, args) -> tk.Expression:
        return tk.cast(tk.call(fn, args), _arrow_type(node))
    return convert


def _shift(fn: str):
    """Java's shift uses the count modulo the width (31 for an int, 63 for a long)."""
    def convert(node, args) -> tk.Expression:
        target = _arrow_type(node)
        width = target.bit_width
        count = tk.cast(tk.call("bit_wise_and", [tk.cast(args[1], target),
                                                 tk.literal(width - 1, target)]), target)
        return tk.call(fn, [tk.cast(args[0], target), count])
    return convert


def _constant_double(value: float):
    def convert(node, args) -> tk.Expression:
        return tk.literal(pa.scalar(value, pa.float64()))
    return convert


# --- strings --------------------------------------------------------------------------

def _concat(node, args) -> tk.Expression:
    if _type_name(node) != "string":
        _refuse(node, f"only strings are imported (this one is {_type_name(node)})")
    if not args:
        return tk.literal("")
    return tk.call("binary_join_element_wise", [*args, tk.literal("")])


def _concat_ws(node, args) -> tk.Expression:
    kept = []
    for kid, arg in zip(children(node), args):
        if arg.is_literal and not arg.value.is_valid and kept:
            continue  # a null argument (Spark types a bare NULL as an array) is skipped
        if _type_name(kid) not in ("string", "null"):
            _refuse(node, f"only string arguments are imported (one is {_type_name(kid)})")
        kept.append(arg)
    separator, parts = kept[0], kept[1:]
    if not parts:
        return tk.if_else(tk.is_valid(separator), tk.literal(""), _null(pa.string()))
    text = _constant(node, separator, "separator")
    if text is None:
        return _null(pa.string())
    # Arrow's skip mode drops a row whose parts are all null (its output is shorter than
    # its input): a leading "" keeps every row, and its separator is cut off again
    joined = tk.call("binary_join_element_wise", [tk.literal(""), *parts, separator],
                     pc.JoinOptions(null_handling="skip"))
    return _slice(joined, len(text))


def _trim(fn: str):
    def convert(node, args) -> tk.Expression:
        _string_only(node, args)
        if len(args) == 1:  # Spark trims spaces only
            return tk.call(fn, [args[0]], pc.TrimOptions(" "))
        characters = _constant(node, args[1], "trim characters")
        if characters is None:
            return _null(pa.string())
        if characters == "":
            return args[0]
        return tk.call(fn, [args[0]], pc.TrimOptions(characters))
    return convert


def _slice(s: tk.Expression, start: int, stop: int | None = None) -> tk.Expression:
    return tk.call("utf8_slice_codeunits", [s], pc.SliceOptions(start, stop))


def _pad(fn: str):
    """lpad/rpad: the result is exactly `len` characters (a longer string is cut to its
    first `len`); a non-positive length gives ""; an empty pad only cuts."""
    def convert(node, args) -> tk.Expression:
        _string_only(node, args)
        s = args[0]
        length = _constant(node, args[1], "length")
        pad = _constant(node, args[2], "pad")
        if length is None or pad is None:
            return _null(pa.string())
        if length <= 0 or pad == "":
            return _slice(s, 0, max(length, 0))
        if len(pad) != 1:
            _refuse(node, "a pad of more than one character (Arrow pads with one)")
        return _slice(tk.call(fn, [s], pc.PadOptions(length, pad)), 0, length)
    return convert


def _left(node, args) -> tk.Expression:
    n = _constant(node, args[1], "length")
    if n is None:
        return _null(pa.string())
    return _slice(args[0], 0, max(n, 0))


def _right(node, args) -> tk.Expression:
    n = _constant(node, args[1], "length")
    if n is None:
        return _null(pa.string())
    return _slice(args[0], 0, 0) if n <= 0 else _slice(args[0], -n)


def _repeat(node, args) -> tk.Expression:
    n = _constant(node, args[1], "count")
    if n is None:
        return _null(pa.string())
    return tk.call("binary_repeat", [args[0], tk.literal(max(n, 0), pa.int64())])


def _replace(node, args) -> tk.Expression:
    _string_only(node, args)
    search = _constant(node, args[1], "search string")
    replacement = _constant(node, args[2], "replacement")
    if search is None or replacement is None:
        return _null(pa.string())
    if search == "":  # Spark leaves the string as it is
        return args[0]
    return tk.call("replace_substring", [args[0]],
                   pc.ReplaceSubstringOptions(search, replacement))


def _position(s: tk.Expression, sub: str) -> tk.Expression:
    """1-based character position of `sub`'s first occurrence in `s`, 0 when absent
    (Arrow's find_substring counts bytes): the characters before it, plus one."""
    if sub == "":
        return tk.if_else(tk.is_valid(s), tk.literal(1, pa.int32()), _null(pa.int32()))
    before = tk.call("replace_substring_regex", [s], pc.ReplaceSubstringOptions(
        "(?s)" + java_regex.quote(sub) + ".*", "", max_replacements=1))
    found = tk.call("match_substring", [s], pc.MatchSubstringOptions(sub))
    return tk.if_else(found, _int32(tk.call("add", [tk.call("utf8_length", [before]),
                                                      tk.literal(1, pa.int32())])),
                      tk.literal(0, pa.int32()))


def _instr(node, args) -> tk.Expression:
    sub = _constant(node, args[1], "substring")
    return _null(pa.int32()) if sub is None else _position(args[0], sub)


def _locate(node, args) -> tk.Expression:
    """locate(sub, s, start): searched from character `start`; 0 for a start below 1 or null."""
    sub = _constant(node, args[0], "substring")
    start = _constant(node, args[2], "start")
    s = args[1]
    if start is None:
        return tk.literal(0, pa.int32())
    if sub is None:
        return _null(pa.int32())
    if start < 1:
        return tk.if_else(tk.is_valid(s), tk.literal(0, pa.int32()), _null(pa.int32()))
    if sub == "":
        return _position(s, sub)
    found = _position(_slice(s, start - 1), sub)
    return tk.if_else(tk.call("equal", [found, tk.literal(0, pa.int32())]), found,
                      _int32(tk.call("add", [found, tk.literal(start - 1, pa.int32())])))


def _string_unary(fn: str):
    def convert(node, args) -> tk.Expression:
        if _type_name(node) != "string" or _type_name(children(node)[0]) != "string":
            _refuse(node, "only strings are imported")
        return tk.call(fn, args)
    return convert


def _byte_length(times: int):
    def convert(node, args) -> tk.Expression:
        if _type_name(children(node)[0]) != "string":
            _refuse(node, "only strings are imported")
        n = tk.call("binary_length", args)
        return _int32(tk.call("multiply", [n, tk.literal(times, pa.int32())]) if times != 1
                      else n)
    return convert


def _rlike(node, args) -> tk.Expression:
    pattern = _constant(node, args[1], "pattern")
    if pattern is None:
        return _null(pa.bool_())
    return tk.call("match_substring_regex", [args[0]],
                   pc.MatchSubstringOptions(java_regex.to_re2(pattern, node, matching=True)))


def _ilike(node, args) -> tk.Expression:
    """Spark's ILIKE is `lower(s) LIKE lower(pattern)`."""
    escape = str(node.escapeChar())
    if escape != "\\":
        _refuse(node, f"escape character {escape!r} (Arrow's match_like escapes with '\\')")
    pattern = _constant(node, args[1], "pattern")
    if pattern is None:
        return _null(pa.bool_())
    lowered = pc.utf8_lower(pa.scalar(pattern)).as_py()
    return tk.call("match_like", [tk.call("utf8_lower", [args[0]])],
                   pc.MatchSubstringOptions(lowered))


def _regexp_replace(node, args) -> tk.Expression:
    pattern = _constant(node, args[1], "pattern")
    replacement = _constant(node, args[2], "replacement")
    position = _constant(node, args[3], "position")
    if position != 1:
        _refuse(node, "a start position other than 1")
    if pattern is None or replacement is None:
        return _null(pa.string())
    re2 = java_regex.to_re2(pattern, node, matching=False)
    return tk.call("replace_substring_regex", [args[0]], pc.ReplaceSubstringOptions(
        re2, java_regex.replacement_to_re2(replacement, node)))


def _regexp_extract(node, args) -> tk.Expression:
    """The group's text of the first match; "" when nothing matches or the group took no part."""
    pattern = _constant(node, args[1], "pattern")
    index = _constant(node, args[2], "group index")
    if pattern is None or index is None:
        return _null(pa.string())
    named, groups = java_regex.named_groups(java_regex.to_re2(pattern, node, matching=False))
    if not 0 <= index <= groups:
        _refuse(node, f"group {index} of a pattern with {groups} groups (Spark fails)")
    found = tk.call("struct_field", [tk.call("extract_regex", [args[0]],
                                             pc.ExtractRegexOptions(named))],
                    pc.StructFieldOptions(f"g{index}"))
    return tk.if_else(tk.is_valid(args[0]), tk.coalesce(found, tk.literal("")),
                      _null(pa.string()))


# --- dates ----------------------------------------------------------------------------

def _date_field(fn: str, options=None):
    def convert(node, args) -> tk.Expression:
        return _int32(tk.call(fn, args, options) if options else tk.call(fn, args))
    return convert


def _date_diff(node, args) -> tk.Expression:
    end, start = args
    return _int32(tk.call("days_between", [start, end]))


def _last_day(node, args) -> tk.Expression:
    first = tk.call("floor_temporal", [args[0]], pc.RoundTemporalOptions(unit="month"))
    next_first = date_interval.add_months(first, tk.literal(1, pa.int32()))
    return date_interval.add_days(next_first, tk.literal(1, pa.int32()), subtract=True)


_TRUNC_UNITS = {"YEAR": "year", "YYYY": "year", "YY": "year", "QUARTER": "quarter",
                "MONTH": "month", "MM": "month", "MON": "month", "WEEK": "week"}
_TRUNC_TIME_UNITS = {**_TRUNC_UNITS, "DAY": "day", "DD": "day", "HOUR": "hour",
                     "MINUTE": "minute", "SECOND": "second", "MILLISECOND": "millisecond",
                     "MICROSECOND": "microsecond"}


def _floor(value: tk.Expression, unit: str) -> tk.Expression:
    return tk.call("floor_temporal", [value], pc.RoundTemporalOptions(
        unit=unit, week_starts_monday=True))


def _trunc_date(node, args) -> tk.Expression:
    fmt = _constant(node, args[1], "format")
    unit = _TRUNC_UNITS.get(str(fmt).upper()) if fmt is not None else None
    if unit is None:  # Spark gives null for an unknown format
        return _null(pa.date32())
    return _floor(args[0], unit)


def _trunc_timestamp(node, args) -> tk.Expression:
    """date_trunc in the session's time zone: the instant seen in that zone is floored."""
    fmt = _constant(node, args[0], "format")
    unit = _TRUNC_TIME_UNITS.get(str(fmt).upper()) if fmt is not None else None
    target = _arrow_type(node)
    if unit is None:
        return _null(target)
    if target.tz is None:
        return _floor(args[1], unit)
    zone = node.timeZoneId()
    if zone.isEmpty():
        _refuse(node, "it names no time zone (the plan is not resolved)")
    local = tk.cast(args[1], pa.timestamp("us", str(zone.get())))
    return tk.cast(_floor(local, unit), target)


# --- the tables -----------------------------------------------------------------------

CONVERTERS = {
    # replacements Spark keeps as the node's one child
    **{name: _replacement for name in (
        "Nvl", "Nvl2", "NullIf", "IfNull", "Extract", "UnaryPositive", "TryDivide",
        "DatePart", "NullIfZero", "ZeroIfNull", "Try", "TryEval")},
    "NullIfResult": _null_if_result, "NaNvl": _nan_vl,
    "Greatest": _greatest, "Least": _least,
    "Divide": _divide, "IntegralDivide": _divide,
    "Round": lambda node, args: _round(node, args, "half_towards_infinity"),
    "BRound": lambda node, args: _round(node, args, "half_to_even"),
    "Pow": _power,
    "Log": _logarithm("ln"), "Log10": _logarithm("log10"), "Log2": _logarithm("log2"),
    "Log1p": _logarithm("log1p", -1.0), "Logarithm": _logarithm("ln"),
    "Signum": _signum, "Pmod": _pmod,
    "BitwiseAnd": _bitwise("bit_wise_and"), "BitwiseOr": _bitwise("bit_wise_or"),
    "BitwiseXor": _bitwise("bit_wise_xor"), "BitwiseNot": _bitwise("bit_wise_not"),
    "ShiftLeft": _shift("shift_left"), "ShiftRight": _shift("shift_right"),
    "Pi": _constant_double(math.pi), "EulerNumber": _constant_double(math.e),
    "Concat": _concat, "ConcatWs": _concat_ws,
    "StringTrim": _trim("utf8_trim"), "StringTrimLeft": _trim("utf8_ltrim"),
    "StringTrimRight": _trim("utf8_rtrim"),
    "StringLPad": _pad("utf8_lpad"), "StringRPad": _pad("utf8_rpad"),
    "Left": _left, "Right": _right, "StringRepeat": _repeat, "StringReplace": _replace,
    "StringInstr": _instr, "StringLocate": _locate,
    "Reverse": _string_unary("utf8_reverse"),
    "BitLength": _byte_length(8), "OctetLength": _byte_length(1),
    "RLike": _rlike, "ILike": _ilike,
    "RegExpReplace": _regexp_replace, "RegExpExtract": _regexp_extract,
    "Quarter": _date_field("quarter"), "WeekOfYear": _date_field("iso_week"),
    "DayOfYear": _date_field("day_of_year"),
    "DateDiff": _date_diff, "LastDay": _last_day,
    "TruncDate": _trunc_date, "TruncTimestamp": _trunc_timestamp,
}

# what cannot be exact, and why
REFUSED = {
    "Rand": "a random number (Spark's XORShift sequence per partition)",
    "Randn": "a random number (Spark's XORShift sequence per partition)",
    "Uuid": "a random UUID",
    "Shuffle": "a random permutation",
    "MonotonicallyIncreasingID": "it depends on Spark's partitioning",
    "SparkPartitionID": "it depends on Spark's partitioning",
    "Murmur3Hash": "Arrow has no Murmur3 kernel",
    "XxHash64": "Arrow has no xxHash64 kernel",
    "Md5": "Arrow has no MD5 kernel",
    "Sha1": "Arrow has no SHA-1 kernel",
    "Sha2": "Arrow has no SHA-2 kernel",
    "Crc32": "Arrow has no CRC32 kernel",
    "FormatString": "Java's Formatter has no Arrow kernel",
    "FormatNumber": "Java's DecimalFormat has no Arrow kernel",
    "DateFormatClass": "Java's DateTimeFormatter patterns have no exact Arrow kernel",
    "InitCap": "Spark capitalizes after spaces only with Java's title case; Arrow's "
               "utf8_title starts a word after any non-letter",
    "StringTranslate": "Arrow has no per-character translate kernel",
    "Ascii": "Arrow has no kernel giving a character's code point",
    "Cbrt": "Arrow has no cube root kernel",
    "Exp": "Spark's StrictMath.exp (fdlibm) and Arrow's exp (the C library's) differ in the "
           "last bit: exp(1) is 2.7182818284590455 in Spark, 2.718281828459045 in Arrow",
    "CurrentDate": "it is the time the query runs",
    "CurrentTimestamp": "it is the time the query runs",
    "Now": "it is the time the query runs",
    "CreateArray": "exprscope's Spark import carries no arrays",
    "CreateNamedStruct": "exprscope's Spark import carries no structs it builds",
    "StringSplit": "exprscope's Spark import carries no arrays",
}


HANDLED = frozenset(CONVERTERS) | frozenset(REFUSED)


def convert(name: str, node, args) -> tk.Expression:
    """The exprscope expression of the Catalyst function `name` (see CONVERTERS)."""
    if name in REFUSED:
        _refuse(node, REFUSED[name])
    return CONVERTERS[name](node, args)


def decimal_constant(value, target: pa.DataType, eval_mode: str):
    """An integer or decimal constant cast to a decimal type by its value (Arrow's scalar
    cast refuses int32 -> decimal(1, 0) for 2): rounded HALF_UP to the scale as Spark does;
    None when it does not fit and Spark fails (ANSI), a null literal when Spark gives null."""
    if isinstance(value, bool) or not isinstance(value, (int, decimal.Decimal)):
        return None
    exact = decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-target.scale),
                                            rounding=decimal.ROUND_HALF_UP,
                                            context=decimal.Context(prec=80))
    if len(exact.as_tuple().digits) > target.precision and exact != 0:
        return None if eval_mode == "ANSI" else tk.literal(None, target)
    return tk.literal(pa.scalar(exact, target))
