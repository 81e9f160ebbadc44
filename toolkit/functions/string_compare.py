"""String comparisons against literals in compiled loops: equal, not_equal, is_in,
starts_with, ends_with.

Arrow's kernels compare every row's bytes through a generic comparator; most rows of a
real column cannot match a literal because their length or first bytes differ, and the
length is one subtraction of two offsets. `string_kernels` holds the loops (one pass per
literal: a length test and the first 8 bytes as one masked word, the rest of a long
literal compared only where both match); this module views an array's buffers, picks
the loop, and makes the Arrow result. An `is_in` or an or of equalities (which
`identities/equalities-to-set-lookup` turns into one `is_in`) is one pass per distinct
literal, each or-ed into the same bytes. A column whose rows all have one width of 1, 2,
4 or 8 bytes (flags, codes) is one array of machine words in its data buffer: numpy
compares it in sequence, vectorized.

The result reuses the input's validity bitmap (what Arrow's kernel computes for a
non-null literal): the loops write a byte per row from the input's bit offset, so the
packed bitmap lines up with the validity bitmap byte for byte. Every per-row buffer is
made in Arrow's memory pool, which keeps its freed pages (numpy's own arrays of a
131,072-row chunk came from fresh memory maps, each page faulting on its first write).

Only string, large_string, binary and large_binary arrays of at least
`SELECTIVE_MIN_ROWS` rows take this path; views, null literals, options it does not
read (ignore_case, a value set holding a null or more than `MAX_SET_LITERALS` values,
where Arrow's hash lookup is one probe a row) and small arrays run Arrow's kernel,
unchanged. A dictionary column is compared once per dictionary entry and the answers
taken by its indices. Bytes are compared as bytes, so invalid UTF-8 in a binary column
compares exactly as Arrow's binary kernel does.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa

from ..model.options import null_rows_stay_null, option_values
from ..support import late
from ..support.bounded_cache import ObjectCache
from ..support.pool_arrays import pool_array
from .function import call_pyarrow

kernels = late.module("toolkit.functions.string_kernels")  # numba's import is slow

__all__ = [
    "MAX_SET_LITERALS",
    "SELECTIVE_MIN_ROWS",
    "RowBytes",
    "StringColumn",
    "boolean_result",
    "columns",
    "literal_mask",
    "padded",
    "per_chunk",
    "pool_array",
    "row_bytes",
    "selective_ends_with",
    "selective_equal",
    "selective_is_in",
    "selective_not_equal",
    "selective_starts_with",
]

SELECTIVE_MIN_ROWS = 8192  # below this Arrow's kernel (a cache-resident array): the call costs more than the loop saves
# an is_in over more literals runs Arrow's hash lookup (one probe a row, where the loop
# makes one pass a literal)
MAX_SET_LITERALS = 8

_OFFSET_DTYPE = {pa.StringArray: np.int32, pa.BinaryArray: np.int32,
                 pa.LargeStringArray: np.int64, pa.LargeBinaryArray: np.int64}
_SCALAR_TYPES = (pa.StringScalar, pa.BinaryScalar, pa.LargeStringScalar, pa.LargeBinaryScalar)
_NO_BYTES = np.zeros(8, np.uint8)  # writable, as numpy's views of Arrow's buffers are
_NO_VALIDITY = np.zeros(0, np.uint8)


class StringColumn(NamedTuple):
    """numpy views of one string/binary array's buffers (no copies)."""

    offsets: np.ndarray  # len(array) + 1 offsets, the array's slice of them
    data: np.ndarray  # the whole data buffer as uint8


class RowBytes(NamedTuple):
    """A loop's output: a byte (0 or 1) per row at out[base + row], padded to whole bytes
    of the bitmap it becomes."""

    out: np.ndarray
    base: int  # the input's bit offset within its first validity byte


def columns(array: pa.Array) -> StringColumn:
    dtype = _OFFSET_DTYPE[type(array)]
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=dtype, count=len(array) + 1, offset=array.offset
                            * np.dtype(dtype).itemsize)
    data = buffers[2]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None and data.size else _NO_BYTES
    return StringColumn(offsets, data)


