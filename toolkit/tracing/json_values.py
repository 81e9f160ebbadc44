"""Arrow values as JSON: types, scalars, arrays, tables, options, row sets.

Exact round trips matter more than pretty JSON, so values travel as Arrow IPC
bytes (base64) next to a readable `text`: a decimal stays a decimal, a
timestamp keeps its unit and zone, options keep every field. Row selections are
bitmaps (a million rows is 125 KB before compression), not lists of numbers.
"""

from __future__ import annotations

import base64
import binascii
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import TraceFormatError
from ..observe import RowPiece
from .ipc_payload import checked_file, read_schema, read_stream

__all__ = [
    "array_from_json",
    "array_to_json",
    "options_from_json",
    "options_to_json",
    "plain_value",
    "rows_from_json",
    "rows_to_json",
    "scalar_from_json",
    "scalar_to_json",
    "table_from_json",
    "table_to_json",
    "type_from_json",
    "type_to_json",
]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _payload(doc: dict, where: str, key: str = "ipc") -> bytes:
    """The bytes under `key`, or a TraceFormatError naming where when they are not base64."""
    try:
        return base64.b64decode(doc[key].encode("ascii"), validate=True)
    except (binascii.Error, ValueError, AttributeError) as exc:
        raise TraceFormatError(f"not a valid exprscope trace: {where}.{key} is not base64: "
                               f"{str(exc)[:100]}") from None


def _ipc_batch(batch: pa.RecordBatch) -> str:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return _b64(sink.getvalue().to_pybytes())


def _whole(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# -- types ------------------------------------------------------------------------
def type_to_json(t: pa.DataType) -> dict:
    return {"text": str(t), "ipc": _b64(pa.schema([pa.field("t", t)]).serialize().to_pybytes())}


def type_from_json(doc: dict, where: str = "a type") -> pa.DataType:
    schema = read_schema(_payload(doc, where), f"{where}.ipc")
    if len(schema) != 1:
        raise TraceFormatError(f"not a valid exprscope trace: {where}.ipc holds "
                               f"{len(schema)} fields, not one")
    return schema.field(0).type


# -- scalars and arrays -----------------------------------------------------------
def array_to_json(values: pa.Array | pa.ChunkedArray) -> dict:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    batch = pa.RecordBatch.from_arrays([values], ["v"])
    return {"type": str(values.type), "length": len(values), "ipc": _ipc_batch(batch)}


def array_from_json(doc: dict, where: str = "an array", rows: int | None = None) -> pa.Array:
    """The array back; `rows` (else the doc's "length") is the length it must have."""
    rows = _whole(doc.get("length")) if rows is None else rows
    table = read_stream(_payload(doc, where), f"{where}.ipc", rows)
    if table.num_columns != 1:
        raise TraceFormatError(f"not a valid exprscope trace: {where}.ipc holds "
                               f"{table.num_columns} columns, not one")
    column = table.column(0)
    return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)


def scalar_to_json(value: pa.Scalar) -> dict:
    doc = array_to_json(pa.repeat(value, 1))
    doc["text"] = str(pc.scalar(value)) if value.is_valid else "null"
    return doc


def scalar_from_json(doc: dict, where: str = "a value") -> pa.Scalar:
    return array_from_json(doc, where, rows=1)[0]


def table_to_json(data: pa.Table | pa.RecordBatch) -> dict:
    if isinstance(data, pa.Table):
        data = data.combine_chunks()
        batches = data.to_batches()
        batch = batches[0] if batches else pa.RecordBatch.from_pylist([], schema=data.schema)
    else:
        batch = data
    return {"rows": batch.num_rows, "ipc": _ipc_batch(batch)}


def table_from_json(doc: dict, where: str = "a table") -> pa.Table:
    return read_stream(_payload(doc, where), f"{where}.ipc", _whole(doc.get("rows")))


# -- options ----------------------------------------------------------------------
def options_to_json(options: pc.FunctionOptions) -> dict:
    return {"class": type(options).__name__, "ipc": _b64(options.serialize().to_pybytes())}


