"""Substrait messages from untrusted bytes, and the parts every message shares.

Bytes are bounded before protobuf sees them (`limits`); protobuf
refuses what nests more than 100 messages below the one read (about 30 levels
of calls) and anything that is not a message. A message object handed in is
held to the same limits, so what exprscope reads, every protobuf reader reads.
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

from ...errors import SubstraitError
from .functions import urn_of
from .limits import MAX_MESSAGE_BYTES, MAX_NESTING, nesting
from .old_fields import add_old_field
from .types import ARROW_TYPES_URI, ARROW_TYPES_URN, UserTypes

__all__ = ["declare_functions", "decode", "function_names", "producer", "stamp_version",
           "user_types"]


_OLD_EXTENSION_URIS = 1  # repeated SimpleExtensionURI {1: anchor, 2: uri}
_OLD_URI_REFERENCE = 1  # ExtensionFunction.extension_uri_reference


def decode(data, message_class: type[Message], what: str) -> Message:
    """`data` (bytes, bytearray, memoryview, a pyarrow Buffer or a message) as `message_class`."""
    if isinstance(data, Message):
        if not isinstance(data, message_class):
            raise SubstraitError(f"{what} takes a {message_class.__name__}, got a "
                                 f"{type(data).__name__} message")
        if data.ByteSize() > MAX_MESSAGE_BYTES:
            raise SubstraitError(f"{what}: the message is {data.ByteSize():,} bytes; exprscope "
                                 f"reads at most {MAX_MESSAGE_BYTES:,}")
        # built in memory, a message may nest deeper than any reader of its bytes takes
        depth = nesting(data)
        if depth > MAX_NESTING:
            raise SubstraitError(f"{what}: the message nests {depth:,} messages deep; protobuf's "
                                 f"readers (pyarrow's, DataFusion's, Python's) take at most "
                                 f"{MAX_NESTING} (about 30 levels of expression)")
        data = data.SerializeToString()
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
            f"truncated, not protobuf, or nested deeper than protobuf's limit of {MAX_NESTING} "
            "messages (about 30 levels of expression)") from None
    return message


def _stems(message) -> dict[int, str]:
    stems = {u.extension_urn_anchor: _stem(u.urn) for u in message.extension_urns}
    for field in unknown_fields.UnknownFieldSet(message):
        if field.field_number == _OLD_EXTENSION_URIS and field.wire_type == 2:
            anchor, uri = _old_uri(field.data)
            stems.setdefault(anchor, _stem(uri))
    return stems


def user_types(message) -> UserTypes:
    """The user-defined types a message declares, by anchor."""
    names: dict[int, str] = {}
    for i, ext in enumerate(message.extensions):
        if ext.WhichOneof("mapping_type") == "extension_type":
            t = ext.extension_type
            if t.type_anchor in names:
                raise SubstraitError(f"type anchor {t.type_anchor} is declared twice "
                                     f"(at extensions[{i}])")
            names[t.type_anchor] = t.name
    return UserTypes(names)


def function_names(message: ExtendedExpression | plan_pb2.Plan) -> dict[int, tuple[str, str]]:
    """Function anchor -> (extension file stem or "", name) of every declared function."""
    stems = _stems(message)
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


def declare_functions(message, anchors: dict[tuple[str, str], int],
                      types: UserTypes | None = None) -> None:
    """Declare the functions and Arrow types a writer used, each extension file by its URN."""
    urns: dict[str, int] = {}
    if types is not None and types.anchors:
        urns[ARROW_TYPES_URN] = 1
        message.extension_urns.add(extension_urn_anchor=1, urn=ARROW_TYPES_URN)
        # pyarrow 26 finds Arrow's types by the file's URI only: the removed URI fields
        # are written beside the URN ones (a URI's fields are numbered as a URN's)
        add_old_field(message, _OLD_EXTENSION_URIS, extensions_pb2.SimpleExtensionURN(
            extension_urn_anchor=1, urn=ARROW_TYPES_URI))
        for name, anchor in types.anchors.items():
            declared = message.extensions.add().extension_type
            declared.extension_urn_reference = 1
            declared.type_anchor = anchor
            declared.name = name
            add_old_field(declared, _OLD_URI_REFERENCE, 1)
    for (extension, _), _anchor in sorted(anchors.items(), key=lambda kv: kv[1]):
        urns.setdefault(extension, len(urns) + 1)
    for extension, anchor in urns.items():
        if extension != ARROW_TYPES_URN:
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