def padded(literal: bytes) -> np.ndarray:
    """The literal's bytes and 8 more (zeros), so the loops read its words whole."""
    return np.frombuffer(literal + bytes(8), dtype=np.uint8)


def row_bytes(array: pa.Array) -> RowBytes:
    """Room for a byte per row of `array` from its bit offset, whole bitmap bytes, the
    bytes outside its rows zero."""
    base = array.offset % 8
    size = (base + len(array) + 7) // 8 * 8
    out = pool_array(size, np.uint8)
    out[:base] = 0
    out[base + len(array):] = 0
    return RowBytes(out, base)


def literal_mask(array: pa.Array, literals: list[bytes], mode: int) -> RowBytes:
    """Rows equal to (mode EQUAL), starting with (PREFIX) or ending with (SUFFIX) any of
    `literals` (two a pass); null rows hold whatever their slots give."""
    column = columns(array)
    rows = row_bytes(array)
    unique = list(dict.fromkeys(literals))
    width = _word_width(column) if mode == kernels.EQUAL else None
    if width is not None:
        _equal_words(column, width, unique, rows)
        return rows
    if not unique:
        rows.out.fill(0)
    for i in range(0, len(unique), 2):
        pair = unique[i:i + 2]
        second = pair[1] if len(pair) > 1 else b""
        kernels.literal_rows(column.offsets, column.data, padded(pair[0]), len(pair[0]),
                             padded(second), len(second) if len(pair) > 1 else -1, mode,
                             i == 0, rows.out, rows.base)
    return rows


def _word_width(column: StringColumn) -> int | None:
    """The width every row has when it is 1, 2, 4 or 8 bytes (flags, codes: l_returnflag),
    else None: the rows are then one array of machine words in the data buffer."""
    offsets = column.offsets
    n = len(offsets) - 1
    if n < 1:
        return None
    width = int(offsets[1]) - int(offsets[0])
    if width not in (1, 2, 4, 8) or int(offsets[-1]) - int(offsets[0]) != n * width:
        return None
    return width if kernels.uniform_width(offsets) == width else None


def _equal_words(column: StringColumn, width: int, literals: list[bytes], rows: RowBytes) -> None:
    """Equality on rows of one word width: numpy compares the data buffer viewed as words,
    in sequence (vectorized), against each literal of that width; others match no row."""
    n = len(column.offsets) - 1
    first = int(column.offsets[0])
    values = column.data[first:first + n * width].view(f"<u{width}")
    target = rows.out[rows.base:rows.base + n].view(np.bool_)
    words = [np.frombuffer(literal, f"<u{width}")[0] for literal in literals
             if len(literal) == width]
    if not words:
        target.fill(False)
        return
    np.equal(values, words[0], out=target)
    if len(words) > 1:
        other = pool_array(n, np.bool_)
        for word in words[1:]:
            np.equal(values, word, out=other)
            np.logical_or(target, other, out=target)


