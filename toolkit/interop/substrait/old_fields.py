"""Fields Substrait removed that readers still in use (pyarrow 26's Acero) read and write.

The current protobuf classes no longer declare them (timestamp and time literals
before precision types, FetchRel's count and offset, grouping keys), so a message
from such a producer carries them as unknown fields, and a message for such a
consumer carries them beside the current field: a current reader skips the old
field as unknown, an old reader finds the value it knows.
"""

from __future__ import annotations

from google.protobuf import unknown_fields

__all__ = ["add_old_field", "old_field_numbers", "old_field_value", "old_field_values"]


def old_field_values(message, number: int) -> list:
    """The values of a removed field, in the order written: ints, or a message's bytes."""
    return [f.data for f in unknown_fields.UnknownFieldSet(message) if f.field_number == number]


def old_field_value(message, number: int):
    """The first value of a removed field, or None."""
    found = old_field_values(message, number)
    return found[0] if found else None


def old_field_numbers(message) -> set[int]:
    return {f.field_number for f in unknown_fields.UnknownFieldSet(message)}


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
