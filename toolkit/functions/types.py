"""Type patterns for signatures and Arrow's common-type rules for implicit casts.

The patterns (`InputType`s) say which argument types a kernel accepts; the rules
(`common_numeric`, `common_temporal`, `common_binary`, the decimal promotions)
are the ones Arrow's DispatchBest uses to pick the types arguments are cast to
(`cpp/src/arrow/compute/kernels/codegen_internal.cc`). They are pure functions
over `pa.DataType` lists so dispatch can be explained step by step.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.types as pat

from ..errors import BindError
from .function import InputType, OutputType

__all__ = [
    "ANY",
    "BASE_BINARY",
    "FLOATS",
    "INTS",
    "NUMERIC",
    "SIGNED_INTS",
    "STRINGS",
    "TIME_UNITS",
    "UNSIGNED_INTS",
    "cast_binary_decimal_args",
    "cast_decimal_args",
    "common_binary",
    "common_numeric",
    "common_temporal",
    "common_temporal_resolution",
    "compare_decimal_operands",
    "computed",
    "decimal_operands",
    "decode_dictionaries",
    "exact",
    "fixed",
    "is_decimal",
    "is_integer",
    "make_decimal",
    "max_decimal_digits",
    "of_kind",
    "replace_null_with_other",
    "replace_temporal_types",
    "same_as",
    "timestamp_unit",
    "types_text",
]

TIME_UNITS = ("s", "ms", "us", "ns")
_UNIT_RANK = {u: i for i, u in enumerate(TIME_UNITS)}

# NumericTypes() in Arrow's order (the order kernels are registered in)
UNSIGNED_INTS = [pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
SIGNED_INTS = [pa.int8(), pa.int16(), pa.int32(), pa.int64()]
INTS = UNSIGNED_INTS + SIGNED_INTS
FLOATS = [pa.float32(), pa.float64()]
NUMERIC = INTS + FLOATS
BASE_BINARY = [pa.binary(), pa.utf8(), pa.large_binary(), pa.large_utf8()]
STRINGS = [pa.utf8(), pa.large_utf8()]


def types_text(types: Sequence[pa.DataType]) -> str:
    """Argument types as Arrow prints them in dispatch errors: `(string, int8)`."""
    return "(" + ", ".join(str(t) for t in types) + ")"


# -- input patterns -------------------------------------------------------------------

def exact(t: pa.DataType) -> InputType:
    """Exactly this type (parameters included)."""
    return InputType(str(t), lambda x, t=t: x == t)


def of_kind(name: str, predicate) -> InputType:
    """Any type of a kind (Arrow's `InputType(Type::ID)`), e.g. any decimal128."""
    return InputType(name, predicate)


def timestamp_unit(unit: str) -> InputType:
    """A timestamp of this unit with any time zone (Arrow's match::TimestampTypeUnit)."""
    return InputType(f"timestamp({unit})", lambda x, u=unit: pat.is_timestamp(x) and x.unit == u)


ANY = InputType("any", lambda x: True)


# -- output rules --------------------------------------------------------------------

def fixed(t: pa.DataType) -> OutputType:
    return OutputType(str(t), lambda types, options, t=t: t)


def same_as(i: int, name: str | None = None) -> OutputType:
    """The type of argument i (Arrow's FirstType / LastType)."""
    return OutputType(name or ("first type" if i == 0 else "last type" if i == -1 else f"type of arg {i}"),
                      lambda types, options, i=i: types[i])


def computed(name: str, resolve) -> OutputType:
    return OutputType(name, resolve)


# -- predicates ---------------------------------------------------------------------

def is_integer(t: pa.DataType) -> bool:
    return pat.is_integer(t)


def is_decimal(t: pa.DataType) -> bool:
    return pat.is_decimal128(t) or pat.is_decimal256(t)


def _bit_width(t: pa.DataType) -> int:
    return t.bit_width


# -- common types (DispatchBest building blocks) -------------------------------------------

def common_numeric(types: Sequence[pa.DataType]) -> pa.DataType | None:
    """Arrow's CommonNumeric: the float if any, else the integer that holds all.

    Mixing signed and unsigned widens the signed side past the unsigned width
    (int8 + uint8 -> int16; int64 + uint64 -> int64, as Arrow caps at 64 bits).
    """
    if not types:
        return None
    for t in types:
        if not (pat.is_integer(t) or pat.is_floating(t)):
            return None
        if pat.is_float16(t):
            return None
    if any(pat.is_float64(t) for t in types):
        return pa.float64()
    if any(pat.is_float32(t) for t in types):
        return pa.float32()
    max_signed = max([_bit_width(t) for t in types if pat.is_signed_integer(t)], default=0)
    max_unsigned = max([_bit_width(t) for t in types if pat.is_unsigned_integer(t)], default=0)
    if max_signed == 0:
        return {64: pa.uint64(), 32: pa.uint32(), 16: pa.uint16(), 8: pa.uint8()}[max_unsigned]
    if max_signed <= max_unsigned:
        max_signed = 1 << max_unsigned.bit_length()  # Arrow: NextPower2(max_unsigned + 1)
    if max_signed >= 64:
        return pa.int64()
    return {32: pa.int32(), 16: pa.int16(), 8: pa.int8()}[max_signed]


def common_temporal_resolution(types: Sequence[pa.DataType]) -> str | None:
    """The finest time unit among temporal arguments, or None if none is temporal."""
    finest = 0
    seen = False
    for t in types:
        if pat.is_date32(t):
            seen = True
        elif pat.is_date64(t):
            finest = max(finest, _UNIT_RANK["ms"])
            seen = True
        elif pat.is_timestamp(t) or pat.is_duration(t) or pat.is_time(t):
            finest = max(finest, _UNIT_RANK[t.unit])
            seen = True
    return TIME_UNITS[finest] if seen else None


def replace_temporal_types(unit: str, types: Sequence[pa.DataType]) -> list[pa.DataType]:
    """Arrow's ReplaceTemporalTypes: every temporal argument moves to `unit`; dates become timestamps."""
    out = []
    for t in types:
        if pat.is_timestamp(t):
            out.append(pa.timestamp(unit, t.tz))
        elif pat.is_time(t):
            out.append(pa.time64(unit) if _UNIT_RANK[unit] > _UNIT_RANK["ms"] else pa.time32(unit))
        elif pat.is_duration(t):
            out.append(pa.duration(unit))
        elif pat.is_date(t):
            out.append(pa.timestamp(unit))
        else:
            out.append(t)
    return out


def common_temporal(types: Sequence[pa.DataType]) -> pa.DataType | None:
    """Arrow's CommonTemporal: the finest unit; time zones must agree; times don't mix with dates."""
    finest = 0
    tz: str | None = None
    saw_tz_slot = False
    saw_date32 = saw_date64 = saw_duration = saw_time = False
    for t in types:
        if pat.is_date32(t):
            saw_date32 = True
        elif pat.is_date64(t):
            finest = max(finest, _UNIT_RANK["ms"])
            saw_date64 = True
        elif pat.is_timestamp(t):
            ttz = t.tz or ""
            if saw_tz_slot and tz != ttz:
                return None
            tz, saw_tz_slot = ttz, True
            finest = max(finest, _UNIT_RANK[t.unit])
        elif pat.is_time(t):
            finest = max(finest, _UNIT_RANK[t.unit])
            saw_time = True
        elif pat.is_duration(t):
            finest = max(finest, _UNIT_RANK[t.unit])
            saw_duration = True
        else:
            return None
    saw_ts_or_date = saw_tz_slot or saw_date64 or saw_date32 or saw_duration
    unit = TIME_UNITS[finest]
    if saw_time and saw_ts_or_date:
        return None
    if saw_ts_or_date:
        if saw_tz_slot:
            return pa.timestamp(unit, tz or None)
        if saw_date64:
            return pa.date64()
        if saw_date32:
            return pa.date32()
        if saw_duration:
            return pa.duration(unit)
    if saw_time:
        return pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit)
    return None


