"""Selective LIKE and substring search: literal pieces found in the data buffer, not per row.

Arrow's `match_like` runs a pattern such as `'%special%requests%'` through RE2 row by
row, and `match_substring` through a byte-at-a-time matcher: both read every byte at
well under a byte per cycle. A pattern made only of literal pieces between `%`s needs no
regex: a row matches when it starts with the head piece, then holds each middle piece
after the previous one (the earliest occurrence of each is the best choice for the rest),
then ends with the tail piece. Each middle piece is found once over the whole data
buffer of the array (a numpy comparison against the piece's rarest byte, the candidates
confirmed as machine words), and the rows are then walked with `searchsorted` over the
sorted occurrences: no Python loop over rows or occurrences. Once few rows are left (after
a head piece or the first middle one), each later piece is looked for in those rows only,
from where the previous piece ended to the row's end: numpy's `strings.find` over the
data buffer viewed as one byte string, with per-row start and end (CPython's fast search
in C, one call for all the rows), which reads a few bytes per row where a scan of the
buffer reads them all.

Bytes are compared as bytes. In valid UTF-8 a piece can only occur at a character
boundary, so this is Arrow's answer on string columns, and on binary columns it is
Arrow's byte-wise answer. Patterns with `_` (one character, not one byte, in a string),
a backslash escape, `ignore_case`, or without a middle piece (`'abc%'`, `'%abc'`,
`'abc%xyz'`: Arrow's prefix and suffix kernels, or its anchored regex, which rejects most
rows at their first byte) run Arrow's kernel, and so do views, small arrays and anything
else `string_compare` does not take.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..model.options import option_values
from . import string_compare
from .function import call_pyarrow
from .registry import get_function

__all__ = ["FEW_HEADS", "HEAD_SAMPLE_ROWS", "ROW_SEARCH_SHARE", "LikePieces", "few_heads",
           "like_mask", "like_pieces", "selective_match_like", "selective_match_substring"]

_SAMPLE_BYTES = 1 << 14  # the bytes read to choose a piece's rarest byte pair
_BLOCK_BYTES = 1 << 18  # the bytes searched per step
# below this share of rows starting with the head piece (in a sample), Arrow's matcher
# runs: searching the whole buffer for the middle pieces would read mostly rows already out
FEW_HEADS = 0.125
HEAD_SAMPLE_ROWS = 1024
# at most this share of the rows left, a piece is searched in those rows only; above it,
# one scan of the whole buffer (a row search costs about 2.5x a scan per byte of the row)
ROW_SEARCH_SHARE = 0.25
_FIND = getattr(getattr(np, "strings", None), "find", None)  # numpy 2 and later
_MAX_BYTE_STRING = (1 << 31) - 1  # numpy's largest bytes dtype


class LikePieces(NamedTuple):
    """A LIKE pattern of literals between `%`s, as UTF-8 bytes."""

    head: bytes  # the row starts with it (b"" when the pattern starts with %)
    middle: tuple[bytes, ...]  # then each of these, in order, not overlapping (one at least)
    tail: bytes | None  # then it ends with it (None when the pattern ends with %)


def like_pieces(pattern: str) -> LikePieces | None:
    """The pieces of a LIKE pattern, or None when it needs Arrow's matcher (an `_`, an
    escape, no `%` at all) or Arrow's is as fast (no middle piece: a prefix, a suffix, or
    both, which Arrow's anchored regex rejects at a row's first byte)."""
    if "_" in pattern or "\\" in pattern or "%" not in pattern:
        return None
    parts = [p.encode("utf-8") for p in pattern.split("%")]
    head, tail = parts[0], parts[-1] or None
    middle = tuple(p for p in parts[1:-1] if p)
    if not middle:
        return None
    return LikePieces(head, middle, tail)


def _literal_at(data: np.ndarray, positions: np.ndarray, literal: bytes) -> np.ndarray:
    """Whether `literal` occurs at each of `positions` (each with room for it in `data`),
    compared as machine words."""
    ok = np.ones(len(positions), dtype=bool)
    if not len(positions) or not literal:
        return ok
    for position, width in string_compare._word_positions(len(literal)):
        word = np.frombuffer(literal, dtype=f"<u{width}", count=1, offset=position)[0]
        ok &= string_compare._words(data, width)[positions + position if position
                                                 else positions] == word
    return ok


def _sample_pairs(region: np.ndarray) -> np.ndarray:
    """The pairs of adjacent bytes (first << 8 | second) of a sample of the region."""
    sample = region[:_SAMPLE_BYTES].astype(np.uint16)
    return (sample[:-1] << 8) | sample[1:]


def _rarest_pair(pairs: np.ndarray, piece: bytes) -> int:
    """The index in `piece` of its two adjacent bytes least frequent together in the
    sample's `pairs` (0 for a one-byte piece)."""
    return min(range(max(len(piece) - 1, 1)),
               key=lambda i: np.count_nonzero(
                   pairs == ((piece[i] << 8) | piece[min(i + 1, len(piece) - 1)])))


