"""The translators from exprscope's function catalog to pyspark Columns.

One entry per catalog name: `translate(call, args, types) -> Column`, where
`args` are the arguments already translated and `types` their Arrow types
(None when the expression is unbound). Where Spark's own function differs from
Arrow's, the translation adds what makes the result Arrow's; the differences:

- integer `divide`: Arrow truncates (int result) and fails on a zero divisor;
  Spark's `/` returns a double. Translated as integral division, failing on zero.
- float `divide`: Arrow follows IEEE (x/0 = ±inf, 0/0 = NaN); Spark returns null
  or fails (ANSI). Translated to IEEE results (a divisor of -0.0 counts as +0.0).
- comparisons of floats: Arrow follows IEEE (NaN equals nothing, not even NaN);
  Spark orders NaN above everything and NaN = NaN. Translated to IEEE.
- `if_else` with a null condition gives null in Arrow, the else value in Spark.
- `is_in`/`index_in` never give null for a null input in Arrow (it matches a
  null in the value set unless skip_nulls); Spark's IN gives null.
- `is_nan(null)` is null in Arrow, false in Spark.
- `and`/`or` (plain, not Kleene): any null gives null.
- `add`/`subtract`/`multiply` on integers wrap on overflow in Arrow; Spark fails
  in ANSI mode (Spark 4's default) and wraps otherwise. Not emulated: an
  overflow fails on Spark. The `_checked` variants fail on both sides.
- `floor`/`ceil`/`trunc`/`power`/temporal fields: Spark's result type differs
  (long, double, int); cast back to Arrow's type.
- `round`: Spark's `round` is Arrow's half_towards_infinity, `bround` its
  half_to_even; other modes only for ndigits=0 (floor/ceil/trunc).
- `day_of_week`: Arrow counts from Monday=0 by default (DayOfWeekOptions);
  Spark's `dayofweek` from Sunday=1. Translated through `weekday` (Monday=0).
"""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.types as pat

from ...model.field_ref import FieldRef
from ...model.options import cast_target, field_names, option_values, value_set
from ..errors import SparkTranslationError
from .literal_column import literal_column
from .types import to_spark_type

__all__ = ["SAME_MEANING", "STRUCTURAL_TRANSLATORS", "TRANSLATORS", "untranslatable"]

# name -> translate(call, columns of its arguments, their Arrow types)
TRANSLATORS: dict = {}
# name -> translate(call, column_of): for calls that need the columns of deeper nodes
# (case_when reads the conditions inside its make_struct)
STRUCTURAL_TRANSLATORS: dict = {}


def untranslatable(name: str, why: str = "") -> SparkTranslationError:
    suffix = f": {why}" if why else ""
    return SparkTranslationError(f"cannot translate {name} to Spark{suffix}", function=name)


def _F():
    # pyspark takes seconds to import; it loads on the first translation, not on import
    from pyspark.sql import functions as F

    return F


def register(*names):
    def decorate(fn):
        for name in names:
            TRANSLATORS[name] = fn
        return fn

    return decorate


def _null(call):
    """A typed null of the call's result type (plain null when unbound)."""
    F = _F()
    if call.type is not None:
        return F.lit(None).cast(to_spark_type(call.type))
    return F.lit(None)


def _as_call_type(call, column):
    """Cast to the call's Arrow result type when it is known (Spark's may differ)."""
    if call.type is None:
        return column
    return column.cast(to_spark_type(call.type))


def _fail(message: str):
    return _F().raise_error(message)


def _is_float(t) -> bool:
    return t is not None and pat.is_floating(t)


def _is_int(t) -> bool:
    return t is not None and pat.is_integer(t)


def _opts(call):
    return option_values(call.options) if call.options is not None else {}


# -- arithmetic -----------------------------------------------------------------------------

@register("add")
def _add(call, a, t):
    return _as_call_type(call, a[0] + a[1]) if _is_int(t[0]) else a[0] + a[1]


