"""Arrow IPC bytes from a saved trace: their headers read before pyarrow reads them, and
every array validated in full after.

pyarrow trusts the IPC it reads. Offsets are not checked on reading (a string
whose end offset says 2 GiB is read past its buffer: the interpreter crashes), a
compressed body is unpacked to whatever size its header claims (a 100 KB zstd
body can claim 4 GiB), and an array of nulls or of empty structs may claim any
length without a byte of data. So the message headers of a payload are read
here first with a small, bounds-checked FlatBuffers reader (no compression, a
bounded number of array elements in all), then pyarrow reads the bytes and
`validate(full=True)` checks every offset, index and UTF-8 string. Whatever
goes wrong is one `TraceFormatError` naming the payload's JSON path.
"""

from __future__ import annotations

import struct

import pyarrow as pa

from ..errors import TraceFormatError

__all__ = ["MAX_FREE_ELEMENTS", "MAX_PAYLOAD_BYTES", "checked_file", "read_schema",
           "read_stream"]

MAX_PAYLOAD_BYTES = 256 * 1024 * 1024  # one payload, decoded from base64
# Array elements a payload may hold beyond 8 per byte of it: nulls and empty structs need
# no bytes, so their length is bounded by this alone (a 10,000-row batch of 400 null
# columns fits; a claim of 2^40 nulls does not)
MAX_FREE_ELEMENTS = 1 << 22

_CONTINUATION = 0xFFFFFFFF
_SCHEMA, _DICTIONARY_BATCH, _RECORD_BATCH = 1, 2, 3
_FILE_MAGIC = b"ARROW1"


def read_stream(data: bytes, where: str, rows: int | None = None) -> pa.Table:
    """An IPC stream's batches as one table, checked; `rows`: the length it must have."""
    _check_size(data, where)
    try:
        _check_messages(data, _stream_messages(data, 0), len(data))
        table = pa.ipc.open_stream(pa.py_buffer(data)).read_all()
        table.validate(full=True)
    except TraceFormatError as exc:  # from the header checks: the reason alone
        raise _refused(where, str(exc)) from None
    except (pa.ArrowException, OSError, ValueError, TypeError, IndexError, KeyError,
            MemoryError) as exc:
        raise _refused(where, f"{type(exc).__name__}: {str(exc)[:200]}") from None
    if rows is not None and table.num_rows != rows:
        raise _refused(where, f"it holds {table.num_rows:,} rows, not {rows:,}")
    return table


def read_schema(data: bytes, where: str) -> pa.Schema:
    """A serialized schema (no body: nothing to validate but its message)."""
    _check_size(data, where)
    try:
        return pa.ipc.read_schema(pa.py_buffer(data))
    except (pa.ArrowException, OSError, ValueError, TypeError, IndexError, KeyError) as exc:
        raise _refused(where, f"{type(exc).__name__}: {str(exc)[:200]}") from None


def checked_file(data: bytes, where: str) -> pa.Buffer:
    """An IPC file (what `FunctionOptions.serialize` writes), checked before anything that
    reads it without validating it (`FunctionOptions.deserialize`) sees it."""
    _check_size(data, where)
    try:
        if len(data) < 2 * 8 + 4 or data[:6] != _FILE_MAGIC or data[-6:] != _FILE_MAGIC:
            raise TraceFormatError("it is not an Arrow IPC file")
        _check_messages(data, _file_messages(data), len(data))
        buffer = pa.py_buffer(data)
        reader = pa.ipc.open_file(buffer)
        for i in range(reader.num_record_batches):
            reader.get_batch(i).validate(full=True)
    except TraceFormatError as exc:  # from the header checks: the reason alone
        raise _refused(where, str(exc)) from None
    except (pa.ArrowException, OSError, ValueError, TypeError, IndexError, KeyError,
            MemoryError) as exc:
        raise _refused(where, f"{type(exc).__name__}: {str(exc)[:200]}") from None
    return buffer


def _check_size(data: bytes, where: str) -> None:
    if len(data) > MAX_PAYLOAD_BYTES:
        raise _refused(where, f"it is {len(data):,} bytes; at most {MAX_PAYLOAD_BYTES:,} are "
                              "read")


def _refused(where: str, why: str) -> TraceFormatError:
    return TraceFormatError(f"not a valid exprscope trace: {where} is not Arrow IPC that "
                            f"exprscope wrote ({why})")


