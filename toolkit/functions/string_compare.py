"""Selective string comparisons against literals: equal, not_equal, is_in, starts_with.

Arrow's kernels compare every row's bytes; most rows of a real column cannot
match a literal because their length or first byte differs, and the length is one
subtraction of two offsets. So (as Arrow's issue 47374 plans) the lengths come from
a numpy view of the offsets buffer and every row's first byte from one gather, both
tested in whole-array passes; only the rows passing both are read further, and the
literal is compared as machine words: unaligned numpy views of the data buffer read
8, 4, 2 or 1 bytes at each candidate's start, so a 4-byte literal is one integer
comparison per candidate. Where many rows pass both tests (a quarter of
l_shipinstruct has 'NONE''s length and first byte) the word gathers cost more than
Arrow's own length test and memcmp, and Arrow's kernel runs. The result reuses the input's
validity bitmap, which is what Arrow's kernel computes for a non-null literal.

Every per-row array (lengths, starts, first bytes, the tests, the result) is made in
Arrow's memory pool, which keeps its freed pages. numpy's own arrays of a 131,072-row
chunk (0.5-1 MB) came from fresh memory maps on most calls, each page faulting on its
first write: the kernel spent more time in those faults than comparing. Only the rows
whose length and first byte match (the few that are read as words) are numpy's.

Only string, large_string, binary and large_binary arrays of at least
`SELECTIVE_MIN_ROWS` rows take this path; views, dictionaries, null literals,
options it does not read (ignore_case, a value set holding a null) and small
arrays run Arrow's kernel, unchanged. Bytes are compared as bytes, so invalid
UTF-8 in a binary column compares exactly as Arrow's binary kernel does.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa

from ..model.options import option_values
from .function import call_pyarrow

__all__ = [
    "PREFIX_MAX_CANDIDATES",
    "SELECTIVE_MIN_ROWS",
    "equal_literal_mask",
    "pool_array",
    "selective_equal",
    "selective_is_in",
    "selective_not_equal",
    "selective_starts_with",
]

SELECTIVE_MIN_ROWS = 1024  # below this numpy's per-call cost exceeds what it saves
# a prefix test whose length test keeps more than this share of the rows runs Arrow's
# kernel: its one pass over the bytes beats gathering most of them (docs/benchmarks.md)
PREFIX_MAX_CANDIDATES = 0.5
# an equality whose literal's length and first byte are shared by more than this share of
# the rows (judged on the first SAMPLE_ROWS of the first chunk) runs Arrow's kernel: each
# such row costs a word gather and a scatter here (docs/benchmarks.md: 'NONE' in
# l_shipinstruct, a quarter of the rows, went to Arrow; '1-URGENT', a fifth, stays here)
EQUAL_MAX_SURVIVORS = 0.225
# below this many rows an equality over rows of more than one width runs Arrow's kernel
# (l_shipmode: 165 against 142 us at 32,768 rows, 77 against 23 us at 4,096)
GATHER_MIN_ROWS = 1 << 16
SAMPLE_ROWS = 1024

_OFFSET_DTYPE = {pa.StringArray: np.int32, pa.BinaryArray: np.int32,
                 pa.LargeStringArray: np.int64, pa.LargeBinaryArray: np.int64}
_SCALAR_TYPES = (pa.StringScalar, pa.BinaryScalar, pa.LargeStringScalar, pa.LargeBinaryScalar)
_MATCH, _SKIP = 0, 1  # SetLookupOptions' null matching behaviours that give no nulls


class StringColumn(NamedTuple):
    """numpy views of one string/binary array's buffers (no copies)."""

    offsets: np.ndarray  # len(array) + 1 offsets, the array's slice of them
    data: np.ndarray  # the whole data buffer as uint8


def _columns(array: pa.Array) -> StringColumn:
    dtype = _OFFSET_DTYPE[type(array)]
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=dtype, count=len(array) + 1, offset=array.offset
                            * np.dtype(dtype).itemsize)
    data = buffers[2]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return StringColumn(offsets, data)


def _words(data: np.ndarray, width: int) -> np.ndarray:
    """Every `width`-byte little-endian word starting at each byte (an unaligned view;
    indexing it reads one word per row, where `np.take` on it would copy byte by byte)."""
    return np.ndarray(shape=(len(data) - width + 1,), dtype=np.dtype(f"<u{width}"),
                      buffer=data, strides=(1,))