@register("subtract")
def _subtract(call, a, t):
    return _as_call_type(call, a[0] - a[1]) if _is_int(t[0]) else a[0] - a[1]


@register("multiply")
def _multiply(call, a, t):
    return _as_call_type(call, a[0] * a[1]) if _is_int(t[0]) else a[0] * a[1]


def _checked(name, try_fn, plain):
    """Fail where the exact result does not fit (as `_checked` kernels do), in any ANSI mode."""

    def translate(call, a, t):
        F = _F()
        if not _is_int(t[0]) or not _is_int(t[1]):
            return plain(a[0], a[1])
        result = _as_call_type(call, try_fn(a[0], a[1]))  # null where it overflowed
        return (F.when(a[0].isNotNull() & a[1].isNotNull() & result.isNull(),
                       _fail(f"{name}: overflow"))
                .otherwise(result))

    return translate


def _register_checked():
    F = _F
    TRANSLATORS["add_checked"] = _checked("add_checked", lambda x, y: F().try_add(x, y),
                                          lambda x, y: x + y)
    TRANSLATORS["subtract_checked"] = _checked(
        "subtract_checked", lambda x, y: F().try_subtract(x, y), lambda x, y: x - y)
    TRANSLATORS["multiply_checked"] = _checked(
        "multiply_checked", lambda x, y: F().try_multiply(x, y), lambda x, y: x * y)


_register_checked()


@register("divide", "divide_checked")
def _divide(call, a, t):
    F = _F()
    x, y = a
    if _is_int(t[0]) and _is_int(t[1]):
        # Arrow: truncating integer division that fails on zero
        quotient = F.call_function("div", x.cast("long"), _null_when_zero(y).cast("long"))
        return F.when(y == 0, _fail(f"{call.name}: divide by zero")) \
            .otherwise(_as_call_type(call, quotient))
    if _is_float(t[0]) or _is_float(t[1]):
        safe = x / _null_when_zero(y)
        if call.name == "divide_checked":
            return F.when(y == 0, _fail("divide_checked: divide by zero")).otherwise(safe)
        # IEEE: x/0 is +-inf by the sign of x, 0/0 and NaN/0 are NaN
        inf = F.lit(float("inf")).cast(to_spark_type(t[0]))
        return F.when(y == 0, F.when(x == 0, F.lit(float("nan")).cast(to_spark_type(t[0])))
                      .otherwise(x * inf)).otherwise(safe)
    if t[0] is not None and pat.is_decimal(t[0]):
        return F.when(y == 0, _fail(f"{call.name}: divide by zero")) \
            .otherwise(_as_call_type(call, x / _null_when_zero(y)))
    return x / y


def _null_when_zero(y):
    F = _F()
    return F.when(y != 0, y)


@register("negate", "negate_checked")
def _negate(call, a, t):
    return _as_call_type(call, -a[0]) if _is_int(t[0]) else -a[0]


@register("abs", "abs_checked")
def _abs(call, a, t):
    return _as_call_type(call, _F().abs(a[0])) if _is_int(t[0]) else _F().abs(a[0])


@register("power", "power_checked")
def _power(call, a, t):
    F = _F()
    x, y = a
    if _is_int(t[0]) and _is_int(t[1]):
        return F.when(y < 0, _fail(f"{call.name}: integers to negative integer powers "
                                   "are not allowed")).otherwise(_as_call_type(call, F.pow(x, y)))
    return _as_call_type(call, F.pow(x, y))


@register("sqrt", "sqrt_checked")
def _sqrt(call, a, t):
    F = _F()
    if call.name == "sqrt_checked":
        return F.when(a[0] < 0, _fail("sqrt_checked: square root of negative number")) \
            .otherwise(F.sqrt(a[0]))
    return _as_call_type(call, F.sqrt(a[0]))


