"""Substrait messages from untrusted bytes, and the parts every message shares.

Bytes are bounded before protobuf sees them; protobuf refuses what nests past
100 messages (about 30 expression levels) and anything that is not a message.
Extensions are declared two ways: by URN (Substrait 0.75 and the `substrait`
package) and by URI (older producers, pyarrow 26 among them, in fields the
current classes no longer declare). Functions are read by name either way, as
Arrow's consumer does; the extension's stem only makes messages clearer.
"""

from __future__ import annotations

from google.protobuf import unknown_fields
from google.protobuf.message import DecodeError, Message
from substrait import plan_pb2
from substrait.extended_expression_pb2 import ExtendedExpression
from substrait.extensions import extensions_pb2
from substrait.version import substrait_version

from ..errors import SubstraitError
from .substrait_functions import urn_of

__all__ = ["MAX_MESSAGE_BYTES", "add_old_field", "declare_functions", "decode", "function_names",
           "old_field_values", "producer", "stamp_version"]

MAX_MESSAGE_BYTES = 64 * 1024 * 1024

_OLD_EXTENSION_URIS = 1  # repeated SimpleExtensionURI {1: anchor, 2: uri}
_OLD_URI_REFERENCE = 1  # ExtensionFunction.extension_uri_reference


def decode(data, message_class: type[Message], what: str) -> Message:
    """`data` (bytes, bytearray, memoryview, a pyarrow Buffer or a message) as `message_class`."""
    if isinstance(data, message_class):
        return data
    if isinstance(data, Message):
        raise SubstraitError(f"{what} takes a {message_class.__name__}, got a "
                             f"{type(data).__name__} message")
    if hasattr(data, "to_pybytes"):  # a pyarrow Buffer
        data = data.to_pybytes()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SubstraitError(f"{what} takes the message's bytes (or the message object), not "
                             f"{type(data).__name__}")
    size = memoryview(data).nbytes
    if size == 0:
        raise SubstraitError(f"{what}: the message is empty (0 bytes)")
    if size > MAX_MESSAGE_BYTES:
        raise SubstraitError(f"{what}: the message is {size:,} bytes; exprscope reads at most "
                             f"{MAX_MESSAGE_BYTES:,}")
    message = message_class()
    try:
        message.ParseFromString(bytes(data))
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise SubstraitError(
            f"{what}: the bytes are not a Substrait {message_class.__name__} ({exc}): "
            "truncated, not protobuf, or nested deeper than protobuf's limit of 100 "
            "messages (about 30 levels of expression)") from None
    return message


def function_names(message: ExtendedExpression | plan_pb2.Plan) -> dict[int, tuple[str, str]]:
    """Function anchor -> (extension file stem or "", name) of every declared function."""
    stems = {u.extension_urn_anchor: _stem(u.urn) for u in message.extension_urns}
    for field in unknown_fields.UnknownFieldSet(message):
        if field.field_number == _OLD_EXTENSION_URIS and field.wire_type == 2:
            anchor, uri = _old_uri(field.data)
            stems.setdefault(anchor, _stem(uri))
    out: dict[int, tuple[str, str]] = {}
    for i, ext in enumerate(message.extensions):
        if ext.WhichOneof("mapping_type") != "extension_function":
            continue
        f = ext.extension_function
        if f.function_anchor in out:
            raise SubstraitError(f"function anchor {f.function_anchor} is declared twice "
                                 f"(at extensions[{i}])")
        stem = stems.get(f.extension_urn_reference, "")
        if not stem:
            for field in unknown_fields.UnknownFieldSet(f):
                if field.field_number == _OLD_URI_REFERENCE and field.wire_type == 0:
                    stem = stems.get(field.data, "")
        out[f.function_anchor] = (stem, f.name)
    return out


def declare_functions(message, anchors: dict[tuple[str, str], int]) -> None:
    """Declare the functions a writer used, each extension file by its URN."""
    urns: dict[str, int] = {}
    for (extension, _), _anchor in sorted(anchors.items(), key=lambda kv: kv[1]):
        urns.setdefault(extension, len(urns) + 1)
    for extension, anchor in urns.items():
        message.extension_urns.add(extension_urn_anchor=anchor, urn=urn_of(extension))
    for (extension, name), anchor in sorted(anchors.items(), key=lambda kv: kv[1]):
        declared = message.extensions.add().extension_function
        declared.extension_urn_reference = urns[extension]
        declared.function_anchor = anchor
        declared.name = name


def stamp_version(message) -> None:
    major, minor, patch = (int(p) for p in substrait_version.split(".")[:3])
    message.version.major_number = major
    message.version.minor_number = minor
    message.version.patch_number = patch
    message.version.producer = "exprscope"


def producer(message) -> str:
    return message.version.producer if message.HasField("version") else ""


def old_field_values(message, number: int) -> list:
    """The values of a field the current classes no longer declare: ints, or bytes of a
    message, in the order written (Substrait removed e.g. FetchRel.count, which Acero reads)."""
    return [f.data for f in unknown_fields.UnknownFieldSet(message) if f.field_number == number]


def add_old_field(message, number: int, value) -> None:
    """Write a field the current classes no longer declare: an int, or a message."""
    if isinstance(value, int):
        payload = _varint(value & 0xFFFFFFFFFFFFFFFF)
        message.MergeFromString(_varint(number << 3) + payload)
    else:
        body = value.SerializeToString()
        message.MergeFromString(_varint(number << 3 | 2) + _varint(len(body)) + body)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _stem(name: str) -> str:
    """`functions_arithmetic` from a URN or a URI naming that extension file."""
    last = name.replace(":", "/").rsplit("/", 1)[-1]
    return last.removesuffix(".yaml")


def _old_uri(data: bytes) -> tuple[int, str]:
    """A SimpleExtensionURI's anchor and URI: its fields are numbered as SimpleExtensionURN's."""
    uri = extensions_pb2.SimpleExtensionURN()
    try:
        uri.ParseFromString(bytes(data))
    except DecodeError:
        return 0, ""
    return uri.extension_urn_anchor, uri.urn
