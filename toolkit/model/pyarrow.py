"""Read a pyarrow `compute.Expression` through Arrow's own serialization of it.

pyarrow offers no accessors for an expression's parts, but it pickles one
(`Expression.__reduce__`) as Arrow's C++ `Serialize` writes it: an Arrow IPC
file with one row, whose schema metadata lists the tree in prefix order as
key/value pairs:

    call <name>             a call starts; its arguments follow
    field_ref <name>        a field by name
    nested_field_ref <n>    a nested ref; the next n field_ref entries are its parts
    literal <i>             a literal: column i holds it
    options <i>             the enclosing call's options: column i, a struct
                            whose `_type_name` names the FunctionOptions class
    end <name>              the call ends

Keys repeat, so the pairs must be read in order; pyarrow's `Schema.metadata` is
a dict that keeps one value per key. The ordered pairs are read from the Arrow C
data interface export of the schema instead, whose metadata encoding is part of
Arrow's stable ABI. Nothing here runs user text: the buffer is Arrow's own bytes.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import PyarrowConversionError
from .field_ref import FieldRef

__all__ = ["Token", "tokens"]

Token = tuple  # ("call", name) | ("field", FieldRef) | ("literal", Scalar) | ("options", opts) | ("end", name)


def tokens(expr: pc.Expression) -> Iterator[Token]:
    """The expression's parts in prefix order, as Arrow serialized them."""
    try:
        buffer = expr.__reduce__()[1][0]
    except pa.ArrowNotImplementedError as err:
        raise PyarrowConversionError(
            f"pyarrow cannot serialize {_short(expr)}: {err}. exprscope reads pyarrow "
            "expressions through their serialization; field references by index "
            "(pc.field(0)) cannot be read this way, use names") from err
    table = pa.ipc.open_file(buffer).read_all()
    pairs = _ordered_metadata(table.schema)
    i = 0
    while i < len(pairs):
        key, value = pairs[i]
        i += 1
        if key in ("call", "end"):
            yield key, value
        elif key == "field_ref":
            yield "field", FieldRef(value)
        elif key == "nested_field_ref":
            count = int(value)
            parts = [v for _, v in pairs[i:i + count]]
            i += count
            yield "field", FieldRef(*parts)
        elif key == "literal":
            yield "literal", table.column(int(value))[0]
        elif key == "options":
            yield "options", _options(table.column(int(value)))
        else:
            raise PyarrowConversionError(
                f"unexpected entry {key!r} in pyarrow's serialization of {_short(expr)}")


def _options(column: pa.ChunkedArray) -> pc.FunctionOptions:
    """FunctionOptions back from their struct column, as Arrow's options deserializer reads them."""
    one = pa.table({"": column})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, one.schema) as writer:
        writer.write_table(one)
    return pc.FunctionOptions.deserialize(sink.getvalue())


class _CSchema(ctypes.Structure):
    """struct ArrowSchema of the Arrow C data interface."""

    _fields_ = [
        ("format", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("metadata", ctypes.c_void_p),
        ("flags", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("children", ctypes.c_void_p),
        ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _ordered_metadata(schema: pa.Schema) -> list[tuple[str, str]]:
    """The schema's metadata pairs in order, duplicates kept.

    The C data interface encodes them as int32 count, then per pair int32
    length + key bytes, int32 length + value bytes (native byte order). The
    capsule owns the export and releases it when it is collected.
    """
    capsule = schema.__arrow_c_schema__()
    c_schema = _CSchema.from_address(_capsule_pointer(capsule, b"arrow_schema"))
    if not c_schema.metadata:
        return []
    base = c_schema.metadata

    def int32(offset: int) -> int:
        return struct.unpack("=i", ctypes.string_at(base + offset, 4))[0]

    count, offset, pairs = int32(0), 4, []
    for _ in range(count):
        parts = []
        for _ in range(2):
            length = int32(offset)
            parts.append(ctypes.string_at(base + offset + 4, length).decode("utf-8"))
            offset += 4 + length
        pairs.append((parts[0], parts[1]))
    del capsule
    return pairs


def _short(expr) -> str:
    text = str(expr)
    return text if len(text) <= 80 else text[:77] + "..."
