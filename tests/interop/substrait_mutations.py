"""Mutating real Substrait messages at the protobuf wire level, for the bad-input properties.

A message's bytes are read as a tree of wire fields (a length-delimited payload
that is itself well-formed wire data is read as a nested message; strings that
happen to be are mutated as messages too, which is fine: every result is bytes
some producer could send). A mutation then changes one field: a number to an
edge value, the wire type, the field number, a payload's bytes or length, a
field dropped, repeated or moved elsewhere; or, below the fields, one byte.
`mutated_messages` changes a message read with the protobuf classes instead, so
every result is well-formed and reaches the reader's checks rather than protobuf's.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import FieldDescriptor
from hypothesis import strategies as st

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
EDGE_NUMBERS = [0, 1, 2, 7, 38, 39, 127, 128, 255, 2**31 - 1, 2**31, 2**32 - 1, 2**32,
                2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64 - 2**31]
_MAX_NESTED = 40  # how deep a seed is read as messages (the seeds are shallower)


@dataclass
class WireField:
    number: int
    wire_type: int
    value: int | bytes | list  # a varint or fixed value, raw bytes, or nested fields


def varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | 0x80 if n else low)
        if not n:
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int] | None:
    shift = value = 0
    while at < len(data) and shift < 70:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7
    return None


def parse(data: bytes, depth: int = 0) -> list[WireField] | None:
    """`data` as wire fields, or None where it is not well-formed wire data."""
    fields, at = [], 0
    while at < len(data):
        key = _read_varint(data, at)
        if key is None:
            return None
        tag, at = key
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            return None
        if wire_type == VARINT:
            read = _read_varint(data, at)
            if read is None:
                return None
            value, at = read
        elif wire_type in (FIXED64, FIXED32):
            size = 8 if wire_type == FIXED64 else 4
            if at + size > len(data):
                return None
            value, at = int.from_bytes(data[at:at + size], "little"), at + size
        elif wire_type == LENGTH:
            read = _read_varint(data, at)
            if read is None or read[1] + read[0] > len(data):
                return None
            size, at = read
            payload = data[at:at + size]
            at += size
            nested = parse(payload, depth + 1) if payload and depth < _MAX_NESTED else None
            value = nested if nested else payload
        else:
            return None
        fields.append(WireField(number, wire_type, value))
    return fields


def serialize(fields: list[WireField]) -> bytes:
    out = bytearray()
    for f in fields:
        out += varint(f.number << 3 | f.wire_type)
        if f.wire_type == VARINT:
            out += varint(f.value)
        elif f.wire_type in (FIXED64, FIXED32):
            out += (f.value & ((1 << (64 if f.wire_type == FIXED64 else 32)) - 1)).to_bytes(
                8 if f.wire_type == FIXED64 else 4, "little")
        else:
            payload = serialize(f.value) if isinstance(f.value, list) else f.value
            out += varint(len(payload)) + payload
    return bytes(out)


def _all_fields(fields: list[WireField]) -> list[tuple[list[WireField], int]]:
    """Every field of the tree as (its list, its index), walked iteratively."""
    out, stack = [], [fields]
    while stack:
        level = stack.pop()
        for i, f in enumerate(level):
            out.append((level, i))
            if isinstance(f.value, list):
                stack.append(f.value)
    return out


def _copy(f: WireField) -> WireField:
    """A deep copy, so a field moved inside itself makes no cycle."""
    value = parse(serialize(f.value)) if isinstance(f.value, list) else f.value
    return WireField(f.number, f.wire_type, value)


def _mutate_field(draw, fields: list[WireField]) -> bytes:
    places = _all_fields(fields)
    level, i = draw(st.sampled_from(places))
    f = level[i]
    how = draw(st.sampled_from(["number", "wire type", "field number", "drop", "repeat",
                                "payload", "length", "move", "replace"]))
    if how == "number" and f.wire_type in (VARINT, FIXED64, FIXED32):
        f.value = draw(st.sampled_from(EDGE_NUMBERS) | st.integers(0, 2**64 - 1))
    elif how == "wire type":
        if f.wire_type == LENGTH:
            level[i] = WireField(f.number, VARINT, draw(st.sampled_from(EDGE_NUMBERS)))
        else:
            level[i] = WireField(f.number, LENGTH, draw(st.binary(max_size=12)))
    elif how == "field number":
        f.number = draw(st.integers(1, 40) | st.sampled_from([536_870_911, 19_000, 1_000]))
    elif how == "drop":
        del level[i]
    elif how == "repeat":
        level.insert(i, _copy(f))
    elif how == "payload":
        payload = serialize(f.value) if isinstance(f.value, list) else f.value
        if f.wire_type != LENGTH:
            payload = b""
        cut = draw(st.integers(0, len(payload)))
        extra = draw(st.binary(max_size=6))
        level[i] = WireField(f.number, LENGTH, payload[:cut] + extra + payload[cut:][:8])
    elif how == "length":
        # the length prefix lies: the rest of the enclosing message is framed wrong
        before = serialize(level[:i])
        payload = (f.value if isinstance(f.value, bytes) else
                   serialize(f.value) if isinstance(f.value, list) else varint(f.value))
        lie = max(0, len(payload) + draw(st.sampled_from([-3, -1, 1, 2, 1000, 2**31])))
        after = serialize(level[i + 1:])
        broken = before + varint(f.number << 3 | LENGTH) + varint(lie) + payload + after
        level[:] = [WireField(0, -1, broken)]  # spliced below as raw bytes
    elif how == "move":
        target, j = draw(st.sampled_from(places))
        if target is not level or j != i:
            target.insert(min(j, len(target)), _copy(f))
    else:  # another field's value under this field's number
        other_level, j = draw(st.sampled_from(places))
        other = _copy(other_level[j])
        level[i] = WireField(f.number, other.wire_type, other.value)
    return _serialize_spliced(fields)


def _serialize_spliced(fields: list[WireField]) -> bytes:
    out = bytearray()
    for f in fields:
        if f.wire_type == -1:
            out += f.value
            continue
        if isinstance(f.value, list):
            out += varint(f.number << 3 | LENGTH)
            payload = _serialize_spliced(f.value)
            out += varint(len(payload)) + payload
        else:
            out += serialize([f])
    return bytes(out)


def _mutate_bytes(draw, data: bytes) -> bytes:
    out = bytearray(data)
    how = draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
    at = draw(st.integers(0, max(len(out) - 1, 0)))
    if how == "flip" and out:
        out[at] ^= draw(st.integers(1, 255))
    elif how == "cut":
        out = out[:at]
    elif how == "insert":
        out[at:at] = draw(st.binary(min_size=1, max_size=8))
    elif out:
        del out[at:at + draw(st.integers(1, 8))]
    return bytes(out)


@st.composite
def mutated(draw, seeds: list[bytes]) -> bytes:
    """One of `seeds` with one to three mutations, mostly at the field level."""
    data = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 3))):
        fields = parse(data)
        if fields and draw(st.integers(0, 4)):
            data = _mutate_field(draw, fields)
        else:
            data = _mutate_bytes(draw, data)
    return data


# -- at the message level: values a well-formed message may hold -------------------------

_EDGE_SIGNED = [0, 1, -1, 2, 3, 6, 9, 38, 39, 2**31 - 1, -2**31, 2**62, 2**63 - 1, -2**63]
_STRINGS = ["", "a", "t", "x\n", "add", "i", "s", "a.b", "\u202e", "count", "item"]


def _messages_of(message) -> list:
    """Every message in `message`'s tree, itself first, walked iteratively."""
    out, stack = [], [message]
    while stack:
        m = stack.pop()
        out.append(m)
        for field, value in m.ListFields():
            if field.type != FieldDescriptor.TYPE_MESSAGE:
                continue
            if not field.is_repeated:
                stack.append(value)
            elif not field.message_type.GetOptions().map_entry:
                stack.extend(value)
    return out