# -- the message headers ----------------------------------------------------------------
def _check_messages(data: bytes, messages, size: int) -> None:
    """No compressed body, no tensors, and at most so many array elements in all."""
    budget = 8 * size + MAX_FREE_ELEMENTS
    elements = 0
    for kind, header in messages:
        if kind == _SCHEMA:
            continue
        if kind == _DICTIONARY_BATCH:
            header = header.table(1)
        elif kind != _RECORD_BATCH:
            raise TraceFormatError(f"a message of kind {kind} (only schemas and batches are read)")
        if header is None:
            raise TraceFormatError("a batch message without its header")
        if header.has(3):
            raise TraceFormatError("a compressed body (its unpacked size is not bounded)")
        elements += max(header.int64(0), 0)
        start, count = header.vector(1, 16)
        for k in range(count):
            elements += max(_unpack("<q", header.buf, start + 16 * k), 0)
            if elements > budget:
                break
        if elements > budget:
            raise TraceFormatError(f"its arrays claim more than {budget:,} elements in "
                             f"{size:,} bytes")


def _stream_messages(data: bytes, pos: int, stop_after: int | None = None):
    """(header kind, header table) of each message from `pos` to the end-of-stream mark."""
    seen = 0
    while pos + 4 <= len(data) and (stop_after is None or seen < stop_after):
        length = _unpack("<I", data, pos)
        pos += 4
        if length == _CONTINUATION:
            length = _unpack("<I", data, pos)
            pos += 4
        if length == 0:
            return
        if length > len(data) - pos:
            raise TraceFormatError(f"a message header of {length:,} bytes past the payload's end")
        meta = memoryview(data)[pos:pos + length]
        message = _FlatTable.root(meta)
        body = message.int64(3)
        if body < 0 or body > len(data) - pos - length:
            raise TraceFormatError(f"a message body of {body:,} bytes past the payload's end")
        yield message.uint8(1), message.table(2)
        pos += length + body
        seen += 1


def _file_messages(data: bytes):
    """The messages an IPC file's footer points at (dictionaries, then record batches)."""
    footer_length = _unpack("<i", data, len(data) - 10)
    start = len(data) - 10 - footer_length
    if footer_length <= 0 or start < 8:
        raise TraceFormatError("an IPC file footer that does not fit")
    footer = _FlatTable.root(memoryview(data)[start:len(data) - 10])
    for field in (2, 3):  # dictionaries, recordBatches: vectors of Block structs
        first, count = footer.vector(field, 24)
        for k in range(count):
            offset = _unpack("<q", footer.buf, first + 24 * k)
            if not 8 <= offset < start:
                raise TraceFormatError(f"a file block at byte {offset:,}, outside the file")
            yield from _stream_messages(data, offset, stop_after=1)


class _FlatTable:
    """One FlatBuffers table in a byte view; every read is bounds-checked."""

    __slots__ = ("_vtable", "_vtable_size", "buf", "pos")

    def __init__(self, buf, pos: int):
        self.buf, self.pos = buf, pos
        self._vtable = pos - _unpack("<i", buf, pos)
        self._vtable_size = _unpack("<H", buf, self._vtable)

    @classmethod
    def root(cls, buf) -> _FlatTable:
        return cls(buf, _unpack("<I", buf, 0))

    def _field(self, index: int) -> int | None:
        slot = 4 + 2 * index
        if slot + 2 > self._vtable_size:
            return None
        offset = _unpack("<H", self.buf, self._vtable + slot)
        return None if offset == 0 else self.pos + offset

    def has(self, index: int) -> bool:
        return self._field(index) is not None

    def uint8(self, index: int) -> int:
        at = self._field(index)
        return 0 if at is None else _unpack("<B", self.buf, at)

    def int64(self, index: int) -> int:
        at = self._field(index)
        return 0 if at is None else _unpack("<q", self.buf, at)

    def table(self, index: int) -> _FlatTable | None:
        at = self._field(index)
        return None if at is None else _FlatTable(self.buf, at + _unpack("<I", self.buf, at))

    def vector(self, index: int, item_size: int) -> tuple[int, int]:
        """(position of the first element, element count); (0, 0) when absent."""
        at = self._field(index)
        if at is None:
            return 0, 0
        start = at + _unpack("<I", self.buf, at)
        count = _unpack("<I", self.buf, start)
        if start + 4 + count * item_size > len(self.buf):
            raise TraceFormatError(f"a list of {count:,} entries past its header's end")
        return start + 4, count


def _unpack(fmt: str, buf, pos: int) -> int:
    size = struct.calcsize(fmt)
    if pos < 0 or pos + size > len(buf):
        raise TraceFormatError(f"a header that points outside its {len(buf):,} bytes")
    return struct.unpack_from(fmt, buf, pos)[0]