@register("floor", "ceil", "trunc")
def _floor_ceil(call, a, t):
    F = _F()
    if _is_int(t[0]):
        return a[0]
    x = a[0]
    if call.name == "floor":
        out = F.floor(x)
    elif call.name == "ceil":
        out = F.ceil(x)
    else:
        out = F.when(x >= 0, F.floor(x)).otherwise(F.ceil(x))
    # Spark gives a long; keep NaN/inf (which a long cannot hold) as they are
    out = F.when(F.isnan(x) | (F.abs(x) == float("inf")), x).otherwise(out)
    return _as_call_type(call, out) if call.type is not None else out.cast("double")


@register("sign")
def _sign(call, a, t):
    return _as_call_type(call, _F().signum(a[0]))


@register("exp")
def _exp(call, a, t):
    return _as_call_type(call, _F().exp(a[0]))


@register("ln")
def _ln(call, a, t):
    """Arrow's unchecked ln: ln(0) = -inf, ln(x < 0) = NaN (Spark gives null for both)."""
    F = _F()
    x = a[0]
    return _as_call_type(call, F.when(x == 0, F.lit(float("-inf")))
                         .when(x < 0, F.lit(float("nan"))).otherwise(F.ln(x)))


@register("round")
def _round(call, a, t):
    F = _F()
    values = _opts(call)
    ndigits = int(values.get("ndigits", 0))
    mode = _round_mode(values.get("round_mode", 0))
    x = a[0]
    if mode == "half_to_even":
        out = F.bround(x, ndigits)
    elif mode == "half_towards_infinity":
        out = F.round(x, ndigits)
    elif ndigits == 0 and mode in ("down", "up", "towards_zero"):
        out = {"down": F.floor(x), "up": F.ceil(x),
               "towards_zero": F.when(x >= 0, F.floor(x)).otherwise(F.ceil(x))}[mode]
    else:
        raise untranslatable("round", f"round mode {mode} with ndigits={ndigits} has no "
                             "Spark function")
    if _is_float(t[0]):
        out = F.when(F.isnan(x) | (F.abs(x) == float("inf")), x).otherwise(out)
    return _as_call_type(call, out)


_ROUND_MODES = ["down", "up", "towards_zero", "towards_infinity", "half_down", "half_up",
                "half_towards_zero", "half_towards_infinity", "half_to_even", "half_to_odd"]


def _round_mode(value) -> str:
    if isinstance(value, str):
        return value
    return _ROUND_MODES[int(value)]


# -- comparisons ----------------------------------------------------------------------------

def _comparison(op):
    def translate(call, a, t):
        F = _F()
        x, y = a
        result = op(x, y)
        if _is_float(t[0]) or _is_float(t[1]):
            side = _non_nan_constant_side(call)
            if side is not None:  # pushable into Spark's Parquet reader: no CASE WHEN
                column = a[1 - side]
                return result & ~F.isnan(column) if _nan_guard(call.name, side) else result
            # IEEE: NaN is unequal to everything (Spark: NaN = NaN and NaN is largest)
            nan = F.isnan(x) | F.isnan(y)
            return F.when(nan & x.isNotNull() & y.isNotNull(), F.lit(call.name == "not_equal")) \
                .otherwise(result)
        return result

    return translate


def _non_nan_constant_side(call) -> int | None:
    """Which argument (1 or 0) is a constant that is neither null nor NaN; None if neither."""
    for side in (1, 0):
        arg = call.args[side]
        if arg.is_literal and isinstance(arg.value, pa.Scalar) and arg.value.is_valid:
            value = arg.value.as_py()
            return None if isinstance(value, float) and math.isnan(value) else side
    return None


# Spark orders NaN above every number and makes NaN = NaN; Arrow makes every comparison
# with NaN false except `!=`. Against a non-NaN constant they differ only where Spark finds
# the NaN side greater, and there a conjunct `and not isnan(column)` restores Arrow's answer
# (isnan(null) is false, so nulls stay null); the plain comparison stays pushable.
_NAN_TRUE_IN_SPARK = {("greater", 1), ("greater_equal", 1), ("less", 0), ("less_equal", 0)}


