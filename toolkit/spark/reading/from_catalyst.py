"""Spark Catalyst expressions (read through py4j) -> exprscope expressions.

Handles both the resolved trees of an analyzed plan (AttributeReference, Add,
EqualTo, CaseWhen, Cast ...) and the unresolved trees a bare Column holds
(UnresolvedAttribute, UnresolvedFunction('+') ...). Where Spark's semantics
differ from Arrow's the import says so in the tree instead of hiding it:

- `If(c, a, b)` takes `b` on a null `c`; Arrow's if_else gives null, so the
  import is `if_else(coalesce(c, false), a, b)` when `c` can be null.
- `x IN (...)` is null for a null `x` (and for a miss when the list holds a
  null); Arrow's is_in is not, so the import wraps it in `if_else`.
- ANSI arithmetic (Spark 4's default) fails on overflow: `add_checked` & co.
- an unresolved `/` is Spark's true division: both sides are cast to float64
  (pass the DataFrame to resolve the real types instead).
- `dayofweek` counts Sunday=1..Saturday=7: day_of_week(count_from_zero=False,
  week_start=7); it, `year`, `month` ... are Spark ints: cast to int32.
- `a % b` keeps the dividend's sign (Arrow's remainder); a zero divisor fails under
  ANSI (remainder_checked) and is null otherwise.
- `BETWEEN` is Spark 4's `With` of shared expressions: each reference becomes the
  shared expression.
- a constant `date + interval` (or minus) is folded to the date Spark computes; over a
  column it is computed per row (`date_interval`: add_months' end-of-month rule for a
  year-month interval, which is its number of months; a day count; a day-time
  interval added to a timestamp as a duration).
- `NormalizeNaNAndZero` (Spark's optimizer puts it on float join and group keys so
  that -0.0 meets 0.0 and NaN meets NaN) is read as its argument.
- a comparison of floats keeps Spark's order, NaN equal to NaN and above every other
  value (`float_order`); `<=>` (EqualNullSafe) is equality where two nulls are equal.

Anything else raises SparkImportError naming the Spark class.
"""

from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk

from ..errors import SparkImportError
from ..translate.types import from_spark_type
from . import date_interval, float_order, spark_functions, text_dates
from .catalyst_nodes import children, class_name
from .sql_origin import origin_text

__all__ = ["children", "class_name", "expression_from_catalyst", "spark_type_of", "unresolved_call"]


def spark_type_of(node):
    """The pyspark DataType of a Catalyst expression's dataType()."""
    from pyspark.sql.types import _parse_datatype_json_string

    return _parse_datatype_json_string(node.dataType().json())


def _arrow_type(node) -> pa.DataType:
    return from_spark_type(spark_type_of(node))


def _literal(node) -> tk.Literal:
    if class_name(node.dataType()) == "YearMonthIntervalType":  # its months, as Spark keeps it
        return date_interval.months_of(node.value())
    return _literal_of(node.value(), _arrow_type(node))


def _literal_of(value, t: pa.DataType) -> tk.Literal:
    """A constant from its Catalyst value (a date as days, a timestamp as microseconds)."""
    if value is None:
        return tk.literal(None, t)
    if pa.types.is_string(t):
        value = str(value.toString())
    elif pa.types.is_decimal(t):
        value = decimal.Decimal(str(value.toString()))
    elif pa.types.is_date(t):
        value = datetime.date(1970, 1, 1) + datetime.timedelta(days=int(value))
    elif pa.types.is_timestamp(t):
        return tk.literal(pa.scalar(int(value), pa.timestamp("us")).cast(t))
    elif pa.types.is_duration(t):
        return tk.literal(pa.scalar(int(value), t))
    elif pa.types.is_binary(t):
        value = bytes(value)
    elif not isinstance(value, (bool, int, float)):
        raise SparkImportError(f"cannot import a Spark literal of type {t} ({value})",
                               spark_class="Literal")
    return tk.literal(value, t)