def boolean_result(array: pa.Array, rows: RowBytes, keep_nulls: bool,
                   invert: bool = False) -> pa.Array:
    """The boolean array of `rows` (inverted if asked): null where `array` is null
    (keep_nulls, sharing its validity bitmap), else false there."""
    n = len(array)
    bits = pa.allocate_buffer(len(rows.out) // 8)
    validity = array.buffers()[0].slice(array.offset // 8) if array.null_count else None
    and_valid = _NO_VALIDITY
    if validity is not None and not keep_nulls:
        and_valid = np.frombuffer(validity, np.uint8, count=len(rows.out) // 8)
    kernels.pack(rows.out, invert, and_valid, np.frombuffer(bits, np.uint8))
    if keep_nulls and validity is not None:
        return pa.Array.from_buffers(pa.bool_(), n, [validity, bits],
                                     null_count=array.null_count, offset=rows.base)
    return pa.Array.from_buffers(pa.bool_(), n, [None, bits], null_count=0, offset=rows.base)


def _selectable(value) -> bool:
    return type(value) in _OFFSET_DTYPE and len(value) >= SELECTIVE_MIN_ROWS


def _literal_bytes(scalar) -> bytes | None:
    if isinstance(scalar, _SCALAR_TYPES) and scalar.is_valid:
        return scalar.as_buffer().to_pybytes()
    return None


def per_chunk(compute, value, fallback):
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

        def compute(array):
            return boolean_result(array, literal_mask(array, [literal], kernels.EQUAL),
                                  keep_nulls=True, invert=negate)
        return per_chunk(compute, value, fallback)
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


_NO_PLAN = object()  # cached for options Arrow's kernel runs for
_PATTERNS = ObjectCache(1024)  # MatchSubstringOptions object -> its pattern's bytes, or _NO_PLAN


def _affix_pattern(options) -> bytes | None:
    """The pattern's bytes, read once per options object; None for ignore_case (Arrow's
    kernel runs)."""
    found = _PATTERNS.get(options)
    if found is None:
        values = option_values(options)
        found = _PATTERNS.put(options, _NO_PLAN if values.get("ignore_case") else
                              values["pattern"].encode("utf-8"))
    return None if found is _NO_PLAN else found  # an empty pattern is b""


def _affix(mode_name: str):
    """starts_with or ends_with: the pattern's bytes at the row's start or end."""
    def execute(function, args, options, kernel):
        def fallback():
            return call_pyarrow(function, args, options, kernel)
        pattern = _affix_pattern(options) if options is not None and len(args) == 1 else None
        if pattern is None:
            return fallback()

        def compute(array):
            mode = getattr(kernels, mode_name)
            return boolean_result(array, literal_mask(array, [pattern], mode), keep_nulls=True)
        return per_chunk(compute, args[0], fallback)
    return execute


selective_starts_with = _affix("PREFIX")
selective_ends_with = _affix("SUFFIX")

_TEXT = {pa.StringArray, pa.LargeStringArray}


class _SetLookup(NamedTuple):
    """What an is_in's options say to its loops: its distinct literals' bytes, whether a
    null row stays null, and whether the set is text."""

    literals: list[bytes]
    keep_nulls: bool
    set_is_text: bool


# Reading a value set serializes the whole options object: once per options object,
# not once per morsel (a twentieth of a string filter's time on 6 million rows).
_SET_LOOKUPS = ObjectCache(1024)  # SetLookupOptions object -> _SetLookup, or _NO_PLAN


def _set_lookup(options) -> _SetLookup | None:
    """The options' set lookup, None where Arrow's kernel runs instead (a null in the
    set, a value that is no string or binary, more than MAX_SET_LITERALS values)."""
    found = _SET_LOOKUPS.get(options)
    if found is None:
        found = _SET_LOOKUPS.put(options, _read_set_lookup(options) or _NO_PLAN)
    return None if found is _NO_PLAN else found


def _read_set_lookup(options) -> _SetLookup | None:
    values = option_values(options)
    value_set = values["value_set"]
    if not isinstance(value_set, list) or any(v is None for v in value_set):
        return None
    if not all(isinstance(v, (str, bytes)) for v in value_set):
        return None
    literals = list(dict.fromkeys(v.encode("utf-8") if isinstance(v, str) else v
                                  for v in value_set))
    if len(literals) > MAX_SET_LITERALS:
        return None
    return _SetLookup(literals, null_rows_stay_null(options),
                      all(isinstance(v, str) for v in value_set))


def selective_is_in(function, args, options, kernel):
    """is_in for a small value set without nulls: one pass per distinct literal; null rows
    false (MATCH, SKIP) or null (EMIT_NULL, INCONCLUSIVE), as Arrow's kernel gives when the
    set holds no null."""
    def fallback():
        return call_pyarrow(function, args, options, kernel)
    value = args[0] if len(args) == 1 else None
    lookup = _set_lookup(options) if options is not None and value is not None else None
    if lookup is None:
        return fallback()

    def compute(array):
        if type(array) in _TEXT and not lookup.set_is_text:
            return None  # Arrow casts a binary set to string first, validating it
        return boolean_result(array, literal_mask(array, lookup.literals, kernels.EQUAL),
                              keep_nulls=lookup.keep_nulls)

    return per_chunk(compute, value, fallback)