def _nan_guard(name: str, constant_side: int) -> bool:
    return (name, constant_side) in _NAN_TRUE_IN_SPARK


TRANSLATORS["equal"] = _comparison(lambda x, y: x == y)
TRANSLATORS["not_equal"] = _comparison(lambda x, y: x != y)
TRANSLATORS["less"] = _comparison(lambda x, y: x < y)
TRANSLATORS["less_equal"] = _comparison(lambda x, y: x <= y)
TRANSLATORS["greater"] = _comparison(lambda x, y: x > y)
TRANSLATORS["greater_equal"] = _comparison(lambda x, y: x >= y)


# -- logic -----------------------------------------------------------------------------------

@register("and_kleene")
def _and_kleene(call, a, t):
    return a[0] & a[1]


@register("or_kleene")
def _or_kleene(call, a, t):
    return a[0] | a[1]


def _null_if_any_null(call, args, value):
    F = _F()
    cond = args[0].isNull()
    for col in args[1:]:
        cond = cond | col.isNull()
    return F.when(cond, F.lit(None).cast("boolean")).otherwise(value)


@register("and")
def _and(call, a, t):
    return _null_if_any_null(call, a, a[0] & a[1])


@register("or")
def _or(call, a, t):
    return _null_if_any_null(call, a, a[0] | a[1])


@register("xor")
def _xor(call, a, t):
    return a[0] != a[1]  # null in, null out: as Arrow


@register("and_not")
def _and_not(call, a, t):
    return _null_if_any_null(call, a, a[0] & ~a[1])


@register("and_not_kleene")
def _and_not_kleene(call, a, t):
    return a[0] & ~a[1]


@register("invert")
def _invert(call, a, t):
    return ~a[0]


# -- nulls -----------------------------------------------------------------------------------

@register("is_null")
def _is_null(call, a, t):
    F = _F()
    if _opts(call).get("nan_is_null") and _is_float(t[0]):
        return a[0].isNull() | F.isnan(a[0])
    return a[0].isNull()


@register("is_valid")
def _is_valid(call, a, t):
    return a[0].isNotNull()


@register("is_nan")
def _is_nan(call, a, t):
    F = _F()
    if t[0] is not None and not _is_float(t[0]):
        return F.when(a[0].isNotNull(), F.lit(False))
    return F.when(a[0].isNotNull(), F.isnan(a[0]))


@register("true_unless_null")
def _true_unless_null(call, a, t):
    F = _F()
    return F.when(a[0].isNotNull(), F.lit(True))


@register("coalesce")
def _coalesce(call, a, t):
    return _F().coalesce(*a) if len(a) > 1 else a[0]


# -- sets ------------------------------------------------------------------------------------

_NULL_MATCHING = ["match", "skip", "emit_null", "inconclusive"]


def _set_values(call):
    """The set's distinct non-null values as literals, their first positions, and how nulls match."""
    values = value_set(call.options)
    behavior = _opts(call).get("null_matching_behavior", 0)
    behavior = behavior if isinstance(behavior, str) else _NULL_MATCHING[int(behavior)]
    literals, positions, seen = [], [], set()
    null_position = None
    for i in range(len(values)):
        scalar = values[i]
        if not scalar.is_valid:
            null_position = i if null_position is None else null_position
            continue
        key = scalar.as_py()
        if key in seen:
            continue
        seen.add(key)
        literals.append(literal_column(scalar))
        positions.append(i)
    return literals, positions, null_position, behavior