def common_binary(types: Sequence[pa.DataType]) -> pa.DataType | None:
    """Arrow's CommonBinary: utf8 if all are strings, large if any is large; binary otherwise."""
    all_utf8 = all_offset32 = all_fixed = True
    for t in types:
        if pat.is_string(t):
            all_fixed = False
        elif pat.is_binary(t):
            all_fixed = all_utf8 = False
        elif pat.is_fixed_size_binary(t):
            all_utf8 = False
        elif pat.is_large_string(t):
            all_offset32 = all_fixed = False
        elif pat.is_large_binary(t):
            all_offset32 = all_fixed = all_utf8 = False
        else:
            return None
    if all_fixed:
        return None
    if all_utf8:
        return pa.utf8() if all_offset32 else pa.large_utf8()
    return pa.binary() if all_offset32 else pa.large_binary()


def decode_dictionaries(types: Sequence[pa.DataType]) -> list[pa.DataType]:
    """Arrow's EnsureDictionaryDecoded: a dictionary argument counts as its value type."""
    return [t.value_type if pat.is_dictionary(t) else t for t in types]


def replace_null_with_other(types: Sequence[pa.DataType]) -> list[pa.DataType]:
    """Arrow's ReplaceNullWithOtherType (two arguments): a null takes the other's type."""
    a, b = types
    if pat.is_null(b):
        return [a, a]
    if pat.is_null(a):
        return [b, b]
    return [a, b]


