"""Fields Substrait removed that readers still in use (pyarrow 26's Acero) read and write.

The current protobuf classes no longer declare them (timestamp and time literals
before precision types, FetchRel's count and offset, grouping keys), so a message
from such a producer carries them as unknown fields, and a message for such a
consumer carries them beside the current field: a current reader skips the old
field as unknown, an old reader finds the value it knows. Read back, a removed
field must arrive as what it was (a number, or a message's bytes): any other
wire type under its number is refused, naming the field and the place.
"""

from __future__ import annotations

from google.protobuf import unknown_fields

from ...errors import SubstraitError

__all__ = ["add_old_field", "has_old_message", "old_int64", "old_messages"]

_VARINT = 0
_LENGTH_DELIMITED = 2
_WIRE_TYPES = {0: "number (varint)", 1: "64-bit value", 2: "length-delimited value",
               3: "group", 4: "group end", 5: "32-bit value"}


def _values(message, number: int, wire_type: int, what: str, where: str) -> list:
    out = []
    for f in unknown_fields.UnknownFieldSet(message):
        if f.field_number != number:
            continue
        if f.wire_type != wire_type:
            raise SubstraitError(
                f"field {number} here is {what}, which Substrait removed and older producers "
                f"write as a {_WIRE_TYPES[wire_type]}; it arrives as a "
                f"{_WIRE_TYPES.get(f.wire_type, f'wire type {f.wire_type}')} (at {where})")
        out.append(f.data)
    return out


def old_int64(message, number: int, what: str, where: str) -> int | None:
    """A removed int64 field's value (the last written, as protobuf reads one), or None."""
    found = _values(message, number, _VARINT, what, where)
    if not found:
        return None
    value = found[-1]  # a varint arrives as its unsigned 64-bit pattern
    return value - (1 << 64) if value >= 1 << 63 else value


def old_messages(message, number: int, what: str, where: str) -> list[bytes]:
    """The bytes of each message a removed repeated field holds, in the order written."""
    return [bytes(d) for d in _values(message, number, _LENGTH_DELIMITED, what, where)]


def has_old_message(message, number: int, what: str, where: str) -> bool:
    return bool(old_messages(message, number, what, where))


def add_old_field(message, number: int, value) -> None:
    """Write a removed field: an int (as its 64-bit pattern), or a message."""
    if isinstance(value, int):
        message.MergeFromString(_varint(number << 3) + _varint(value & 0xFFFFFFFFFFFFFFFF))
    else:
        body = value.SerializeToString()
        message.MergeFromString(_varint(number << 3 | 2) + _varint(len(body)) + body)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if not n:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)