def _occurrences(data: np.ndarray, low: int, high: int, piece: bytes,
                 pairs: np.ndarray) -> np.ndarray:
    """Every position in data[low:high] where `piece` starts and fits before `high`,
    overlapping ones included, sorted (int64 positions in `data`). Candidates are the
    starts whose rarest byte pair matches, found in one comparison pass; the rest of the
    piece is then compared at those few as machine words."""
    region = data[low:high]
    count = len(region) - len(piece) + 1  # the starts where the piece fits
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    at = _rarest_pair(pairs, piece)
    block = min(count, _BLOCK_BYTES)
    same, other = string_compare.pool_array(block, bool), string_compare.pool_array(block, bool)
    found = []
    for begin in range(0, count, block):  # cache-sized blocks: the masks stay in the cache
        size = min(block, count - begin)
        first = begin + at
        np.equal(region[first:first + size], piece[at], out=same[:size])
        if len(piece) > 1:
            np.equal(region[first + 1:first + 1 + size], piece[at + 1], out=other[:size])
            np.logical_and(same[:size], other[:size], out=same[:size])
        found.append(np.flatnonzero(same[:size]) + begin)
    starts = np.concatenate(found)
    if len(piece) > 2:
        starts = starts[_literal_at(region, starts, piece)]
    return starts + low


