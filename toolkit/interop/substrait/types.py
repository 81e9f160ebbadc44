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
from collections import deque

import pyarrow as pa
from google.protobuf import wrappers_pb2
from substrait import algebra_pb2, type_pb2

from ...errors import SubstraitError
from ...support.visible_text import visible
from .limits import MAX_NESTING
from .old_fields import add_old_field, has_old_message, old_int64

__all__ = [
    "ARROW_EXTENSION_TYPES",
    "UserTypes",
    "check_type_depth",
    "literal_from_substrait",
    "literal_to_substrait",
    "schema_from_substrait",
    "schema_to_substrait",
    "type_depth",
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

# decimal arithmetic wide enough for 38 digits (Python's default context keeps 28)
_DECIMAL = decimal.Context(prec=80)

_MAX_TYPE_DEPTH = MAX_NESTING // 2
_UNIT_PRECISION = {"s": 0, "ms": 3, "us": 6, "ns": 9}
_PRECISION_UNIT = {p: u for u, p in _UNIT_PRECISION.items()}

# fields of Substrait before 0.50 that the current classes leave unknown
_OLD_TYPE_TIME = 17  # Type.time: microseconds past midnight
_OLD_TYPE_TIMESTAMP = 14  # Type.timestamp: microseconds, no zone
_OLD_TYPE_TIMESTAMP_TZ = 29  # Type.timestamp_tz: microseconds, UTC
_OLD_LITERAL_TIMESTAMP = 14
_OLD_LITERAL_TIME = 17
_OLD_LITERAL_TIMESTAMP_TZ = 27


# Arrow's own extension types (format/substrait/extension_types.yaml): the Arrow types
# Substrait has none of, and the protobuf wrapper their literals travel in
ARROW_EXTENSION_TYPES: dict[str, tuple[pa.DataType, type]] = {
    "u8": (pa.uint8(), wrappers_pb2.UInt64Value),
    "u16": (pa.uint16(), wrappers_pb2.UInt64Value),
    "u32": (pa.uint32(), wrappers_pb2.UInt64Value),
    "u64": (pa.uint64(), wrappers_pb2.UInt64Value),
    "fp16": (pa.float16(), wrappers_pb2.FloatValue),
    "time_seconds": (pa.time32("s"), wrappers_pb2.Int32Value),
    "time_millis": (pa.time32("ms"), wrappers_pb2.Int32Value),
    "time_nanos": (pa.time64("ns"), wrappers_pb2.Int64Value),
    "date_millis": (pa.date64(), wrappers_pb2.Int64Value),
    "large_string": (pa.large_string(), wrappers_pb2.StringValue),
    "large_binary": (pa.large_binary(), wrappers_pb2.BytesValue),
}
_EXTENSION_NAME = {t: name for name, (t, _) in ARROW_EXTENSION_TYPES.items()}
ARROW_TYPES_URN = "extension:org.apache.arrow:extension_types"
ARROW_TYPES_URI = "https://github.com/apache/arrow/blob/main/format/substrait/extension_types.yaml"


class UserTypes:
    """The user-defined types of one message: anchor -> name when reading, and the
    anchors a writer hands out. Only Arrow's own extension types are known."""

    def __init__(self, names: dict[int, str] | None = None):
        self.names = dict(names or {})
        self.anchors: dict[str, int] = {}

    def anchor(self, name: str) -> int:
        return self.anchors.setdefault(name, len(self.anchors) + 1)

    def arrow_type(self, reference: int, where: str) -> tuple[pa.DataType, type]:
        name = self.names.get(reference)
        if name is None:
            raise _refuse(f"user-defined type {reference} is declared nowhere in the "
                          "message's extensions", where)
        found = ARROW_EXTENSION_TYPES.get(name)
        if found is None:
            raise _refuse(f"the user-defined type {visible(name)!r} is not one of Arrow's "
                          f"extension types ({', '.join(ARROW_EXTENSION_TYPES)})", where)
        return found


def _refuse(what: str, where: str) -> SubstraitError:
    return SubstraitError(f"{what} (at {where})" if where else what)


# -- types ---------------------------------------------------------------------------


def type_depth(t: pa.DataType) -> int:
    """How many types nest in `t`, itself included (int64 1, list<int64> 2), iteratively."""
    deepest, stack = 0, [(t, 1)]
    while stack:
        t, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((t.field(i).type, depth + 1) for i in range(t.num_fields))
    return deepest


def check_type_depth(t: pa.DataType, where: str = "") -> None:
    """Refuse a type nested deeper than a Substrait message can hold: every nested type
    nests two messages (the Type and its kind), and readers stop at 100."""
    depth = type_depth(t)
    if depth > _MAX_TYPE_DEPTH:
        shown = str(t)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise _refuse(f"the type {shown} nests {depth:,} types deep; Substrait writes each as "
                      f"two nested messages and protobuf's readers take {MAX_NESTING} at "
                      f"most, so exprscope writes types {_MAX_TYPE_DEPTH} deep at most", where)


def type_to_substrait(t: pa.DataType, nullable: bool = True, where: str = "",
                      user_types: UserTypes | None = None) -> type_pb2.Type:
    """The Substrait type of an Arrow type (Arrow's extension types where `user_types`
    collects them); refused, naming the type, if it has none."""
    check_type_depth(t, where)
    return _type_to_substrait(t, nullable, where, user_types)


def _type_to_substrait(t: pa.DataType, nullable: bool, where: str,
                       user_types: UserTypes | None) -> type_pb2.Type:
    out = type_pb2.Type()
    nullability = NULLABLE if nullable else REQUIRED
    kind = _SIMPLE_TO_SUBSTRAIT.get(t)
    extension = _EXTENSION_NAME.get(t)
    if kind is not None:
        getattr(out, kind).nullability = nullability
    elif extension is not None and user_types is not None:
        out.user_defined.type_reference = user_types.anchor(extension)
        out.user_defined.nullability = nullability
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
        if t.unit == "us":  # readers before Substrait 0.50 (pyarrow 26) know only `time`,
            # whose fields are numbered as every simple type's (Boolean's here)
            add_old_field(out, _OLD_TYPE_TIME, type_pb2.Type.Boolean(nullability=nullability))
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
        out.list.type.CopyFrom(_type_to_substrait(t.value_type, t.value_field.nullable, where,
                                                 user_types))
        out.list.nullability = nullability
    elif pa.types.is_map(t):
        out.map.key.CopyFrom(_type_to_substrait(t.key_type, False, where, user_types))
        out.map.value.CopyFrom(_type_to_substrait(t.item_type, t.item_field.nullable, where,
                                                 user_types))
        out.map.nullability = nullability
    elif pa.types.is_struct(t):
        for f in t:
            out.struct.types.add().CopyFrom(_type_to_substrait(f.type, f.nullable, where,
                                                             user_types))
        out.struct.nullability = nullability
    else:
        raise _refuse(f"the Arrow type {t} has no Substrait type exprscope writes "
                      "(Substrait has no unsigned, 16-bit float, large, view, duration, "
                      "dictionary or union types)", where)
    return out


def type_from_substrait(t: type_pb2.Type, names: deque[str] | None = None,
                        where: str = "type", user_types: UserTypes | None = None,
                        names_in_lists: bool = False) -> pa.DataType:
    """The Arrow type of a Substrait type; `names` feeds struct field names depth-first
    (inside lists and maps too when `names_in_lists`, as the specification says; pyarrow
    names only the structs outside them and reads the others' fields as "")."""
    kind = t.WhichOneof("kind")
    simple = _SIMPLE_FROM_SUBSTRAIT.get(kind)
    if simple is not None:
        return simple
    inner = names if names_in_lists else None

    def child(sub, names_, at):
        return type_from_substrait(sub, names_, at, user_types, names_in_lists)

    if kind in ("precision_timestamp", "precision_timestamp_tz"):
        unit = _precision_unit(getattr(t, kind).precision, where)
        return pa.timestamp(unit, "UTC" if kind.endswith("_tz") else None)
    if kind == "precision_time":
        unit = _precision_unit(t.precision_time.precision, where)
        return pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit)
    if kind == "decimal":
        precision = t.decimal.precision
        if not 1 <= precision <= 38 or not 0 <= t.decimal.scale <= precision:
            raise _refuse(f"decimal({t.decimal.precision}, {t.decimal.scale}) is not a "
                          "valid decimal type (a precision of 1 to 38 digits, a scale from 0 "
                          "to the precision)", where)
        return pa.decimal128(precision, t.decimal.scale)
    if kind == "fixed_binary":
        if t.fixed_binary.length <= 0:
            raise _refuse("fixed_binary needs a positive length", where)
        return pa.binary(t.fixed_binary.length)
    if kind == "list":
        return pa.list_(child(t.list.type, inner, where + ".list"))
    if kind == "map":
        return pa.map_(child(t.map.key, inner, where + ".map.key"),
                       child(t.map.value, inner, where + ".map.value"))
    if kind == "struct":
        fields = []
        for i, sub in enumerate(t.struct.types):
            name = names.popleft() if names is not None and names else (
                "" if names is None else str(i))
            fields.append(pa.field(name, child(sub, names, f"{where}.struct[{i}]"),
                                   child_nullable(sub)))
        return pa.struct(fields)
    if kind == "user_defined":
        return (user_types or UserTypes()).arrow_type(t.user_defined.type_reference, where)[0]
    if kind is None:
        if has_old_message(t, _OLD_TYPE_TIME, "the old time type", where):
            return pa.time64("us")
        if has_old_message(t, _OLD_TYPE_TIMESTAMP, "the old timestamp type", where):
            return pa.timestamp("us")
        if has_old_message(t, _OLD_TYPE_TIMESTAMP_TZ, "the old timestamp_tz type", where):
            return pa.timestamp("us", "UTC")
        raise _refuse("a type with no kind set", where)
    raise _refuse(f"the Substrait type {kind} has no Arrow type exprscope reads", where)