@register("is_in")
def _is_in(call, a, t):
    """Arrow's null matching: MATCH (default) and SKIP never give null; Spark's IN does."""
    F = _F()
    literals, _, null_position, behavior = _set_values(call)
    matched = a[0].isin(*literals) if literals else F.lit(False)
    null_bool = F.lit(None).cast("boolean")
    if behavior == "match":
        return F.when(a[0].isNull(), F.lit(null_position is not None)).otherwise(matched)
    if behavior == "skip":
        return F.when(a[0].isNull(), F.lit(False)).otherwise(matched)
    if behavior == "emit_null":
        return F.when(a[0].isNotNull(), matched)
    # inconclusive: SQL's IN (a miss against a set holding null is unknown)
    if null_position is not None:
        return F.when(a[0].isNotNull() & matched, F.lit(True)).otherwise(null_bool)
    return F.when(a[0].isNotNull(), matched)


@register("index_in")
def _index_in(call, a, t):
    F = _F()
    literals, positions, null_position, behavior = _set_values(call)
    if literals:
        where = F.array_position(F.array(*literals), a[0])  # 1-based, 0: absent
        index = F.when(where > 0, F.element_at(F.array(*[F.lit(p) for p in positions]),
                                               where.cast("int")))
    else:
        index = F.lit(None)
    on_null = F.lit(None)
    if behavior == "match" and null_position is not None:
        on_null = F.lit(null_position)
    return F.when(a[0].isNull(), on_null).otherwise(index).cast("int")


# -- cast ------------------------------------------------------------------------------------

@register("cast")
def _cast(call, a, t):
    F = _F()
    target = cast_target(call.options)
    out = a[0].cast(to_spark_type(target))
    source = t[0]
    safe = not _opts(call).get("allow_float_truncate", False)
    if _is_float(source) and pat.is_integer(target) and safe:
        # Arrow's safe cast refuses to drop a fraction; Spark truncates
        return F.when(a[0] != F.floor(a[0]), _fail(
            f"cast: float value would be truncated converting to {target}")).otherwise(out)
    return out


# -- strings ---------------------------------------------------------------------------------

@register("utf8_upper")
def _upper(call, a, t):
    return _F().upper(a[0])


@register("utf8_lower")
def _lower(call, a, t):
    return _F().lower(a[0])


@register("utf8_length")
def _utf8_length(call, a, t):
    return _as_call_type(call, _F().char_length(a[0]))


@register("utf8_reverse")
def _reverse(call, a, t):
    return _F().reverse(a[0])


_TRIMS = {"utf8_trim_whitespace": "(?U)^\\s+|\\s+$", "utf8_ltrim_whitespace": "(?U)^\\s+",
          "utf8_rtrim_whitespace": "(?U)\\s+$"}


@register(*_TRIMS)
def _trim(call, a, t):
    """Unicode whitespace, as Arrow's utf8 trims (Java's \\s alone is ASCII: hence (?U))."""
    return _F().regexp_replace(a[0], _TRIMS[call.name], "")


@register("utf8_is_digit")
def _is_digit(call, a, t):
    return a[0].rlike("^\\p{Nd}+$")


def _pattern(call):
    values = _opts(call)
    return values["pattern"], bool(values.get("ignore_case", False))


def _folded(column, pattern, ignore_case):
    F = _F()
    if ignore_case:
        return F.lower(column), pattern.lower()
    return column, pattern


@register("starts_with")
def _starts_with(call, a, t):
    column, pattern = _folded(a[0], *_pattern(call))
    return column.startswith(pattern)


@register("ends_with")
def _ends_with(call, a, t):
    column, pattern = _folded(a[0], *_pattern(call))
    return column.endswith(pattern)


@register("match_substring")
def _match_substring(call, a, t):
    column, pattern = _folded(a[0], *_pattern(call))
    return column.contains(pattern)


@register("match_like")
def _match_like(call, a, t):
    pattern, ignore_case = _pattern(call)
    return a[0].ilike(pattern) if ignore_case else a[0].like(pattern)