def _word_positions(length: int) -> list[tuple[int, int]]:
    """(position, width) pairs covering `length` bytes with the widest words, the last one
    overlapping the one before so no read passes the literal's end."""
    width = next(w for w in (8, 4, 2, 1) if w <= length)
    positions = list(range(0, length - width, width)) + [length - width]
    return [(p, width) for p in positions]


def _uniform_width(column: StringColumn, lengths: np.ndarray) -> int | None:
    """The one length every row has (flags, codes: l_returnflag), else None."""
    n = len(lengths)
    if not n:
        return None
    width = int(lengths[0])
    if int(column.offsets[-1]) - int(column.offsets[0]) != n * width:
        return None
    return width if int(lengths.min()) == int(lengths.max()) else None


def _lengths(column: StringColumn) -> np.ndarray:
    """Every row's length in bytes, in a buffer of Arrow's pool (see the module's docstring)."""
    offsets = column.offsets
    lengths = pool_array(len(offsets) - 1, offsets.dtype)
    np.subtract(offsets[1:], offsets[:-1], out=lengths)
    return lengths


def _fixed_width_mask(column: StringColumn, width: int, literal: bytes, exact: bool) -> np.ndarray:
    """Rows equal to / starting with the literal when every row holds `width` bytes: the
    values are then one (rows x width) matrix of the data buffer, read in sequence."""
    n = len(column.offsets) - 1
    if (exact and len(literal) != width) or len(literal) > width:
        return np.zeros(n, dtype=bool)
    if not literal:
        return np.ones(n, dtype=bool)
    first = int(column.offsets[0])
    values = column.data[first:first + n * width]
    if len(literal) == width and width in (1, 2, 4, 8):
        word = np.frombuffer(literal, dtype=f"<u{width}")[0]
        return values.view(f"<u{width}") == word
    matrix = values.reshape(n, width)
    mask = matrix[:, 0] == literal[0]
    for position in range(1, len(literal)):
        mask &= matrix[:, position] == literal[position]
    return mask


def pool_array(count: int, dtype) -> np.ndarray:
    """An uninitialized array in Arrow's memory pool, which keeps its freed pages (see the
    module's docstring)."""
    dtype = np.dtype(dtype)
    buffer = pa.allocate_buffer(max(count, 1) * dtype.itemsize)
    return np.frombuffer(buffer, dtype=dtype, count=count)


def equal_literal_mask(array: pa.Array, literals: list[bytes], prefix: bool = False) -> np.ndarray:
    """Rows equal to (or, with `prefix`, starting with) any of `literals`, as a numpy bool
    array; null rows hold whatever their slots hold."""
    column = _columns(array)
    n = len(array)
    lengths = _lengths(column)
    width = _uniform_width(column, lengths)
    if width is not None:
        mask = np.zeros(n, dtype=bool)
        for literal in literals:
            mask |= _fixed_width_mask(column, width, literal, exact=not prefix)
        return mask
    mask = pool_array(n, bool)
    mask.fill(False)
    starts = pool_array(n, np.intp)  # gathers take intp indices (others are copied first)
    np.copyto(starts, column.offsets[:-1])
    first = None
    fits, candidates, head = pool_array(n, bool), pool_array(n, bool), pool_array(n, bool)
    by_length: dict[int, list[bytes]] = {}  # literals of one length share their reads
    for literal in dict.fromkeys(literals):
        by_length.setdefault(len(literal), []).append(literal)
    for length, group in by_length.items():
        if not length and prefix:  # every row starts with it
            mask.fill(True)
            continue
        if not length:  # the rows of length 0
            np.logical_or(mask, lengths == 0, out=mask)
            continue
        if first is None:
            first = _first_bytes(column.data, starts)
        (np.greater_equal if prefix else np.equal)(lengths, length, out=fits)
        candidates.fill(False)
        for byte in dict.fromkeys(literal[0] for literal in group):
            np.equal(first, byte, out=head)
            np.logical_or(candidates, head, out=candidates)
        np.logical_and(candidates, fits, out=candidates)
        if length == 1:
            np.logical_or(mask, candidates, out=mask)
            continue
        rows = np.flatnonzero(candidates)
        if len(rows):
            mask[rows[_words_match(column.data, starts[rows], group)]] = True
    return mask