_BINARY = {"Add": "add", "Subtract": "subtract", "Multiply": "multiply", "Divide": "divide",
           "IntegralDivide": "divide", "EqualTo": "equal", "LessThan": "less",
           "LessThanOrEqual": "less_equal", "GreaterThan": "greater",
           "GreaterThanOrEqual": "greater_equal", "And": "and_kleene", "Or": "or_kleene"}
_UNARY = {"Not": "invert", "UnaryMinus": "negate", "Abs": "abs", "Upper": "utf8_upper",
          "Lower": "utf8_lower", "Length": "utf8_length", "Year": "year", "Month": "month",
          "DayOfMonth": "day", "Hour": "hour", "Minute": "minute", "Second": "second",
          "IsNotNull": "is_valid", "IsNaN": "is_nan", "Sqrt": "sqrt"}
# datetime fields Spark gives as int (Arrow's kernels give int64)
_SPARK_INT32 = {"Year", "Month", "DayOfMonth", "Hour", "Minute", "Second"}
_PATTERN = {"StartsWith": "starts_with", "EndsWith": "ends_with", "Contains": "match_substring",
            "Like": "match_like"}
# names of the functions an unresolved Column calls (Column operators and F.* functions)
_UNRESOLVED_BINARY = {"+": "add", "-": "subtract", "*": "multiply", "=": "equal", "==": "equal",
                      "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal",
                      "!=": "not_equal", "<>": "not_equal", "and": "and_kleene",
                      "or": "or_kleene", "div": "divide"}
_UNRESOLVED_UNARY = {"!": "invert", "not": "invert", "negative": "negate", "abs": "abs",
                     "upper": "utf8_upper", "ucase": "utf8_upper", "lower": "utf8_lower",
                     "lcase": "utf8_lower", "length": "utf8_length",
                     "char_length": "utf8_length", "year": "year", "month": "month",
                     "day": "day", "dayofmonth": "day", "hour": "hour", "minute": "minute",
                     "second": "second", "isnotnull": "is_valid", "isnan": "is_nan",
                     "sqrt": "sqrt", "floor": "floor", "ceil": "ceil", "ceiling": "ceil"}
_UNRESOLVED_PATTERN = {"startswith": "starts_with", "endswith": "ends_with",
                       "contains": "match_substring", "like": "match_like"}
_ANSI_CHECKED = {"add", "subtract", "multiply"}


def expression_from_catalyst(root, resolve_attribute=None, substitute=None) -> tk.Expression:
    """The exprscope expression of a Catalyst expression tree (iteratively: deep trees work).

    `resolve_attribute(node)` names an AttributeReference (default: its name);
    `substitute(node)` may return an Expression to use for a whole subtree (an
    aggregate call becomes a reference to the aggregate's column).
    """
    resolve_attribute = resolve_attribute or (lambda node: str(node.name()))
    outer = substitute or (lambda node: None)
    commons: dict[str, tk.Expression] = {}  # a With's shared expressions, by their id

    def substitute(node):
        for found in (outer(node), _folded(node), _common(node, commons)):
            if found is not None:
                return found
        return None
    # frames: [node, its children, their converted expressions so far, its substitute]
    replaced = substitute(root)
    frames = [[root, [] if replaced is not None else _kids(root), [], replaced]]
    while True:
        node, kids, results, replaced = frames[-1]
        if len(results) < len(kids):
            kid = kids[len(results)]
            kid_replaced = substitute(kid)
            frames.append([kid, [] if kid_replaced is not None else _kids(kid), [],
                           kid_replaced])
            continue
        frames.pop()
        out = replaced if replaced is not None else _convert(node, results, resolve_attribute)
        if class_name(node) == "CommonExpressionDef":
            commons[str(node.id().toString())] = out
        if not frames:
            return out
        frames[-1][2].append(out)


# Spark functions that Spark itself rewrites into others (RuntimeReplaceable): imported as
# that rewrite, `replacement`, so they mean exactly what Spark runs
_REPLACED = {"ParseToDate", "ParseToTimestamp"}