@register("utf8_slice_codeunits")
def _slice(call, a, t):
    F = _F()
    values = _opts(call)
    start, stop, step = int(values["start"]), int(values["stop"]), int(values.get("step", 1))
    if step != 1:
        raise untranslatable("utf8_slice_codeunits", f"step {step} (only step 1 has a Spark "
                             "equivalent)")
    n = F.char_length(a[0])
    begin = F.greatest(n + start, F.lit(0)) if start < 0 else F.least(F.lit(start), n)
    stop = min(stop, 2**31 - 1)
    end = F.greatest(n + stop, F.lit(0)) if stop < 0 else F.least(F.lit(stop), n)
    return a[0].substr(begin + 1, F.greatest(end - begin, F.lit(0)))


@register("binary_join_element_wise")
def _join(call, a, t):
    F = _F()
    values = _opts(call)
    handling = _null_handling(values.get("null_handling", 0))
    *parts, separator = a
    if handling == "replace":
        replacement = F.lit(values.get("null_replacement", ""))
        parts = [F.coalesce(p, replacement) for p in parts]
    joined = F.call_function("concat_ws", separator, *parts)
    if handling == "emit_null":
        any_null = separator.isNull()
        for p in parts:
            any_null = any_null | p.isNull()
        return F.when(~any_null, joined)
    return F.when(separator.isNotNull(), joined)


def _null_handling(value) -> str:
    if isinstance(value, str):
        return value
    return ["emit_null", "skip", "replace"][int(value)]


# -- temporal --------------------------------------------------------------------------------

def _temporal(spark_name):
    def translate(call, a, t):
        F = _F()
        return _as_call_type(call, getattr(F, spark_name)(a[0])).cast(
            to_spark_type(call.type) if call.type is not None else "long")

    return translate


for _name, _spark in {"year": "year", "month": "month", "day": "dayofmonth", "hour": "hour",
                      "minute": "minute", "second": "second", "quarter": "quarter",
                      "day_of_year": "dayofyear"}.items():
    TRANSLATORS[_name] = _temporal(_spark)


def _micros_of_second(column):
    """Microseconds within the second (time zones move whole seconds, so any zone will do)."""
    F = _F()
    return F.pmod(F.unix_micros(column.cast("timestamp")), F.lit(1_000_000))


@register("millisecond", "microsecond", "nanosecond")
def _subsecond(call, a, t):
    """Arrow: ms within the second, us within the ms, ns within the us (Spark keeps us only)."""
    F = _F()
    micros = _micros_of_second(a[0])
    if call.name == "millisecond":
        out = F.floor(micros / 1000)
    elif call.name == "microsecond":
        out = F.pmod(micros, F.lit(1000))
    else:
        if t[0] is not None and pat.is_timestamp(t[0]) and t[0].unit == "ns":
            raise untranslatable("nanosecond", "Spark keeps timestamps in microseconds")
        out = F.when(a[0].isNotNull(), F.lit(0))
    return _as_call_type(call, out).cast(
        to_spark_type(call.type) if call.type is not None else "long")


@register("day_of_week")
def _day_of_week(call, a, t):
    F = _F()
    values = _opts(call)
    zero = bool(values.get("count_from_zero", True))
    week_start = int(values.get("week_start", 1))  # 1 = Monday ... 7 = Sunday
    monday0 = F.weekday(a[0])  # Spark: Monday = 0 ... Sunday = 6
    shifted = (monday0 - (week_start - 1) + 7) % 7 + (0 if zero else 1)
    return _as_call_type(call, shifted).cast(
        to_spark_type(call.type) if call.type is not None else "long")


# -- conditionals and structs ------------------------------------------------------------------

@register("if_else")
def _if_else(call, a, t):
    F = _F()
    cond, then, otherwise = a
    # Arrow: a null condition gives null (Spark would take the else branch)
    return F.when(cond.isNull(), _null(call)).when(cond, then).otherwise(otherwise)


@register("choose")
def _choose(call, a, t):
    F = _F()
    index, *values = a
    column = F.when(index.isNull(), _null(call))
    for k, value in enumerate(values):
        column = column.when(index == k, value)
    return column.otherwise(_fail("choose: index out of range"))  # Arrow's error


