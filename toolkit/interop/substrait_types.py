"""Arrow types, schemas and literal values as Substrait writes them, both ways.

Substrait has one string, one binary and one decimal type, instants only in UTC
(`precision_timestamp_tz` carries no zone name) and no unsigned integers (Arrow
adds those as extension types). A type with no Substrait form is refused with
its name rather than written as a near one. Messages written before Substrait
0.50 (pyarrow 26 still writes them) hold times and timestamps in fields the
current protobuf classes no longer declare; they are read from the message's
unknown fields.
"""

from __future__ import annotations

import decimal

import pyarrow as pa
from google.protobuf import unknown_fields
from substrait import algebra_pb2, type_pb2

from ..errors import SubstraitError
from ..visible_text import visible

__all__ = [
    "literal_from_substrait",
    "literal_to_substrait",
    "schema_from_substrait",
    "schema_to_substrait",
    "type_from_substrait",
    "type_to_substrait",
]

NULLABLE = type_pb2.Type.NULLABILITY_NULLABLE
REQUIRED = type_pb2.Type.NULLABILITY_REQUIRED

_SIMPLE_TO_SUBSTRAIT = {
    pa.bool_(): "bool", pa.int8(): "i8", pa.int16(): "i16", pa.int32(): "i32",
    pa.int64(): "i64", pa.float32(): "fp32", pa.float64(): "fp64",
    pa.string(): "string", pa.binary(): "binary", pa.date32(): "date",
}
_SIMPLE_FROM_SUBSTRAIT = {kind: t for t, kind in _SIMPLE_TO_SUBSTRAIT.items()}
_SIMPLE_FROM_SUBSTRAIT.update({"varchar": pa.string(), "fixed_char": pa.string()})

_UNIT_PRECISION = {"s": 0, "ms": 3, "us": 6, "ns": 9}
_PRECISION_UNIT = {p: u for u, p in _UNIT_PRECISION.items()}

# fields of Substrait before 0.50 that the current classes leave unknown
_OLD_TYPE_TIME = 17  # Type.time: microseconds past midnight
_OLD_TYPE_TIMESTAMP = 14  # Type.timestamp: microseconds, no zone
_OLD_TYPE_TIMESTAMP_TZ = 29  # Type.timestamp_tz: microseconds, UTC
_OLD_LITERAL_TIMESTAMP = 14
_OLD_LITERAL_TIME = 17
_OLD_LITERAL_TIMESTAMP_TZ = 27


def _refuse(what: str, where: str) -> SubstraitError:
    return SubstraitError(f"{what} (at {where})" if where else what)


# -- types ---------------------------------------------------------------------------


def type_to_substrait(t: pa.DataType, nullable: bool = True, where: str = "") -> type_pb2.Type:
    """The Substrait type of an Arrow type; refused, naming the type, if it has none."""
    out = type_pb2.Type()
    nullability = NULLABLE if nullable else REQUIRED
    kind = _SIMPLE_TO_SUBSTRAIT.get(t)
    if kind is not None:
        getattr(out, kind).nullability = nullability
    elif pa.types.is_timestamp(t):
        if t.tz is None:
            out.precision_timestamp.precision = _UNIT_PRECISION[t.unit]
            out.precision_timestamp.nullability = nullability
        elif t.tz in ("UTC", "+00:00", "Z"):
            out.precision_timestamp_tz.precision = _UNIT_PRECISION[t.unit]
            out.precision_timestamp_tz.nullability = nullability
        else:
            raise _refuse(f"{t} has no Substrait type: Substrait's timestamp_tz holds UTC "
                          "instants and no zone name, so only a UTC zone round-trips", where)
    elif pa.types.is_time(t):
        out.precision_time.precision = _UNIT_PRECISION[t.unit]
        out.precision_time.nullability = nullability
    elif pa.types.is_decimal(t):
        if t.precision > 38:
            raise _refuse(f"{t} has no Substrait type: Substrait decimals hold at most "
                          "38 digits", where)
        out.decimal.precision = t.precision
        out.decimal.scale = t.scale
        out.decimal.nullability = nullability
    elif pa.types.is_fixed_size_binary(t):
        out.fixed_binary.length = t.byte_width
        out.fixed_binary.nullability = nullability
    elif pa.types.is_list(t):
        out.list.type.CopyFrom(type_to_substrait(t.value_type, t.value_field.nullable, where))
        out.list.nullability = nullability
    elif pa.types.is_map(t):
        out.map.key.CopyFrom(type_to_substrait(t.key_type, False, where))
        out.map.value.CopyFrom(type_to_substrait(t.item_type, t.item_field.nullable, where))
        out.map.nullability = nullability
    elif pa.types.is_struct(t):
        for f in t:
            out.struct.types.append(type_to_substrait(f.type, f.nullable, where))
        out.struct.nullability = nullability
    else:
        raise _refuse(f"the Arrow type {t} has no Substrait type exprscope writes "
                      "(Substrait has no unsigned, 16-bit float, large, view, duration, "
                      "dictionary or union types)", where)
    return out