def _kids(node) -> list:
    if class_name(node) in _LEAVES:
        return []
    if class_name(node) in _REPLACED:
        return [node.replacement()]
    kids = children(node)
    if class_name(node) == "With":  # the shared definitions before the body that refers to them
        return kids[1:] + kids[:1]
    return kids


# Spark's datetime arithmetic with intervals, which Arrow has no kernel for: folded to the
# constant Spark computes when its operands are constant (as Spark's ConstantFolding does)
_FOLDED_WHEN_CONSTANT = {"DateAdd", "DateSub", "DateAddYMInterval", "TimestampAddYMInterval",
                         "TimeAdd", "DateAddInterval", "AddMonths", "ExtractANSIIntervalDays",
                         "TimestampAddInterval", "DatetimeSub", "SubtractDates"}


def _folded(node):
    """The constant a constant datetime-interval expression has, computed by Spark itself."""
    if class_name(node) not in _FOLDED_WHEN_CONSTANT:
        return None
    from py4j.protocol import Py4JError

    try:
        if not node.foldable():
            return None
        return _literal_of(node.eval(None), _arrow_type(node))
    except Py4JError:  # unresolved, or Spark cannot evaluate it alone
        return None


def _common(node, commons: dict):
    """A reference to a With's shared expression (how Spark 4 writes BETWEEN): that expression."""
    if class_name(node) != "CommonExpressionRef":
        return None
    found = commons.get(str(node.id().toString()))
    if found is None:
        raise SparkImportError(f"cannot import {node.toString()}: its definition is not in "
                               "scope", spark_class="CommonExpressionRef")
    return found


_LEAVES = {"AttributeReference", "UnresolvedAttribute", "Literal", "BoundReference"}


def _nullable(node) -> bool:
    from py4j.protocol import Py4JError

    try:
        return bool(node.nullable())
    except Py4JError:  # unresolved nodes cannot say
        return True