def options_from_json(doc: dict, where: str = "options") -> pc.FunctionOptions:
    cls = getattr(pc, doc["class"], None)
    if not (isinstance(cls, type) and issubclass(cls, pc.FunctionOptions)):
        raise TraceFormatError(f"not a valid exprscope trace: {where}.class is "
                               f"{doc['class']!r}, not a pyarrow.compute options class")
    checked = checked_file(_payload(doc, where), f"{where}.ipc")
    try:
        return cls.deserialize(checked)
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise TraceFormatError(f"not a valid exprscope trace: {where}.ipc is not "
                               f"{doc['class']}: {str(exc)[:200]}") from None


# -- row selections ---------------------------------------------------------------
def rows_to_json(rows, total: int) -> dict:
    """Row indices as a compressed bitmap when increasing, else as a compressed int64 list."""
    indices = np.asarray(rows.to_numpy(zero_copy_only=False) if hasattr(rows, "to_numpy")
                         else rows, dtype=np.int64)
    count = int(indices.size)
    increasing = count < 2 or bool(np.all(indices[1:] > indices[:-1]))
    in_range = count == 0 or (indices[0] >= 0 and indices[-1] < total)
    if increasing and in_range:
        bits = np.zeros(total, dtype=bool)
        bits[indices] = True
        payload = np.packbits(bits).tobytes()
        return {"bitmap": _b64(zlib.compress(payload)), "count": count}
    return {"list": _b64(zlib.compress(indices.astype("<i8").tobytes())), "count": count}


def rows_from_json(doc: dict, total: int, where: str = "a selection") -> tuple:
    """The rows as `BranchSelection` takes them, and how many there are.

    A bitmap stays one bit a row (a boolean mask in one `RowPiece`) until someone
    reads the rows: 2^29 rows selected are 64 MB as a mask, 4 GiB as indices. A
    payload that unpacks beyond what `total` rows need is refused (a small
    compressed file must not expand into gigabytes), and so is a count that is
    not the number of rows the payload selects.
    """
    if "bitmap" in doc:
        need = (total + 7) // 8
        packed = np.frombuffer(_inflate(doc, "bitmap", need, where), dtype=np.uint8)
        if len(packed) != need:
            raise TraceFormatError(f"not a valid exprscope trace: {where}.bitmap holds "
                                   f"{len(packed):,} bytes for {total:,} rows")
        arrow_bits = pa.py_buffer(_ARROW_BIT_ORDER[packed].tobytes())  # numpy packs MSB first
        mask = pa.Array.from_buffers(pa.bool_(), total, [None, arrow_bits])
        rows, count = (RowPiece(0, total, None, mask),), mask.true_count
    else:
        count = doc.get("count", 0)
        indices = np.frombuffer(_inflate(doc, "list", 8 * count, where), dtype="<i8")
        if len(indices) != count or (count and (indices.min() < 0 or indices.max() >= total)):
            raise TraceFormatError(f"not a valid exprscope trace: {where}.list is not "
                                   f"{count:,} rows below {total:,}")
        rows = pa.array(indices.astype(np.int64))
    if doc.get("count") is not None and doc["count"] != count:
        raise TraceFormatError(f"not a valid exprscope trace: {where}.count is "
                               f"{doc['count']:,} but the bitmap selects {count:,} rows")
    return rows, count


_ARROW_BIT_ORDER = np.packbits(np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1),
                               axis=1, bitorder="little")[:, 0]


def _inflate(doc: dict, key: str, limit: int, where: str) -> bytes:
    """zlib data, unpacked to at most `limit` bytes (one more is read to notice a bomb)."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(_payload(doc, where, key), limit + 1)
    except zlib.error as exc:
        raise TraceFormatError(f"not a valid exprscope trace: {where}.{key} is not zlib "
                               f"data: {exc}") from None
    if len(data) > limit:
        raise TraceFormatError(f"not a valid exprscope trace: {where}.{key} is a compressed "
                               f"selection that unpacks beyond {limit:,} bytes")
    return data


# -- anything else ----------------------------------------------------------------
def plain_value(value, _depth: int = 0):
    """A JSON-safe stand-in for a value of unknown kind: itself if JSON has it, else text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if _depth < 20 and isinstance(value, (list, tuple)):
        return [plain_value(v, _depth + 1) for v in value]
    if _depth < 20 and isinstance(value, dict):
        return {str(k): plain_value(v, _depth + 1) for k, v in value.items()}
    return str(value)