def _names_needed(t: type_pb2.Type, in_lists: bool) -> int:
    kind = t.WhichOneof("kind")
    if kind == "struct":
        return sum(1 + _names_needed(sub, in_lists) for sub in t.struct.types)
    if in_lists and kind == "list":
        return _names_needed(t.list.type, in_lists)
    if in_lists and kind == "map":
        return _names_needed(t.map.key, in_lists) + _names_needed(t.map.value, in_lists)
    return 0


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






def schema_to_substrait(schema: pa.Schema, out: type_pb2.NamedStruct,
                        user_types: UserTypes | None = None) -> None:
    """Fill a NamedStruct: names depth-first through structs (not through lists and maps,
    which pyarrow's reader refuses to count), types with nullability."""
    def names_of(t: pa.DataType):
        if pa.types.is_struct(t):
            for f in t:
                yield f.name
                yield from names_of(f.type)

    for f in schema:
        written = type_to_substrait(f.type, f.nullable, f"field {visible(f.name)}", user_types)
        out.names.append(f.name)
        out.names.extend(names_of(f.type))
        out.struct.types.add().CopyFrom(written)
    out.struct.nullability = REQUIRED


def schema_from_substrait(named: type_pb2.NamedStruct, where: str = "base_schema",
                          user_types: UserTypes | None = None) -> pa.Schema:
    names = deque(named.names)
    types = list(named.struct.types)
    plain = len(types) + sum(_names_needed(t, False) for t in types)
    in_lists = plain != len(names) and len(names) == len(types) + sum(
        _names_needed(t, True) for t in types)
    expected = plain if not in_lists else len(names)
    if len(names) != expected:
        raise _refuse(f"the schema has {len(names)} names for {len(types)} fields that need "
                      f"{plain} (field names, and the names of struct fields within)", where)
    fields = []
    for i, t in enumerate(types):
        name = names.popleft()
        fields.append(pa.field(name, type_from_substrait(t, names, f"{where}.struct.types[{i}]",
                                                         user_types, in_lists),
                               child_nullable(t)))
    try:
        return pa.schema(fields)
    except (pa.ArrowException, ValueError) as exc:
        raise _refuse(f"not a valid schema: {exc}", where) from None


