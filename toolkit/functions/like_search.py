"""LIKE and substring search of literal pieces between `%`s, in one compiled loop.

Arrow's `match_like` runs a pattern such as `'%special%requests%'` through RE2 row by
row, and `match_substring` through a byte-at-a-time matcher: both read every byte at
well under a byte per cycle. A pattern made only of literal pieces between `%`s needs no
regex: a row matches when it starts with the head piece, then holds each middle piece
after the previous one (the earliest occurrence of each is the best choice for the rest),
then ends with the tail piece. `string_kernels.like_rows` does that per row, searching
each piece memmem-style by its rarest adjacent byte pair; this module reads the pattern
into pieces, chooses each piece's pair from a sample of the column, and makes the
result. A pattern without `%` is an equality, `'abc%'` a prefix and `'%abc'` a suffix
(`string_compare`'s loops).

Bytes are compared as bytes. In valid UTF-8 a piece can only occur at a character
boundary, so this is Arrow's answer on string columns, and on binary columns it is
Arrow's byte-wise answer. Patterns with `_` (one character, not one byte, in a string)
or a backslash escape, `ignore_case`, views, small arrays and anything else
`string_compare` does not take run Arrow's kernel.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..model.options import option_values
from ..support import late
from . import string_compare
from .function import call_pyarrow

kernels = late.module("toolkit.functions.string_kernels")  # numba's import is slow

__all__ = ["LikePieces", "like_mask", "like_pieces", "rarest_pair", "selective_match_like",
           "selective_match_substring"]

_SAMPLE_BYTES = 1 << 14  # the bytes read to choose a piece's rarest byte pair


class LikePieces(NamedTuple):
    """A LIKE pattern of literals between `%`s, as UTF-8 bytes."""

    head: bytes  # the row starts with it (b"" when the pattern starts with %)
    middle: tuple[bytes, ...]  # then each of these, in order, not overlapping
    tail: bytes | None  # then it ends with it (None when the pattern ends with %)
    exact: bool = False  # no % at all: the row is the head


def like_pieces(pattern: str) -> LikePieces | None:
    """The pieces of a LIKE pattern, or None when it needs Arrow's matcher (an `_` or an
    escape)."""
    if "_" in pattern or "\\" in pattern:
        return None
    if "%" not in pattern:
        return LikePieces(pattern.encode("utf-8"), (), None, exact=True)
    parts = [p.encode("utf-8") for p in pattern.split("%")]
    return LikePieces(parts[0], tuple(p for p in parts[1:-1] if p), parts[-1] or None)


def rarest_pair(sample: np.ndarray, piece: bytes) -> int:
    """The index in `piece` of its two adjacent bytes least frequent together in
    `sample` (0 for a one-byte piece): the pair the search looks for first."""
    if len(piece) < 2:
        return 0
    pairs = (sample[:-1].astype(np.uint16) << 8) | sample[1:]
    return min(range(len(piece) - 1),
               key=lambda i: np.count_nonzero(pairs == ((piece[i] << 8) | piece[i + 1])))


def like_mask(array, pieces: LikePieces) -> string_compare.RowBytes:
    """Rows of a string/binary array matching the pieces; null rows hold whatever their
    bytes give."""
    if pieces.exact:
        return string_compare.literal_mask(array, [pieces.head], kernels.EQUAL)
    if not pieces.middle and pieces.tail is None:  # 'abc%': the prefix loop
        return string_compare.literal_mask(array, [pieces.head], kernels.PREFIX)
    if not pieces.middle and not pieces.head:  # '%abc': the suffix loop
        return string_compare.literal_mask(array, [pieces.tail], kernels.SUFFIX)
    column = string_compare.columns(array)
    rows = string_compare.row_bytes(array)
    low = int(column.offsets[0])
    sample = column.data[low:low + _SAMPLE_BYTES] if len(column.offsets) > 1 else column.data[:0]
    starts = np.zeros(len(pieces.middle) + 1, np.int64)
    starts[1:] = np.cumsum([len(p) for p in pieces.middle])
    pairs = np.array([rarest_pair(sample, p) for p in pieces.middle], np.int64)
    tail = pieces.tail or b""
    kernels.like_rows(column.offsets, column.data, string_compare.padded(pieces.head),
                      len(pieces.head), string_compare.padded(b"".join(pieces.middle)), starts,
                      pairs, string_compare.padded(tail), len(tail), rows.out, rows.base)
    return rows


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
            return string_compare.boolean_result(array, like_mask(array, pieces),
                                                 keep_nulls=True)
        return string_compare.per_chunk(compute, args[0], fallback)
    return execute


selective_match_like = _selective(like_pieces)
selective_match_substring = _selective(
    lambda pattern: LikePieces(b"", (pattern.encode("utf-8"),) if pattern else (), None))