# -- decimals --------------------------------------------------------------------------

_MAX_DIGITS = {pa.int8(): 3, pa.uint8(): 3, pa.int16(): 5, pa.uint16(): 5, pa.int32(): 10,
               pa.uint32(): 10, pa.int64(): 19, pa.uint64(): 20}


def max_decimal_digits(t: pa.DataType) -> int:
    """Decimal digits an integer type needs (Arrow's MaxDecimalDigitsForInteger)."""
    return _MAX_DIGITS[t]


def make_decimal(decimal256: bool, precision: int, scale: int) -> pa.DataType:
    """decimal128/256(precision, scale), with Arrow's range check as a BindError."""
    limit = 76 if decimal256 else 38
    if not 1 <= precision <= limit:
        raise BindError(f"Decimal precision out of range [1, {limit}]: {precision}")
    return pa.decimal256(precision, scale) if decimal256 else pa.decimal128(precision, scale)


def _precision_scale(t: pa.DataType) -> tuple[int, int]:
    if is_decimal(t):
        return t.precision, t.scale
    if is_integer(t):
        return max_decimal_digits(t), 0
    raise BindError(f"decimal promotion needs a decimal or an integer, not {t}")


def cast_binary_decimal_args(promotion: str, types: Sequence[pa.DataType]) -> list[pa.DataType]:
    """Arrow's CastBinaryDecimalArgs (Redshift's rules) for 'add', 'multiply' or 'divide'.

    decimal with float -> both float64; decimal with integer -> the integer becomes a
    decimal of its digits; then the scales are aligned as the operation needs.
    """
    left, right = types
    if pat.is_floating(left) or pat.is_floating(right):
        return [pa.float64(), pa.float64()]
    p1, s1 = _precision_scale(left)
    p2, s2 = _precision_scale(right)
    if s1 < 0 or s2 < 0:
        raise BindError("Decimals with negative scales not supported")
    wide = pat.is_decimal256(left) or pat.is_decimal256(right)
    if promotion == "add":
        left_up, right_up = max(s1, s2) - s1, max(s1, s2) - s2
    elif promotion == "multiply":
        left_up = right_up = 0
    elif promotion == "divide":
        left_up, right_up = max(4, s1 + p2 - s2 + 1) + s2 - s1, 0
    else:
        raise BindError(f"unknown decimal promotion {promotion!r}")
    return [make_decimal(wide, p1 + left_up, s1 + left_up),
            make_decimal(wide, p2 + right_up, s2 + right_up)]