# -- literals ------------------------------------------------------------------------


def literal_to_substrait(value: pa.Scalar, where: str = "",
                         user_types: UserTypes | None = None) -> algebra_pb2.Expression.Literal:
    """A Substrait literal of an Arrow scalar (a null keeps its type)."""
    out = algebra_pb2.Expression.Literal()
    t = value.type
    if not value.is_valid:
        out.null.CopyFrom(type_to_substrait(t, True, where, user_types))
        return out
    kind = _SIMPLE_TO_SUBSTRAIT.get(t)
    extension = _EXTENSION_NAME.get(t)
    if extension is not None and user_types is not None:
        wrapper = ARROW_EXTENSION_TYPES[extension][1]
        py = value.cast(pa.int64()).as_py() if pa.types.is_temporal(t) else value.as_py()
        out.user_defined.type_reference = user_types.anchor(extension)
        out.user_defined.value.Pack(wrapper(value=py))
    elif kind == "bool":
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
        if t.unit == "us":  # readers before Substrait 0.50 (pyarrow 26) know only this
            add_old_field(out, _OLD_LITERAL_TIMESTAMP_TZ if t.tz else _OLD_LITERAL_TIMESTAMP,
                          target.value)
    elif pa.types.is_time(t):
        out.precision_time.precision = _UNIT_PRECISION[t.unit]
        out.precision_time.value = value.cast(pa.int64()).as_py()
        if t.unit == "us":
            add_old_field(out, _OLD_LITERAL_TIME, out.precision_time.value)
    elif pa.types.is_decimal(t):
        type_to_substrait(t, True, where)
        unscaled = int(value.as_py().scaleb(t.scale, context=_DECIMAL))
        out.decimal.value = unscaled.to_bytes(16, "little", signed=True)
        out.decimal.precision = t.precision
        out.decimal.scale = t.scale
    elif pa.types.is_fixed_size_binary(t):
        out.fixed_binary = value.as_py()
    elif pa.types.is_list(t):
        if len(value) == 0:
            out.empty_list.CopyFrom(type_to_substrait(t, True, where).list)
        for item in value.values:
            out.list.values.add().CopyFrom(literal_to_substrait(item, where, user_types))
    elif pa.types.is_struct(t):
        out.struct.SetInParent()  # a struct of no fields is still a struct literal
        for i in range(t.num_fields):
            out.struct.fields.add().CopyFrom(literal_to_substrait(value[i], where, user_types))
    else:
        raise _refuse(f"a literal of type {t} has no Substrait form exprscope writes "
                      "(see type_to_substrait)", where)
    return out