def type_from_substrait(t: type_pb2.Type, names: list[str] | None = None,
                        where: str = "type") -> pa.DataType:
    """The Arrow type of a Substrait type; `names` feeds struct field names depth-first."""
    kind = t.WhichOneof("kind")
    simple = _SIMPLE_FROM_SUBSTRAIT.get(kind)
    if simple is not None:
        return simple
    if kind in ("precision_timestamp", "precision_timestamp_tz"):
        unit = _precision_unit(getattr(t, kind).precision, where)
        return pa.timestamp(unit, "UTC" if kind.endswith("_tz") else None)
    if kind == "precision_time":
        return pa.time64("us") if t.precision_time.precision <= 6 else pa.time64("ns")
    if kind == "decimal":
        precision = t.decimal.precision or 38
        if not 1 <= precision <= 38 or not 0 <= t.decimal.scale <= precision:
            raise _refuse(f"decimal({t.decimal.precision}, {t.decimal.scale}) is not a "
                          "valid decimal type", where)
        return pa.decimal128(precision, t.decimal.scale)
    if kind == "fixed_binary":
        if t.fixed_binary.length <= 0:
            raise _refuse("fixed_binary needs a positive length", where)
        return pa.binary(t.fixed_binary.length)
    if kind == "list":
        return pa.list_(type_from_substrait(t.list.type, names, where + ".list"))
    if kind == "map":
        return pa.map_(type_from_substrait(t.map.key, names, where + ".map.key"),
                       type_from_substrait(t.map.value, names, where + ".map.value"))
    if kind == "struct":
        fields = []
        for i, child in enumerate(t.struct.types):
            name = names.pop(0) if names else str(i)
            fields.append(pa.field(name, type_from_substrait(child, names, f"{where}.struct[{i}]"),
                                   child_nullable(child)))
        return pa.struct(fields)
    if kind is None:
        old = _old_fields(t)
        if _OLD_TYPE_TIME in old:
            return pa.time64("us")
        if _OLD_TYPE_TIMESTAMP in old:
            return pa.timestamp("us")
        if _OLD_TYPE_TIMESTAMP_TZ in old:
            return pa.timestamp("us", "UTC")
        raise _refuse("a type with no kind set", where)
    raise _refuse(f"the Substrait type {kind} has no Arrow type exprscope reads", where)


def child_nullable(t: type_pb2.Type) -> bool:
    kind = t.WhichOneof("kind")
    if kind is None:
        return True
    return getattr(getattr(t, kind), "nullability", NULLABLE) != REQUIRED


def _precision_unit(precision: int, where: str) -> str:
    unit = _PRECISION_UNIT.get(precision)
    if unit is None:
        raise _refuse(f"a timestamp precision of {precision} digits has no Arrow unit "
                      "(Arrow has 0, 3, 6 and 9)", where)
    return unit


def _old_fields(message) -> set[int]:
    return {f.field_number for f in unknown_fields.UnknownFieldSet(message)}


def _old_value(message, number: int):
    for f in unknown_fields.UnknownFieldSet(message):
        if f.field_number == number:
            return f.data
    return None


# -- schemas -------------------------------------------------------------------------