def decimal_operands(types: Sequence[pa.DataType], align_scales: bool = False
                     ) -> list[pa.DataType]:
    """The operands of a binary decimal operation as decimals of one width (or float64).

    A float on either side makes both float64; an integer becomes the decimal of
    its digits (scale 0); a decimal128 meets a decimal256 as decimal256.
    `align_scales` (Arrow's DecimalPromotion::kAdd, for add, subtract and the
    comparisons): each operand is scaled up to the larger scale, its precision
    growing as much, so `d(3, 2) > i64` binds as `d > cast(i64, decimal128(21, 2))`
    as Arrow's expression tests say. Otherwise the scales are left alone and the
    kernel aligns them when it runs, as pyarrow's does.
    """
    if any(pat.is_floating(t) for t in types):
        return [pa.float64()] * len(types)
    wide = any(pat.is_decimal256(t) for t in types)
    shapes = [_precision_scale(t) for t in types]
    if align_scales:
        top = max(s for _, s in shapes)
        shapes = [(p + top - s, top) for p, s in shapes]
    if any(p > 38 for p, _ in shapes):
        wide = True
    if any(p > 76 for p, _ in shapes):
        raise BindError(f"a decimal of precision {max(p for p, _ in shapes)} is needed to "
                        "compare or add these exactly; Decimal256 holds at most 76 digits")
    return [make_decimal(wide, p, s) for p, s in shapes]


_DECIMAL_WIDTHS = ((32, 9, pa.decimal32), (64, 18, pa.decimal64), (128, 38, pa.decimal128),
                   (256, 76, pa.decimal256))


def compare_decimal_operands(types: Sequence[pa.DataType]) -> list[pa.DataType]:
    """Both sides of a decimal comparison as decimals of one width and one scale (or float64).

    Arrow's CompareFunction casts with DecimalPromotion::kAdd: a float makes both
    float64; an integer becomes the decimal of its digits; the side with the
    smaller scale is scaled up, its precision growing as much. Both take the
    widest decimal width present (decimal32 < 64 < 128 < 256), and a wider one
    when a precision outgrows it, up to decimal128: as in Arrow, a comparison of
    decimal128s needing 39 digits fails rather than becoming decimal256.
    """
    if any(pat.is_floating(t) for t in types):
        return [pa.float64()] * len(types)
    shapes = []
    for t in types:
        if pat.is_decimal(t):
            shapes.append((t.precision, t.scale))
        elif is_integer(t):
            shapes.append((max_decimal_digits(t), 0))
        else:
            raise BindError(f"decimal promotion needs a decimal or an integer, not {t}")
    top = max(s for _, s in shapes)
    shapes = [(p + top - s, top) for p, s in shapes]
    width = max((t.bit_width for t in types if pat.is_decimal(t)), default=128)
    need = max(p for p, _ in shapes)
    for bits, digits, make in _DECIMAL_WIDTHS:
        if bits >= width and need <= digits and (bits < 256 or width == 256):
            return [make(p, s) for p, s in shapes]
    most = 76 if width == 256 else 38
    raise BindError(f"a decimal of precision {need} is needed to compare these exactly; "
                    f"Arrow compares these as decimals of at most {most} digits")


def cast_decimal_args(types: Sequence[pa.DataType]) -> list[pa.DataType]:
    """Arrow's CastDecimalArgs (if_else, case_when, coalesce): one decimal holding all."""
    wide = False
    max_scale = 0
    any_floating = False
    for t in types:
        if pat.is_floating(t):
            any_floating = True
        elif is_integer(t):
            continue
        elif is_decimal(t):
            max_scale = max(max_scale, t.scale)
            wide = wide or pat.is_decimal256(t)
        else:
            return list(types)  # non-numeric: nothing to cast
    if any_floating:
        return [pa.float64()] * len(types)
    precision = 0
    for t in types:
        if is_integer(t):
            precision = max(precision, max_decimal_digits(t) + max_scale)
        elif is_decimal(t):
            precision = max(precision, t.precision + max_scale - t.scale)
    if precision > 76:
        raise BindError(f"Result precision ({precision}) exceeds max precision of Decimal256 (76)")
    if precision > 38:
        wide = True
    return [make_decimal(wide, precision, max_scale)] * len(types)
