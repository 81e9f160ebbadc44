"""What a Substrait file holds: an ExtendedExpression or a Plan, and the tables a plan reads.

A file does not say which message it is, and protobuf reads almost any bytes as
almost any message, so the kind is told from the top-level field numbers: the
two messages number their version differently (a Plan's is 6, an
ExtendedExpression's 7) and only an ExtendedExpression has a base schema (4).
JSON (protobuf's JSON form, as `substrait` tools write it) is told by its keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
from google.protobuf import empty_pb2, json_format, unknown_fields
from google.protobuf.message import DecodeError, Message
from substrait.extended_expression_pb2 import ExtendedExpression
from substrait.plan_pb2 import Plan

from ...errors import SubstraitError
from ...support.visible_text import visible
from .limits import MAX_MESSAGE_BYTES
from .messages import decode
from .types import schema_from_substrait

__all__ = ["PlanRead", "plan_reads", "read_substrait_file", "substrait_message"]

_PLAN_VERSION, _EXPRESSION_VERSION, _BASE_SCHEMA = 6, 7, 4


def substrait_message(data) -> ExtendedExpression | Plan:
    """`data` (a message, its bytes or its JSON text) as the ExtendedExpression or Plan it is."""
    if isinstance(data, (ExtendedExpression, Plan)):
        return data
    if isinstance(data, Message):
        raise SubstraitError(f"a {type(data).__name__} message is neither a Substrait "
                             "ExtendedExpression nor a Plan")
    if isinstance(data, str):
        return _from_json(data)
    if hasattr(data, "to_pybytes"):  # a pyarrow Buffer
        data = data.to_pybytes()
    if isinstance(data, (bytes, bytearray, memoryview)) and bytes(data[:1]) == b"{":
        try:
            return _from_json(bytes(data).decode("utf-8"))
        except UnicodeDecodeError:
            pass  # binary protobuf may start with the byte '{' too
    numbers = _top_level_fields(data)
    if numbers is None:
        raise SubstraitError("the bytes are neither a Substrait ExtendedExpression nor a Plan: "
                             "not protobuf, or truncated")
    kind = ExtendedExpression if _holds_expressions(numbers) else Plan
    return decode(data, kind, "the Substrait message")


def read_substrait_file(path: str) -> ExtendedExpression | Plan:
    """The message in a Substrait file (binary protobuf or its JSON form)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_MESSAGE_BYTES + 1)
    except OSError as exc:
        raise SubstraitError(f"--substrait: cannot read {visible(path)}: "
                             f"{exc.strerror or exc}") from None
    return substrait_message(data)


def _top_level_fields(data) -> set[int] | None:
    """The field numbers at the message's top level, None when the bytes are not protobuf."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return set()  # decode() names what it got instead
    try:
        top = empty_pb2.Empty()
        top.ParseFromString(bytes(data))
    except (DecodeError, RuntimeError, ValueError):
        return None
    return {f.field_number for f in unknown_fields.UnknownFieldSet(top)}


def _holds_expressions(numbers: set[int]) -> bool:
    if _EXPRESSION_VERSION in numbers and _PLAN_VERSION not in numbers:
        return True
    if _PLAN_VERSION in numbers and _EXPRESSION_VERSION not in numbers:
        return False
    return _BASE_SCHEMA in numbers


def _from_json(text: str) -> ExtendedExpression | Plan:
    kind = ExtendedExpression if ('"referredExpr"' in text or '"baseSchema"' in text) else Plan
    message = kind()
    try:
        json_format.Parse(text, message, ignore_unknown_fields=False)
    except (json_format.ParseError, ValueError, RecursionError) as exc:
        raise SubstraitError(f"the JSON is not a Substrait {kind.__name__}: "
                             f"{' '.join(str(exc).split())[:300]}") from None
    return message


@dataclass(frozen=True)
class PlanRead:
    """One table a plan reads: its name (parts joined by '.') and the schema it expects."""

    name: str
    schema: pa.Schema

    def empty_table(self) -> pa.Table:
        return self.schema.empty_table()


def plan_reads(message: Plan) -> list[PlanRead]:
    """Every named table a Plan reads, first read first; a table read twice is listed once."""
    found: dict[str, PlanRead] = {}
    stack: list[Message] = [message]
    while stack:
        node = stack.pop()
        if node.DESCRIPTOR.full_name == "substrait.ReadRel":
            _add_read(node, found)
        children = []
        for field, value in node.ListFields():
            if field.message_type is None:
                continue
            if field.is_repeated:  # upb's field descriptors name it so; no label needed
                if field.message_type.GetOptions().map_entry:
                    continue
                children.extend(value)
            else:
                children.append(value)
        stack.extend(reversed(children))
    return list(found.values())


def _add_read(read, found: dict[str, PlanRead]) -> None:
    if read.WhichOneof("read_type") != "named_table":
        return
    name = ".".join(read.named_table.names)
    if not name or name in found:
        return
    schema = schema_from_substrait(read.base_schema, f"the read of {visible(name)!r}")
    found[name] = PlanRead(name, schema)