def literal_from_substrait(lit: algebra_pb2.Expression.Literal, where: str,
                           user_types: UserTypes | None = None) -> pa.Scalar:
    kind = lit.WhichOneof("literal_type")
    if kind == "null":
        return pa.scalar(None, type_from_substrait(lit.null, None, where + ".null", user_types))
    if kind == "user_defined":
        return _user_defined(lit.user_defined, where, user_types or UserTypes())
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
            return pa.scalar(decimal.Decimal(unscaled).scaleb(-d.scale, context=_DECIMAL), t)
        except (pa.ArrowException, decimal.InvalidOperation) as exc:
            raise _refuse(f"the decimal literal does not fit {t}: {exc}", where) from None
    if kind == "list":
        items = [literal_from_substrait(v, f"{where}.list.values[{i}]", user_types)
                 for i, v in enumerate(lit.list.values)]
        if not items:
            raise _refuse("a list literal with no values (Substrait writes empty_list)", where)
        return _list_scalar(items, where)
    if kind == "empty_list":
        return pa.scalar([], pa.list_(type_from_substrait(lit.empty_list.type, None, where,
                                                          user_types)))
    if kind == "struct":  # Substrait's struct literals carry no names; Arrow reads them ""
        items = [literal_from_substrait(v, f"{where}.struct.fields[{i}]", user_types)
                 for i, v in enumerate(lit.struct.fields)]
        if not items:
            return pa.scalar({}, pa.struct([]))
        return pa.StructArray.from_arrays([pa.repeat(v, 1) for v in items],
                                          fields=[pa.field("", v.type) for v in items])[0]
    if kind is None:
        micros = old_int64(lit, _OLD_LITERAL_TIMESTAMP, "the old timestamp literal", where)
        if micros is not None:
            return pa.scalar(micros, pa.int64()).cast(pa.timestamp("us"))
        micros = old_int64(lit, _OLD_LITERAL_TIMESTAMP_TZ, "the old timestamp_tz literal",
                           where)
        if micros is not None:
            return pa.scalar(micros, pa.int64()).cast(pa.timestamp("us", "UTC"))
        micros = old_int64(lit, _OLD_LITERAL_TIME, "the old time literal", where)
        if micros is not None:
            return _checked_cast(pa.scalar(micros, pa.int64()), pa.time64("us"), where)
        raise _refuse("a literal with no value set", where)
    raise _refuse(f"a {kind} literal has no Arrow value exprscope reads", where)


def _list_scalar(items: list[pa.Scalar], where: str) -> pa.Scalar:
    """A list of scalars, built from arrays and never through Python values (a timestamp
    past year 9999 or at -2**63 ns has none); the values take the first one's type."""
    t = items[0].type
    try:
        values = pa.concat_arrays([pa.repeat(v if v.type == t else v.cast(t), 1)
                                   for v in items])
    except pa.ArrowException as exc:
        raise _refuse(f"the list literal's values are not of one type ({t} first): {exc}",
                      where) from None
    return pa.ListArray.from_arrays(pa.array([0, len(items)], pa.int32()), values)[0]


def _user_defined(value, where: str, user_types: UserTypes) -> pa.Scalar:
    t, wrapper = user_types.arrow_type(value.type_reference, where)
    held = wrapper()
    if not value.HasField("value") or not value.value.Unpack(held):
        raise _refuse(f"a {t} literal must hold a google.protobuf.{wrapper.__name__}", where)
    try:
        if pa.types.is_temporal(t):
            storage = pa.int32() if t.bit_width == 32 else pa.int64()
            return _checked_cast(pa.scalar(held.value, storage), t, where)
        return pa.scalar(held.value, t)
    except (OverflowError, pa.ArrowException) as exc:
        raise _refuse(f"the literal does not fit {t}: {exc}", where) from None






def _checked_cast(value: pa.Scalar, t: pa.DataType, where: str) -> pa.Scalar:
    if pa.types.is_time(t):
        count = value.as_py()
        per_day = {"s": 86_400, "ms": 86_400_000, "us": 86_400_000_000,
                   "ns": 86_400_000_000_000}[t.unit]
        if not 0 <= count < per_day:
            raise _refuse(f"the literal does not fit {t}: {count} {t.unit} is not a time of "
                          "day", where)
    try:
        return value.cast(t)
    except (ValueError, pa.ArrowException) as exc:
        raise _refuse(f"the literal does not fit {t}: {exc}", where) from None