def _convert(node, args, resolve_attribute) -> tk.Expression:
    name = class_name(node)
    if name == "AttributeReference":
        return tk.field(resolve_attribute(node))
    if name == "UnresolvedAttribute":
        parts = [str(p) for p in _seq(node.nameParts())]
        return tk.field(*parts)
    if name == "Literal":
        return _literal(node)
    if name in spark_functions.HANDLED:  # Spark SQL functions, one table (spark_functions)
        return spark_functions.convert(name, node, args)
    if name in ("Alias", "CommonExpressionDef", "NormalizeNaNAndZero",
                "KnownFloatingPointNormalized"):
        return args[0]
    if name == "With":  # its definitions came first; the body is the last argument
        return args[-1]
    if name == "Remainder":
        return _remainder(node, args)
    if name == "Between":  # its one child is its replacement: a With (see above)
        return args[-1]
    if name in _REPLACED:
        return args[0]
    if name in float_order.COMPARISONS:
        return float_order.compare(name, args[0], args[1], _compares_floats(node))
    if name == "EqualNullSafe":
        return float_order.equal_null_safe(args[0], args[1], _compares_floats(node))
    if name in _BINARY:
        fn = _BINARY[name]
        if fn in _ANSI_CHECKED and _eval_mode(node) == "ANSI":
            fn += "_checked"
        return tk.call(fn, args)
    if name in ("Floor", "Ceil"):
        return _floor_or_ceil(name.lower(), args[0], _arrow_type(children(node)[0]),
                              _arrow_type(node))
    if name in _UNARY:
        out = tk.call(_UNARY[name], args)
        return tk.cast(out, pa.int32()) if name in _SPARK_INT32 else out
    if name == "IsNull":
        return tk.is_null(args[0])
    if name in _PATTERN:
        return _pattern_call(_PATTERN[name], node, args, name)
    if name == "Cast":
        target = _arrow_type(node)
        if args[0].is_literal:  # Spark's implicit cast of a constant: just the typed constant
            if pa.types.is_decimal(target):
                folded = spark_functions.decimal_constant(args[0].value.as_py(), target,
                                                          _eval_mode(node))
                if folded is not None:
                    return folded
            try:
                return tk.literal(args[0].value.cast(target))
            except (pa.ArrowException, ValueError, TypeError):
                pass  # a cast Arrow refuses stays a cast call (and fails as Arrow does)
        source = _arrow_type(children(node)[0])
        if pa.types.is_floating(source) and (pa.types.is_string(target)
                                             or pa.types.is_large_string(target)):
            raise SparkImportError(
                f"cannot import the Spark expression Cast ({node.toString()}): Spark "
                "writes a float as Java's "
                "Double.toString does (1.0, 1.0E7, 9.9E-4, and on Java 17 at times a 17th "
                "digit where 16 name the value), which no Arrow kernel reproduces; Arrow's "
                "cast writes 1, 10000000, 0.00099", spark_class="Cast")
        if pa.types.is_string(source) and pa.types.is_date32(target):
            return text_dates.text_to_date(args[0], _eval_mode(node) == "ANSI")
        if pa.types.is_string(source) and pa.types.is_timestamp(target) and target.tz:
            # Spark reads the text as a wall-clock time in the session's zone
            wall = tk.cast(args[0], pa.timestamp(target.unit))
            zone = _cast_zone(node)
            if zone in ("UTC", "Etc/UTC", "Z", "+00:00"):  # the wall clock is the instant
                return tk.cast(wall, target)
            return tk.cast(date_interval.instant_of_wall_clock(wall, zone), target)
        return _spark_cast(args[0], source, target)
    if name == "Coalesce":
        return tk.coalesce(*args)
    if name == "CaseWhen":
        pairs = [(args[2 * i], args[2 * i + 1]) for i in range(len(args) // 2)]
        else_ = args[-1] if len(args) % 2 else None
        return tk.case_when(pairs, else_=else_)
    if name == "If":
        cond = args[0]
        if _nullable(children(node)[0]):
            cond = tk.coalesce(cond, tk.literal(False))
        return tk.if_else(cond, args[1], args[2])
    if name in ("In", "InSet"):
        return _in(node, args, name)
    if name == "DayOfWeek":
        return tk.cast(tk.call("day_of_week", args, pc.DayOfWeekOptions(
            count_from_zero=False, week_start=7)), pa.int32())
    if name == "WeekDay":
        return tk.cast(tk.call("day_of_week", args), pa.int32())
    if name == "GetStructField":
        return tk.call("struct_field", [args[0]], pc.StructFieldOptions(str(node.extractFieldName())))
    if name == "Substring":
        return _substring(node, args)
    if name == "UnresolvedFunction":
        return _unresolved_function(node, args)
    if name in _DATE_INTERVAL:
        return _date_interval(node, name, args)
    if name == "UnscaledValue":
        return _unscaled_value(node, args[0])
    if name == "MakeDecimal":
        return _make_decimal(node, args[0])
    raise SparkImportError(f"cannot import the Spark expression {name} ({node.toString()}) "
                           f"into exprscope{origin_text(node)}", spark_class=name)


_DATE_INTERVAL = {"DateAddYMInterval", "AddMonths", "DateAdd", "DateSub", "DatetimeSub",
                  "MakeYMInterval", "MultiplyYMInterval", "TimestampAddInterval",
                  "TimestampAddYMInterval", "MakeDTInterval"}


def _date_interval(node, name: str, args) -> tk.Expression:
    """`date ± interval` over a column (constant ones were folded): see date_interval."""
    if name == "DatetimeSub":  # `a - b` as Spark rewrote it: its replacement, the last child
        return args[-1]
    if name in ("DateAddYMInterval", "AddMonths"):
        return date_interval.add_months(args[0], args[1])
    if name == "TimestampAddYMInterval":
        return date_interval.add_months_to_timestamp(args[0], args[1], _time_zone(node))
    if name in ("DateAdd", "DateSub"):
        return date_interval.add_days(args[0], args[1], subtract=name == "DateSub")
    if name == "MakeYMInterval":  # make_ym_interval(years, months): its months
        total = tk.call("add_checked", [tk.call("multiply_checked", [
            tk.cast(args[0], pa.int32()), tk.literal(12, pa.int32())]),
            tk.cast(args[1], pa.int32())])
        return total
    if name == "MakeDTInterval":  # make_dt_interval(days, hours, mins, secs): a duration
        return date_interval.day_time_interval(*args)
    if name == "MultiplyYMInterval":
        if str(children(node)[1].dataType().typeName()) not in ("byte", "short", "integer",
                                                                  "long"):
            raise SparkImportError(f"cannot import {node.toString()}: an interval times a "
                                   "fraction rounds in Spark's own way; only whole numbers",
                                   spark_class=name)
        return tk.call("multiply_checked", [args[0], tk.cast(args[1], pa.int32())])
    kind = class_name(children(node)[1].dataType())
    if not kind.startswith("DayTimeIntervalType"):  # a timestamp plus a duration, exactly
        raise SparkImportError(f"cannot import {node.toString()}: only a day-time interval "
                               "is a duration", spark_class=name)
    return tk.call("add_checked", args)


def _compares_floats(node) -> bool:
    """Whether a Spark comparison's operands are floats or doubles (Spark's analyzer gives
    both operands one type)."""
    return class_name(children(node)[0].dataType()).startswith(("FloatType", "DoubleType"))


def _cast_zone(node) -> str:
    """The session time zone a Cast reads a wall-clock time in."""
    zone = node.timeZoneId()
    if zone.isEmpty():
        raise SparkImportError(f"cannot import {node.toString()}: it names no time zone "
                               "(the plan is not resolved)", spark_class="Cast")
    return str(zone.get())


def _time_zone(node) -> str | None:
    """The session time zone a timestamp expression computes in; None for a timestamp
    without time zone, whose wall clock is its value."""
    if class_name(children(node)[0].dataType()).startswith("TimestampNTZType"):
        return None
    zone = node.timeZoneId()
    if zone.isEmpty():
        raise SparkImportError(f"cannot import {node.toString()}: it names no time zone "
                               "(the plan is not resolved)", spark_class=class_name(node))
    return str(zone.get())


def _power_of_ten(scale: int) -> tk.Literal:
    return tk.literal(decimal.Decimal(10) ** scale, pa.decimal128(scale + 1, 0))


def _unscaled_value(node, value: tk.Expression) -> tk.Expression:
    """Spark's UnscaledValue (its DecimalAggregates rule sums small decimals as longs): the
    decimal's digits as an integer, 1.25 as decimal(7, 2) -> 125."""
    scale = int(children(node)[0].dataType().scale())
    return tk.cast(tk.call("multiply", [value, _power_of_ten(scale)]), pa.int64())


def _make_decimal(node, unscaled: tk.Expression) -> tk.Expression:
    """Spark's MakeDecimal, UnscaledValue's inverse: 125 -> 1.25 as decimal(p, 2). Arrow's
    quotient keeps at least the scale, so the final cast drops only zeros."""
    precision, scale = int(node.precision()), int(node.scale())
    quotient = tk.call("divide", [tk.cast(unscaled, pa.decimal128(19, 0)),
                                  _power_of_ten(scale)])
    return tk.cast(quotient, pa.decimal128(precision, scale))


def _remainder(node, args) -> tk.Expression:
    """Spark's `%`: the dividend's sign (as Arrow's remainder); a zero divisor fails in ANSI
    mode and gives null otherwise."""
    if _eval_mode(node) == "ANSI":
        return tk.call("remainder_checked", args)
    zero = tk.call("equal", [args[1], tk.literal(0, pa.int8())])
    return tk.if_else(tk.coalesce(zero, tk.literal(False)), tk.literal(None, _arrow_type(node)),
                      tk.call("remainder", args))


def _seq(scala_seq):
    return [scala_seq.apply(i) for i in range(scala_seq.size())]


def _spark_cast(arg: tk.Expression, source: pa.DataType, target: pa.DataType) -> tk.Expression:
    """A cast as Spark's numeric casts behave: a long becomes the nearest double, and a
    float or decimal becomes an integer by dropping its fraction, where Arrow's safe cast
    refuses both. An integer out of the target's range still fails, as in ANSI mode."""
    if pa.types.is_integer(source) and pa.types.is_floating(target):
        return tk.call("cast", [arg], pc.CastOptions(target, allow_float_truncate=True))
    if pa.types.is_integer(target):
        if pa.types.is_floating(source):
            return tk.cast(tk.call("trunc", [arg]), target)
        if pa.types.is_decimal(source):
            return tk.call("cast", [arg], pc.CastOptions(target, allow_decimal_truncate=True))
    return tk.cast(arg, target)


def _floor_or_ceil(function: str, arg: tk.Expression, source: pa.DataType,
                  target: pa.DataType) -> tk.Expression:
    """Spark's FLOOR / CEIL: of an integer, itself; of a decimal, a decimal of scale 0;
    of a double, a long (Arrow's is a double): NaN is 0, and a value beyond the long
    range fails under ANSI (Spark 4's default) and is the range's nearest end otherwise,
    as Java's `(long)` converts it."""
    if pa.types.is_integer(source):
        return tk.cast(arg, target) if source != target else arg
    rounded = tk.call(function, [arg])
    if not (pa.types.is_floating(source) and pa.types.is_integer(target)):
        return tk.cast(rounded, target)
    cases = [(tk.call("is_nan", [rounded]), tk.literal(0, pa.int64()))]
    if not _ansi_enabled():
        limit = tk.literal(2.0 ** 63, pa.float64())
        cases += [
            (tk.call("greater_equal", [rounded, limit]), tk.literal(2 ** 63 - 1, pa.int64())),
            (tk.call("less_equal", [rounded, tk.call("negate", [limit])]),
             tk.literal(-(2 ** 63), pa.int64()))]
    return tk.case_when(cases, tk.cast(rounded, pa.int64()))  # the cast fails past the range


def _ansi_enabled() -> bool:
    """spark.sql.ansi.enabled, as the session that analyzed the plan reads it (for the
    expressions that read it when run rather than carry an evaluation mode)."""
    from pyspark import SparkContext

    return bool(SparkContext._jvm.org.apache.spark.sql.internal.SQLConf.get().ansiEnabled())


def _eval_mode(node) -> str:
    from py4j.protocol import Py4JError

    try:
        return str(node.evalMode().toString())
    except Py4JError:  # expressions without an evaluation mode
        return "LEGACY"


def _literal_text(expr: tk.Expression, spark_class: str) -> str:
    if not expr.is_literal or not pa.types.is_string(expr.type):
        raise SparkImportError(f"cannot import {spark_class} with a pattern that is not a string "
                               f"literal ({expr})", spark_class=spark_class)
    return expr.value.as_py()


def _pattern_call(fn: str, node, args, spark_class: str) -> tk.Expression:
    pattern = _literal_text(args[1], spark_class)
    if spark_class in ("Like", "like"):
        from py4j.protocol import Py4JError

        try:
            escape = "\\" if node is None else str(node.escapeChar())
        except Py4JError:  # an unresolved like() has the default escape
            escape = "\\"
        if escape != "\\":
            raise SparkImportError(f"cannot import LIKE with escape character {escape!r} "
                                   "(Arrow's match_like escapes with a backslash)",
                                   spark_class=spark_class)
    return tk.call(fn, [args[0]], pc.MatchSubstringOptions(pattern))


def _in(node, args, spark_class: str) -> tk.Expression:
    value = args[0]
    options = _set_values(node) if spark_class == "InSet" else args[1:]
    for o in options:
        if not o.is_literal:
            raise SparkImportError(f"cannot import IN with a non-literal value ({o})",
                                   spark_class=spark_class)
    scalars = [o.value for o in options]
    with_null = any(not s.is_valid for s in scalars)
    present = [s for s in scalars if s.is_valid]
    value_type = present[0].type if present else pa.null()
    values = pa.array([s.as_py() for s in present], value_type)
    if pa.types.is_floating(value_type) and pc.any(pc.equal(values, 0)).as_py():
        # Spark's IN finds -0.0 among 0.0 and back; Arrow's set lookup compares bits
        values = pa.concat_arrays([values, pa.array([0.0, -0.0], value_type)])
    test = tk.call("is_in", [value], pc.SetLookupOptions(values))
    null = tk.literal(None, pa.bool_())
    if with_null:  # SQL: a miss against a list holding null is unknown
        test = tk.if_else(test, tk.literal(True), null)
    return tk.if_else(tk.is_valid(value), test, null)


def _set_values(node) -> list[tk.Literal]:
    """The constants of an InSet (the optimizer's IN over many values), as literals of its
    value's type, in a stable order."""
    value_type = _arrow_type(children(node)[0])
    members = _seq(node.hset().toSeq())
    literals = [_literal_of(m, value_type) for m in members]
    return sorted(literals, key=lambda lit: (lit.value.is_valid, str(lit.value)))


def _substring(node, args) -> tk.Expression:
    pos, length = args[1], args[2]
    if not (pos.is_literal and length.is_literal):
        raise SparkImportError("cannot import substring with non-literal positions",
                               spark_class="Substring")
    start, n = pos.value.as_py(), length.value.as_py()
    if start is None or n is None:
        return tk.literal(None, pa.string())
    begin = start - 1 if start > 0 else (min(0, start))
    stop = begin + max(n, 0)
    if begin < 0 and stop >= 0:
        return tk.call("utf8_slice_codeunits", [args[0]], pc.SliceOptions(begin))
    return tk.call("utf8_slice_codeunits", [args[0]], pc.SliceOptions(begin, stop))


def _unresolved_function(node, args) -> tk.Expression:
    parts = [str(p) for p in _seq(node.nameParts())]
    return unresolved_call(parts[-1], args, node)


def unresolved_call(function_name: str, args: list, node=None) -> tk.Expression:
    """The exprscope call for a Spark function called by name (an unresolved Column's, or a
    Spark Connect UnresolvedFunction's): Column operators, `F.*` functions, CASE WHEN."""
    name = function_name.lower()
    if name in _UNRESOLVED_BINARY and len(args) == 2:
        return tk.call(_UNRESOLVED_BINARY[name], args)
    if name == "/" and len(args) == 2:
        return tk.call("divide", [tk.cast(a, pa.float64()) for a in args])
    if name in _UNRESOLVED_UNARY and len(args) == 1:
        return tk.call(_UNRESOLVED_UNARY[name], args)
    if name == "isnull" and len(args) == 1:
        return tk.is_null(args[0])
    if name in _UNRESOLVED_PATTERN and len(args) == 2:
        return _pattern_call(_UNRESOLVED_PATTERN[name], node, args, name)
    if name == "coalesce":
        return tk.coalesce(*args)
    if name == "in":
        return _in(node, args, "In")
    if name == "when" and len(args) >= 2:  # when(c1, v1, c2, v2, ..., [else]): CASE WHEN
        pairs = [(args[2 * i], args[2 * i + 1]) for i in range(len(args) // 2)]
        return tk.case_when(pairs, else_=args[-1] if len(args) % 2 else None)
    if name in ("if", "iff") and len(args) == 3:  # SQL's IF takes the else branch on null
        return tk.if_else(tk.coalesce(args[0], tk.literal(False)), args[1], args[2])
    if name == "dayofweek":
        return tk.call("day_of_week", args, pc.DayOfWeekOptions(count_from_zero=False,
                                                                  week_start=7))
    if name in ("substr", "substring") and len(args) == 3:
        return _substring(node, args)
    raise SparkImportError(f"cannot import the Spark function {function_name}({len(args)} "
                           "arguments) into exprscope",
                           spark_class=f"UnresolvedFunction {function_name}")