def schema_to_substrait(schema: pa.Schema, out: type_pb2.NamedStruct) -> None:
    """Fill a NamedStruct: names depth-first through structs, types with nullability."""
    def names_of(t: pa.DataType):
        if pa.types.is_struct(t):
            for f in t:
                yield f.name
                yield from names_of(f.type)
        elif pa.types.is_list(t):
            yield from names_of(t.value_type)
        elif pa.types.is_map(t):
            yield from names_of(t.key_type)
            yield from names_of(t.item_type)

    for f in schema:
        out.names.append(f.name)
        out.names.extend(names_of(f.type))
        out.struct.types.append(type_to_substrait(f.type, f.nullable, f"field {visible(f.name)}"))
    out.struct.nullability = REQUIRED


def schema_from_substrait(named: type_pb2.NamedStruct, where: str = "base_schema") -> pa.Schema:
    names = list(named.names)
    fields = []
    for i, t in enumerate(named.struct.types):
        if not names:
            raise _refuse(f"the schema names fewer fields than its {len(named.struct.types)} "
                          "types", where)
        name = names.pop(0)
        fields.append(pa.field(name, type_from_substrait(t, names, f"{where}.struct.types[{i}]"),
                               child_nullable(t)))
    if names:
        raise _refuse(f"the schema has {len(names)} more names than fields "
                      f"(first unused: {visible(names[0])!r})", where)
    try:
        return pa.schema(fields)
    except (pa.ArrowException, ValueError) as exc:
        raise _refuse(f"not a valid schema: {exc}", where) from None


# -- literals ------------------------------------------------------------------------


def literal_to_substrait(value: pa.Scalar, where: str = "") -> algebra_pb2.Expression.Literal:
    """A Substrait literal of an Arrow scalar (a null keeps its type)."""
    out = algebra_pb2.Expression.Literal()
    t = value.type
    if not value.is_valid:
        out.null.CopyFrom(type_to_substrait(t, True, where))
        return out
    kind = _SIMPLE_TO_SUBSTRAIT.get(t)
    if kind == "bool":
        out.boolean = value.as_py()
    elif kind in ("i8", "i16", "i32", "i64", "fp32", "fp64", "string", "binary"):
        setattr(out, kind, value.as_py())
    elif kind == "date":
        out.date = value.cast(pa.int32()).as_py()
    elif pa.types.is_timestamp(t):
        type_to_substrait(t, True, where)  # refuses a zone that is not UTC
        target = out.precision_timestamp_tz if t.tz is not None else out.precision_timestamp
        target.precision = _UNIT_PRECISION[t.unit]
        target.value = value.cast(pa.int64()).as_py()
    elif pa.types.is_time(t):
        out.precision_time.precision = _UNIT_PRECISION[t.unit]
        out.precision_time.value = value.cast(pa.int64()).as_py()
    elif pa.types.is_decimal(t):
        type_to_substrait(t, True, where)
        unscaled = int(value.as_py().scaleb(t.scale))
        out.decimal.value = unscaled.to_bytes(16, "little", signed=True)
        out.decimal.precision = t.precision
        out.decimal.scale = t.scale
    elif pa.types.is_fixed_size_binary(t):
        out.fixed_binary = value.as_py()
    elif pa.types.is_list(t):
        if len(value) == 0:
            out.empty_list.CopyFrom(type_to_substrait(t, True, where).list)
        for item in value.values:
            out.list.values.append(literal_to_substrait(item, where))
    elif pa.types.is_struct(t):
        for i in range(t.num_fields):
            out.struct.fields.append(literal_to_substrait(value[i], where))
    else:
        raise _refuse(f"a literal of type {t} has no Substrait form exprscope writes "
                      "(see type_to_substrait)", where)
    return out