def _case_when(call, column_of):
    F = _F()
    conditions = call.args[0]
    if not (conditions.is_call and conditions.name == "make_struct"):
        raise untranslatable("case_when", "its first argument must be make_struct(conditions) "
                             "for Spark")
    conds = [column_of(c) for c in conditions.args]
    values = [column_of(v) for v in call.args[1:]]
    out = None
    for cond, value in zip(conds, values):
        out = F.when(cond, value) if out is None else out.when(cond, value)
    if len(values) > len(conds):
        out = out.otherwise(values[len(conds)])
    return out


STRUCTURAL_TRANSLATORS["case_when"] = _case_when


@register("make_struct")
def _make_struct(call, a, t):
    F = _F()
    names = field_names(call.options) if call.options is not None else \
        [str(i) for i in range(len(a))]
    return F.struct(*[col.alias(name) for col, name in zip(a, names)])


@register("struct_field")
def _struct_field(call, a, t):
    ref = FieldRef.from_dot_path(_opts(call)["field_ref"])
    column, struct_type = a[0], t[0]
    for leaf in ref.leaves():
        if leaf.is_name:
            column = column.getField(leaf.name)
            struct_type = struct_type.field(leaf.name).type if struct_type is not None else None
            continue
        if struct_type is None:
            raise untranslatable("struct_field", "an index path needs the struct type "
                                 "(bind the expression first)")
        for i in leaf.field_path.indices:
            child = struct_type.field(i)
            column = column.getField(child.name)
            struct_type = child.type
    return column


# -- functions whose Spark function means the same -------------------------------------------

# Arrow name -> the Spark SQL function computing the same values on the same arguments
# (the result cast back to Arrow's type). Arrow functions not here and without a
# translator above have no Spark equivalent: native mode names them, engine mode runs them.
SAME_MEANING = {
    **{n: n for n in ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                      "tanh", "asinh", "acosh", "atanh", "expm1", "hypot")},
    "binary_length": "octet_length", "iso_week": "weekofyear",
}


def _same_meaning(spark_name):
    def translate(call, a, t):
        return _as_call_type(call, _F().call_function(spark_name, *a))

    return translate


for _name, _spark in SAME_MEANING.items():
    TRANSLATORS[_name] = _same_meaning(_spark)

# the bit-wise operations, as Spark's operators (Arrow's result type kept)
_BITWISE = {"bit_wise_and": "bitwiseAND", "bit_wise_or": "bitwiseOR", "bit_wise_xor": "bitwiseXOR"}
SAME_MEANING.update({name: method for name, method in _BITWISE.items()})


def _bitwise(method):
    def translate(call, a, t):
        return _as_call_type(call, getattr(a[0], method)(a[1]))

    return translate


for _name, _method in _BITWISE.items():
    TRANSLATORS[_name] = _bitwise(_method)


@register("bit_wise_not")
def _bit_wise_not(call, a, t):
    return _as_call_type(call, _F().bitwise_not(a[0]))


SAME_MEANING["bit_wise_not"] = "bitwise_not"


@register("days_between")
def _days_between(call, a, t):
    """Spark's datediff(end, start) on dates; on timestamps the days depend on time zones."""
    if not all(x is not None and pat.is_date32(x) for x in t):
        raise untranslatable("days_between", "Spark's datediff reads timestamps in the "
                             "session time zone; only dates translate")
    return _as_call_type(call, _F().datediff(a[1], a[0]))


SAME_MEANING["days_between"] = "datediff (dates)"


@register("list_value_length")
def _list_value_length(call, a, t):
    """Spark's size, null for a null list (legacy Spark says -1)."""
    F = _F()
    return _as_call_type(call, F.when(a[0].isNotNull(), F.size(a[0])))


SAME_MEANING["list_value_length"] = "size"
del _name, _spark, _method