def _first_bytes(data: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Every row's first byte (any byte for an empty row: its length rules it out)."""
    first = pool_array(len(starts), np.uint8)
    if len(data):
        np.take(data, starts, out=first, mode="clip")
    else:
        first.fill(0)
    return first


def _words_match(data: np.ndarray, starts: np.ndarray, literals: list[bytes]) -> np.ndarray:
    """Whether one of the literals (all of one length) starts at each of `starts`, compared
    as machine words: each word of the rows is read once for all the literals."""
    same: list[np.ndarray | None] = [None] * len(literals)
    for position, width in _word_positions(len(literals[0])):
        read = _words(data, width)[starts + position if position else starts]
        for i, literal in enumerate(literals):
            word = np.frombuffer(literal, dtype=f"<u{width}", count=1, offset=position)[0]
            match = read == word
            same[i] = match if same[i] is None else np.logical_and(same[i], match, out=same[i])
    ok = same[0]
    for other in same[1:]:
        np.logical_or(ok, other, out=ok)
    return ok


def arrow_is_faster(array: pa.Array, literal: bytes) -> bool:
    """Whether Arrow's equality kernel beats this module's on `array`: on rows of more
    than one width, when the array is short (Arrow's compare of a cache-resident array
    against this module's fixed numpy cost) or many rows share the literal's length and
    first byte."""
    if survivor_share(array, literal) > EQUAL_MAX_SURVIVORS:
        return True
    return len(array) < GATHER_MIN_ROWS and not _sample_is_uniform(array)


def _sample_is_uniform(array: pa.Array) -> bool:
    column = _columns(array.slice(0, SAMPLE_ROWS))
    return len(column.offsets) > 1 and _uniform_width(column, np.diff(column.offsets)) is not None


def survivor_share(array: pa.Array, literal: bytes) -> float:
    """The share of the first SAMPLE_ROWS rows whose length and first byte are the
    literal's: the rows whose bytes the selective equality has to gather (none when the
    sampled rows all have one width)."""
    column = _columns(array.slice(0, SAMPLE_ROWS))
    n = len(column.offsets) - 1
    if not n:
        return 0.0
    lengths = np.diff(column.offsets)
    if _uniform_width(column, lengths) is not None:
        return 0.0  # one matrix comparison, read in sequence: no row is gathered
    if not literal:
        return float(np.count_nonzero(lengths == 0)) / n
    starts = column.offsets[:-1][lengths == len(literal)]
    return float(np.count_nonzero(np.take(column.data, starts) == literal[0])) / n


def _boolean_result(array: pa.Array, mask: np.ndarray, keep_nulls: bool) -> pa.Array:
    """A boolean array of `mask`, null where `array` is null (keep_nulls) or false there."""
    n = len(array)
    shift = array.offset % 8
    if not keep_nulls and array.null_count:
        mask &= np.asarray(array.is_valid())  # a false (not null) result where the input is null
    if keep_nulls and array.null_count:
        padded = np.zeros(shift + n, dtype=bool)
        padded[shift:] = mask
        bits = pa.py_buffer(np.packbits(padded, bitorder="little"))
        validity = array.buffers()[0].slice(array.offset // 8)
        return pa.Array.from_buffers(pa.bool_(), n, [validity, bits], null_count=array.null_count,
                                     offset=shift)
    bits = pa.py_buffer(np.packbits(mask, bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), n, [None, bits], null_count=0)


def _selectable(value) -> bool:
    return type(value) in _OFFSET_DTYPE and len(value) >= SELECTIVE_MIN_ROWS


def _literal_bytes(scalar) -> bytes | None:
    if isinstance(scalar, _SCALAR_TYPES) and scalar.is_valid:
        return scalar.as_buffer().to_pybytes()
    return None


def _per_chunk(compute, value, fallback):
    """Run `compute(array)` per chunk of a chunked array, or on the array itself; None from
    it means Arrow's kernel runs instead."""
    if isinstance(value, pa.ChunkedArray):
        if not all(_selectable(c) for c in value.chunks):
            return fallback()
        chunks = [compute(c) for c in value.chunks]
        if any(c is None for c in chunks):
            return fallback()
        return pa.chunked_array(chunks, type=pa.bool_())
    result = compute(value) if _selectable(value) else None
    return fallback() if result is None else result


def _comparison(negate: bool):
    def execute(function, args, options, kernel):
        def fallback():
            return call_pyarrow(function, args, options, kernel)
        if len(args) != 2:
            return fallback()
        left, right = args
        if isinstance(right, pa.Scalar):
            value, scalar = left, right
        elif isinstance(left, pa.Scalar):
            value, scalar = right, left
        else:
            return fallback()
        if pa.types.is_dictionary(value.type):
            return _per_dictionary_entry(function, value, scalar, options, kernel)
        literal = _literal_bytes(scalar)
        if literal is None or not isinstance(value, (pa.Array, pa.ChunkedArray)):
            return fallback()

        sample = value.chunk(0) if isinstance(value, pa.ChunkedArray) and value.num_chunks \
            else value
        if _selectable(sample) and arrow_is_faster(sample, literal):
            return fallback()  # judged on the first chunk: one call of Arrow's kernel for all

        def compute(array):
            mask = equal_literal_mask(array, [literal])
            if negate:
                np.logical_not(mask, out=mask)
            return _boolean_result(array, mask, keep_nulls=True)
        return _per_chunk(compute, value, fallback)
    return execute


def _per_dictionary_entry(function, value, scalar, options, kernel):
    """A dictionary column compared once per dictionary entry, then the entries' answers
    taken by index: a null index or a null entry gives null, as decoding first would."""
    def one(array: pa.DictionaryArray) -> pa.Array:
        entries = function.execute(function, [array.dictionary, scalar], options, kernel)
        return entries.take(array.indices)
    if isinstance(value, pa.ChunkedArray):
        return pa.chunked_array([one(c) for c in value.chunks], type=pa.bool_())
    return one(value)


selective_equal = _comparison(negate=False)
selective_not_equal = _comparison(negate=True)


def selective_starts_with(function, args, options, kernel):
    def fallback():
        return call_pyarrow(function, args, options, kernel)
    if options is None:
        return fallback()
    values = option_values(options)
    if values.get("ignore_case"):
        return fallback()
    pattern = values["pattern"].encode("utf-8")

    def compute(array):
        column = _columns(array)
        lengths = _lengths(column)
        if (pattern and _uniform_width(column, lengths) is None
                and np.count_nonzero(lengths >= len(pattern)) > PREFIX_MAX_CANDIDATES * len(array)):
            return call_pyarrow(function, [array], options, kernel)
        return _boolean_result(array, equal_literal_mask(array, [pattern], prefix=True),
                               keep_nulls=True)
    return _per_chunk(compute, args[0], fallback)


_LOOKUP_SETS = {pa.StringArray, pa.LargeStringArray, pa.BinaryArray, pa.LargeBinaryArray}
_TEXT = {pa.StringArray, pa.LargeStringArray}


def selective_is_in(function, args, options, kernel):
    """is_in for a small value set without nulls: one length test per distinct length and
    one word comparison per candidate; null rows false (MATCH, SKIP) or null (EMIT_NULL,
    INCONCLUSIVE), as Arrow's kernel gives when the set holds no null."""
    def fallback():
        return call_pyarrow(function, args, options, kernel)
    value = args[0] if len(args) == 1 else None
    if options is None or value is None:
        return fallback()
    values = option_values(options)
    value_set = values["value_set"]
    if not isinstance(value_set, list) or len(value_set) > 64 or any(v is None for v in value_set):
        return fallback()
    if not all(isinstance(v, (str, bytes)) for v in value_set):
        return fallback()
    behavior = int(values["null_matching_behavior"])
    literals = list(dict.fromkeys(v.encode("utf-8") if isinstance(v, str) else v
                                  for v in value_set))
    set_is_text = all(isinstance(v, str) for v in value_set)

    def compute(array):
        if type(array) in _TEXT and not set_is_text:
            return None  # Arrow casts a binary set to string first, validating it
        return _boolean_result(array, equal_literal_mask(array, literals),
                               keep_nulls=behavior not in (_MATCH, _SKIP))

    return _per_chunk(compute, value, fallback)