def literal_from_substrait(lit: algebra_pb2.Expression.Literal, where: str) -> pa.Scalar:
    kind = lit.WhichOneof("literal_type")
    if kind == "null":
        return pa.scalar(None, type_from_substrait(lit.null, None, where + ".null"))
    if kind == "boolean":
        return pa.scalar(lit.boolean, pa.bool_())
    if kind in ("i8", "i16", "i32", "i64", "fp32", "fp64", "string", "binary"):
        t = _SIMPLE_FROM_SUBSTRAIT[kind]
        try:
            return pa.scalar(getattr(lit, kind), t)
        except (OverflowError, pa.ArrowException) as exc:
            raise _refuse(f"the {kind} literal {getattr(lit, kind)!r} does not fit: {exc}",
                          where) from None
    if kind in ("fixed_char", "var_char"):
        return pa.scalar(lit.fixed_char if kind == "fixed_char" else lit.var_char.value,
                         pa.string())
    if kind == "fixed_binary":
        return pa.scalar(lit.fixed_binary, pa.binary(len(lit.fixed_binary)))
    if kind == "date":
        return pa.scalar(lit.date, pa.int32()).cast(pa.date32())
    if kind in ("precision_timestamp", "precision_timestamp_tz"):
        ts = getattr(lit, kind)
        unit = _precision_unit(ts.precision, where)
        t = pa.timestamp(unit, "UTC" if kind.endswith("_tz") else None)
        return pa.scalar(ts.value, pa.int64()).cast(t)
    if kind == "precision_time":
        p = lit.precision_time.precision
        unit = _precision_unit(p, where)
        t = pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit)
        return _checked_cast(pa.scalar(lit.precision_time.value, pa.int64()), t, where)
    if kind == "decimal":
        d = lit.decimal
        if len(d.value) != 16:
            raise _refuse(f"a decimal literal holds {len(d.value)} bytes; Substrait's hold 16",
                          where)
        t = type_from_substrait(type_pb2.Type(decimal=type_pb2.Type.Decimal(
            precision=d.precision, scale=d.scale)), None, where)
        unscaled = int.from_bytes(d.value, "little", signed=True)
        try:
            return pa.scalar(decimal.Decimal(unscaled).scaleb(-d.scale), t)
        except (pa.ArrowException, decimal.InvalidOperation) as exc:
            raise _refuse(f"the decimal literal does not fit {t}: {exc}", where) from None
    if kind == "list":
        items = [literal_from_substrait(v, f"{where}.list.values[{i}]")
                 for i, v in enumerate(lit.list.values)]
        if not items:
            raise _refuse("a list literal with no values (Substrait writes empty_list)", where)
        try:
            return pa.scalar([v.as_py() for v in items], pa.list_(items[0].type))
        except (pa.ArrowException, TypeError, ValueError) as exc:
            raise _refuse(f"the list literal's values are not of one type: {exc}",
                          where) from None
    if kind == "empty_list":
        return pa.scalar([], pa.list_(type_from_substrait(lit.empty_list.type, None, where)))
    if kind == "struct":
        items = [literal_from_substrait(v, f"{where}.struct.fields[{i}]")
                 for i, v in enumerate(lit.struct.fields)]
        t = pa.struct([pa.field(str(i), v.type) for i, v in enumerate(items)])
        return pa.scalar({str(i): v.as_py() for i, v in enumerate(items)}, t)
    if kind is None:
        old = _old_fields(lit)
        if _OLD_LITERAL_TIMESTAMP in old:
            return pa.scalar(_signed(_old_value(lit, _OLD_LITERAL_TIMESTAMP)),
                             pa.int64()).cast(pa.timestamp("us"))
        if _OLD_LITERAL_TIMESTAMP_TZ in old:
            return pa.scalar(_signed(_old_value(lit, _OLD_LITERAL_TIMESTAMP_TZ)),
                             pa.int64()).cast(pa.timestamp("us", "UTC"))
        if _OLD_LITERAL_TIME in old:
            return _checked_cast(pa.scalar(_signed(_old_value(lit, _OLD_LITERAL_TIME)),
                                           pa.int64()), pa.time64("us"), where)
        raise _refuse("a literal with no value set", where)
    raise _refuse(f"a {kind} literal has no Arrow value exprscope reads", where)


def _signed(varint: int) -> int:
    """An int64 read from an unknown field arrives as its unsigned 64-bit pattern."""
    return varint - (1 << 64) if varint >= 1 << 63 else varint


def _checked_cast(value: pa.Scalar, t: pa.DataType, where: str) -> pa.Scalar:
    try:
        if pa.types.is_time(t):
            count = value.as_py()
            per_day = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000,
                       "ns": 86_400_000_000_000}[t.unit]
            if not 0 <= count < per_day:
                raise ValueError(f"{count} {t.unit} is not a time of day")
        return value.cast(t)
    except (ValueError, pa.ArrowException) as exc:
        raise _refuse(f"the literal does not fit {t}: {exc}", where) from None

