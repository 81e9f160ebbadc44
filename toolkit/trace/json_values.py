"""Arrow values as JSON: types, scalars, arrays, tables, options, row sets.

Exact round trips matter more than pretty JSON, so values travel as Arrow IPC
bytes (base64) next to a readable `text`: a decimal stays a decimal, a
timestamp keeps its unit and zone, options keep every field. Row selections are
bitmaps (a million rows is 125 KB before compression), not lists of numbers.
"""

from __future__ import annotations

import base64
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import TraceFormatError

__all__ = ["type_to_json", "type_from_json", "scalar_to_json", "scalar_from_json",
           "array_to_json", "array_from_json", "table_to_json", "table_from_json",
           "options_to_json", "options_from_json", "rows_to_json", "rows_from_json",
           "plain_value"]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def _ipc_batch(batch: pa.RecordBatch) -> str:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return _b64(sink.getvalue().to_pybytes())


def _read_ipc(text: str) -> pa.Table:
    return pa.ipc.open_stream(pa.py_buffer(_unb64(text))).read_all()


# -- types ------------------------------------------------------------------------
def type_to_json(t: pa.DataType) -> dict:
    return {"text": str(t), "ipc": _b64(pa.schema([pa.field("t", t)]).serialize().to_pybytes())}


def type_from_json(doc: dict) -> pa.DataType:
    return pa.ipc.read_schema(pa.py_buffer(_unb64(doc["ipc"]))).field(0).type


# -- scalars and arrays -----------------------------------------------------------
def array_to_json(values: pa.Array | pa.ChunkedArray) -> dict:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    batch = pa.RecordBatch.from_arrays([values], ["v"])
    return {"type": str(values.type), "length": len(values), "ipc": _ipc_batch(batch)}


def array_from_json(doc: dict) -> pa.Array:
    column = _read_ipc(doc["ipc"]).column(0)
    return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)


def scalar_to_json(value: pa.Scalar) -> dict:
    doc = array_to_json(pa.repeat(value, 1))
    doc["text"] = str(pc.scalar(value)) if value.is_valid else "null"
    return doc


def scalar_from_json(doc: dict) -> pa.Scalar:
    return array_from_json(doc)[0]


def table_to_json(data: pa.Table | pa.RecordBatch) -> dict:
    if isinstance(data, pa.Table):
        data = data.combine_chunks()
        batches = data.to_batches()
        batch = batches[0] if batches else pa.RecordBatch.from_pylist([], schema=data.schema)
    else:
        batch = data
    return {"rows": batch.num_rows, "ipc": _ipc_batch(batch)}


def table_from_json(doc: dict) -> pa.Table:
    return _read_ipc(doc["ipc"])


# -- options ----------------------------------------------------------------------
def options_to_json(options: pc.FunctionOptions) -> dict:
    return {"class": type(options).__name__, "ipc": _b64(options.serialize().to_pybytes())}


def options_from_json(doc: dict) -> pc.FunctionOptions:
    cls = getattr(pc, doc["class"], None)
    if not (isinstance(cls, type) and issubclass(cls, pc.FunctionOptions)):
        raise TraceFormatError(f"unknown pyarrow.compute options class {doc['class']!r}")
    return cls.deserialize(pa.py_buffer(_unb64(doc["ipc"])))


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


def rows_from_json(doc: dict, total: int) -> pa.Array:
    """The row indices back; a payload that unpacks beyond what `total` rows need is refused
    (a small compressed file must not expand into gigabytes)."""
    if "bitmap" in doc:
        need = (total + 7) // 8
        packed = np.frombuffer(_inflate(doc["bitmap"], need), dtype=np.uint8)
        if len(packed) != need:
            raise TraceFormatError(f"a row bitmap of {len(packed):,} bytes for {total:,} rows")
        bits = np.unpackbits(packed, count=total).astype(bool) if total else np.zeros(0, bool)
        return pa.array(np.flatnonzero(bits).astype(np.int64))
    count = int(doc.get("count", 0))
    indices = np.frombuffer(_inflate(doc["list"], 8 * count), dtype="<i8").astype(np.int64)
    if len(indices) != count or (count and (indices.min() < 0 or indices.max() >= total)):
        raise TraceFormatError(f"a row list that is not {count:,} rows below {total:,}")
    return pa.array(indices)


def _inflate(text: str, limit: int) -> bytes:
    """zlib data, unpacked to at most `limit` bytes (one more is read to notice a bomb)."""
    inflater = zlib.decompressobj()
    data = inflater.decompress(_unb64(text), limit + 1)
    if len(data) > limit:
        raise TraceFormatError(f"a compressed selection that unpacks beyond {limit:,} bytes")
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