def _scalar(draw, field):
    t = field.type
    if t in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32,
             FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_ENUM):
        return draw(st.sampled_from([v for v in _EDGE_SIGNED if -2**31 <= v < 2**31]))
    if t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        return draw(st.sampled_from([v for v in _EDGE_SIGNED if 0 <= v < 2**32]))
    if t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64,
             FieldDescriptor.TYPE_SFIXED64):
        return draw(st.sampled_from(_EDGE_SIGNED))
    if t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return draw(st.sampled_from([v for v in _EDGE_SIGNED if v >= 0]))
    if t == FieldDescriptor.TYPE_BOOL:
        return draw(st.booleans())
    if t in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return draw(st.sampled_from([0.0, -1.0, float("nan"), float("inf"), 1e308]))
    if t == FieldDescriptor.TYPE_STRING:
        return draw(st.sampled_from(_STRINGS))
    return draw(st.sampled_from([b"", b"\x00" * 16, b"\xff" * 16, b"\x01\x02\x03"]))


def _mutate_message(draw, message) -> None:
    """One field of one message in the tree: a scalar set to an edge value, a message
    cleared, set from another of its type, or an element added or removed."""
    messages = _messages_of(message)
    target = draw(st.sampled_from(messages))
    fields = list(target.DESCRIPTOR.fields)
    if not fields:
        return
    field = draw(st.sampled_from(fields))
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        if field.message_type.GetOptions().map_entry:
            return
        same = [m for m in messages if m.DESCRIPTOR is field.message_type]
        # a copy through bytes: a message copied into its own subtree makes no cycle
        source = (type(same[0]).FromString(draw(st.sampled_from(same)).SerializeToString())
                  if same else None)
        if field.is_repeated:
            items = getattr(target, field.name)
            if len(items) and draw(st.booleans()):
                del items[draw(st.integers(0, len(items) - 1))]
            elif source is not None:
                items.add().CopyFrom(source)
            else:
                items.add()
        elif target.HasField(field.name) and draw(st.booleans()):
            target.ClearField(field.name)
        elif source is not None:
            getattr(target, field.name).CopyFrom(source)
        else:
            getattr(target, field.name).SetInParent()
        return
    value = _scalar(draw, field)
    if field.is_repeated:
        items = getattr(target, field.name)
        if len(items) and draw(st.booleans()):
            del items[draw(st.integers(0, len(items) - 1))]
        else:
            items.append(value)
    else:
        setattr(target, field.name, value)


@st.composite
def mutated_messages(draw, seeds: list[bytes], message_class) -> bytes:
    """One of `seeds`, read as `message_class`, with one to three fields changed to values
    a well-formed message may hold; its bytes."""
    message = message_class.FromString(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 3))):
        _mutate_message(draw, message)
    return message.SerializeToString()