def _first_fitting(occurrences: np.ndarray, length: int, positions: np.ndarray,
                   ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows searching from `positions` up to `ends`: whether an occurrence starts at or
    after the position and ends by the row's end, and the end of the earliest such one."""
    if not len(occurrences):
        return np.zeros(len(positions), dtype=bool), positions
    index = np.searchsorted(occurrences, positions)
    found = index < len(occurrences)
    start = occurrences[np.minimum(index, len(occurrences) - 1)]
    return found & (start + length <= ends), start + length


def _rows_holding(occurrences: np.ndarray, length: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows holding an occurrence that fits inside them, and the end of the first such
    occurrence in each (occurrences are sorted, so rows come out sorted and the first of a
    row is its earliest)."""
    # in the offsets' own type: a search of int64 values in int32 offsets copies the offsets
    rows = np.searchsorted(offsets, occurrences.astype(offsets.dtype, copy=False),
                           side="right") - 1
    fits = occurrences + length <= offsets[rows + 1]
    rows, occurrences = rows[fits], occurrences[fits]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    return rows[first], occurrences[first] + length


def _byte_string(data: np.ndarray, high: int, piece: bytes) -> np.ndarray | None:
    """data[:high] as one numpy byte string for `strings.find`, or None where that would
    not be exact: numpy drops trailing NUL bytes of a bytes value (the buffer's and the
    piece's), and caps its length."""
    if _FIND is None or not 0 < high <= _MAX_BYTE_STRING or data[high - 1] == 0 or not piece \
            or piece[-1] == 0:
        return None
    return data[:high].view(f"S{high}")


def _find_in_rows(text: np.ndarray, piece: bytes, positions: np.ndarray,
                  ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows searching from `positions` up to `ends`: whether the piece occurs whole in
    that range, and the end of its earliest occurrence (what `_first_fitting` gives)."""
    found = _FIND(text, piece, positions, ends)
    return found >= 0, found + len(piece)


def _next_piece(column, offsets, pairs, piece, rows, position, ends):
    """Whether each row still searching finds `piece` after its position, and where it
    ends: in those rows alone when they are few, else by one scan of the whole buffer."""
    low, high = int(offsets[0]), int(offsets[-1])
    text = _byte_string(column.data, high, piece)
    if text is not None and len(rows) <= ROW_SEARCH_SHARE * (len(offsets) - 1):
        return _find_in_rows(text, piece, position, ends)
    return _first_fitting(_occurrences(column.data, low, high, piece, pairs), len(piece),
                          position, ends)


def like_mask(array: pa.Array, pieces: LikePieces) -> np.ndarray:
    """Rows of a string/binary array matching the pieces (at least one middle piece), as
    a numpy bool array; null rows hold whatever their bytes give."""
    column = string_compare._columns(array)
    offsets = column.offsets
    starts, ends = offsets[:-1], offsets[1:]
    low, high = int(offsets[0]), int(offsets[-1])
    middle = list(pieces.middle)
    pairs = _sample_pairs(column.data[low:high])
    if pieces.head:
        starts_with = pc.MatchSubstringOptions(pieces.head.decode("utf-8"))
        heads = get_function("starts_with")([array], starts_with)
        rows = np.flatnonzero(np.asarray(heads.fill_null(False)))
        position = starts[rows] + len(pieces.head)
    else:  # every row searches from its start: walk the first piece's occurrences instead
        piece = middle.pop(0)
        rows, position = _rows_holding(_occurrences(column.data, low, high, piece, pairs),
                                       len(piece), offsets)
    for piece in middle:
        if not len(rows):
            break
        found, after = _next_piece(column, offsets, pairs, piece, rows, position, ends[rows])
        rows, position = rows[found], after[found]
    if pieces.tail is not None and len(rows):
        start = ends[rows] - len(pieces.tail)
        fits = start >= position
        rows, start = rows[fits], start[fits]
        rows = rows[_literal_at(column.data, start, pieces.tail)]
    mask = string_compare.pool_array(len(array), bool)
    mask.fill(False)
    mask[rows] = True
    return mask


def few_heads(array: pa.Array, head: bytes) -> bool:
    """Whether few rows start with `head`, judged on the first HEAD_SAMPLE_ROWS rows: then
    Arrow's anchored matcher rejects most rows at their first bytes, faster than a search
    of the whole buffer for the other pieces."""
    sample = array.slice(0, HEAD_SAMPLE_ROWS)
    heads = np.count_nonzero(string_compare.equal_literal_mask(sample, [head], prefix=True))
    return heads < FEW_HEADS * len(sample)


def _selective(pieces_of):
    """An execute for a string matcher whose options give LIKE pieces (`pieces_of`)."""
    def execute(function, args, options, kernel):
        def fallback():
            return call_pyarrow(function, args, options, kernel)
        if options is None or len(args) != 1:
            return fallback()
        values = option_values(options)
        pieces = None if values.get("ignore_case") else pieces_of(values["pattern"])
        if pieces is None:
            return fallback()

        def compute(array):
            if pieces.head and few_heads(array, pieces.head):
                return call_pyarrow(function, [array], options, kernel)
            return string_compare._boolean_result(array, like_mask(array, pieces),
                                                  keep_nulls=True)
        return string_compare._per_chunk(compute, args[0], fallback)
    return execute


selective_match_like = _selective(like_pieces)
selective_match_substring = _selective(
    lambda pattern: LikePieces(b"", (pattern.encode("utf-8"),), None) if pattern else None)
