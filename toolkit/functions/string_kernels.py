"""Compiled loops over Arrow's string buffers: equality, prefix, suffix and LIKE search.

numpy compares a string column against a literal in several whole-array passes (the
lengths, every row's first byte, a gather of the candidates' words, a scatter), each
costing a few nanoseconds a row; Polars' equality is one pass. These loops are that one
pass, compiled with numba over the offsets and data buffers as Arrow lays them out:
per row a length test and the first 8 bytes read as one unaligned 64-bit word (masked
to the literal's length), and for a longer literal each further word, all branch-free
(a branch on the first word's match mispredicts on a common literal). Two literals of 8
bytes or less share a pass and the row's word. Each shape (one short literal, two, a
long one, a suffix) has a loop of its own: one loop testing which shape it is ran twice
as slow. A row near the end of the data buffer, where a word would read past it, takes a
byte-by-byte loop.

A LIKE pattern of literal pieces between `%`s is found the way memmem does: the piece's
rarest adjacent byte pair (`pair`, chosen by the caller) is looked for 64 bytes at a
time by a loop LLVM turns into SIMD compares, then 8 bytes at a time as words (the
zero-byte trick), and the whole piece is compared only where the pair occurs. Without a
head piece the first middle piece is searched once over the whole data buffer (no
per-row start-up cost), each occurrence mapped to its row by walking the offsets; the
later pieces and the tail are searched in that row only, from where the previous piece
ended (the earliest occurrence of each piece is the best choice for the rest).

Every loop is generic over the literal (its bytes are an argument), so numba compiles
each loop once per argument types (int32 or int64 offsets) and caches the machine code
on disk (`cache=True`): a later process loads it instead of compiling. Results are
written a byte per row into `out` from index `base` (the input's bit offset, so the
packed bitmap lines up with the input's validity bitmap byte for byte); `pack` makes the
bitmap. Bytes are compared as bytes: on valid UTF-8 that is character matching, and on
binary columns it is Arrow's byte-wise answer.

The helpers take raw pointers (`_pointer` of an array, with its length beside it), not
arrays: numba counts a reference (an atomic operation) for every array a call passes or
a slice makes, which cost more than the search itself at a row per call.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .cached_loops import compiled as _compiled

__all__ = ["EQUAL", "PREFIX", "SUFFIX", "like_rows", "literal_rows", "pack", "uniform_width"]

EQUAL, PREFIX, SUFFIX = 0, 1, 2  # what `literal_rows` tests

_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_PACK = np.uint64(0x0102040810204080)  # eight 0/1 bytes times this: their bits in the top byte
_BLOCK = 64  # bytes tested for a piece's byte pair in one vectorized step




@intrinsic
def _pointer(typingctx, array):
    """The address of an array's data, as a pointer to its elements (no reference count:
    the array must outlive it, as the kernel's own argument does)."""
    if not isinstance(array, types.Array):
        return None
    sig = types.CPointer(array.dtype)(array)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return sig, codegen


@intrinsic
def _advance(typingctx, pointer, count):
    """pointer + count elements."""
    if not (isinstance(pointer, types.CPointer) and isinstance(count, types.Integer)):
        return None
    sig = pointer(pointer, count)

    def codegen(context, builder, signature, args):
        return builder.gep(args[0], [args[1]])
    return sig, codegen


@intrinsic
def _word(typingctx, pointer, index):
    """The 8 bytes at pointer[index] (a byte pointer) as a little-endian uint64, unaligned
    (the caller keeps index + 8 within the buffer)."""
    if not (isinstance(pointer, types.CPointer) and pointer.dtype.bitwidth == 8
            and isinstance(index, types.Integer)):
        return None
    sig = types.uint64(pointer, index)

    def codegen(context, builder, signature, args):
        at = builder.gep(args[0], [args[1]])
        return builder.load(builder.bitcast(at, ir.IntType(64).as_pointer()), align=1)
    return sig, codegen


@intrinsic
def _trailing_zeros(typingctx, word):
    """The count of trailing zero bits of a nonzero uint64 (LLVM's cttz)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        cttz = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i64, [i64, ir.IntType(1)]), "llvm.cttz.i64")
        return builder.call(cttz, [args[0], ir.Constant(ir.IntType(1), 0)])
    return sig, codegen


@_compiled
def _zero_bytes(x):
    """The high bit of every byte of x that is zero (a higher byte after a zero one may be
    flagged too: a candidate only, confirmed by the caller)."""
    return (x - _ONES) & ~x & _HIGHS


@_compiled
def _low_mask(count):
    """The low `count` bytes of a word set (count 0 to 8)."""
    if count == 0:
        return np.uint64(0)
    return np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - 8 * count)


@_compiled
def _bytes_at(data, nbytes, at, literal, m):
    """data[at:at + m] equals literal[:m] (at + m <= nbytes; the literal holds 8 bytes
    more than m, so its words can be read whole)."""
    if m >= 8:
        p = 0
        while p + 8 < m:
            if _word(data, at + p) != _word(literal, p):
                return False
            p += 8
        return _word(data, at + m - 8) == _word(literal, m - 8)
    if at + 8 <= nbytes:
        return ((_word(data, at) ^ _word(literal, 0)) & _low_mask(m)) == 0
    for p in range(m):
        if data[at + p] != literal[p]:
            return False
    return True


@_compiled
def _safe_rows(offsets, nbytes, reach):
    """The rows before the first whose end is within `reach` bytes of the buffer's end:
    a word read `reach` - 8 bytes or less from a row's start or end stays in the buffer."""
    i = len(offsets) - 1
    while i > 0 and np.int64(offsets[i]) + reach > nbytes:
        i -= 1
    return i


@_compiled
def _hit_near_end(data, nbytes, s, e, literal, m, mode):
    """A row's test where a word could read past the buffer: bytes compared as needed."""
    if mode == EQUAL:
        return e - s == m and _bytes_at(data, nbytes, s, literal, m)
    if mode == PREFIX:
        return e - s >= m and _bytes_at(data, nbytes, s, literal, m)
    return e - s >= m and _bytes_at(data, nbytes, e - m, literal, m)


@_compiled
def _short_rows(bounds, data, count, length, mask, head, exact, suffix, first, rows):
    """The loop of `literal_rows` for one literal of 8 bytes or less (its words masked
    and compared once a row): kept apart, its body is a few instructions."""
    e = np.int64(bounds[0])
    if suffix:
        for i in range(count):
            s = e
            e = np.int64(bounds[i + 1])
            fits = e - s >= length
            hit = fits & ((_word(data, e - length if fits else s) & mask) == head)
            rows[i] = hit if first else rows[i] | hit
        return
    for i in range(count):
        s = e
        e = np.int64(bounds[i + 1])
        fits = (e - s == length) if exact else (e - s >= length)
        hit = fits & ((_word(data, s) & mask) == head)
        rows[i] = hit if first else rows[i] | hit


@_compiled
def _short_pair_rows(bounds, data, count, length1, mask1, head1, length2, mask2, head2, exact,
                     first, rows):
    """The loop of `literal_rows` for two literals of 8 bytes or less, equality or
    prefix: the row's first word read once for both."""
    e = np.int64(bounds[0])
    for i in range(count):
        s = e
        e = np.int64(bounds[i + 1])
        fits1 = (e - s == length1) if exact else (e - s >= length1)
        fits2 = (e - s == length2) if exact else (e - s >= length2)
        word = _word(data, s)
        hit = (fits1 & ((word & mask1) == head1)) | (fits2 & ((word & mask2) == head2))
        rows[i] = hit if first else rows[i] | hit


@_compiled
def _long_rows(bounds, data, count, literal, length, exact, suffix, first, rows):
    """The loop of `literal_rows` for one literal of more than 8 bytes: every word of it
    compared on every row (branch-free: the last word overlaps the one before)."""
    e = np.int64(bounds[0])
    for i in range(count):
        s = e
        e = np.int64(bounds[i + 1])
        fits = (e - s == length) if exact else (e - s >= length)
        at = e - length if suffix and fits else s
        hit = fits & (_word(data, at) == _word(literal, 0))
        p = 8
        while p + 8 < length:
            hit &= _word(data, at + p) == _word(literal, p)
            p += 8
        hit &= _word(data, at + length - 8) == _word(literal, length - 8)
        rows[i] = hit if first else rows[i] | hit


@_compiled
def literal_rows(offsets, data_array, first_array, first_length, second_array, second_length,
                 mode, first, out, base):
    """Per row: equal to (EQUAL), starting with (PREFIX) or ending with (SUFFIX) the
    first or the second literal (second_length -1: none), into out[base + row]; or-ed
    into what is there unless `first`. Two short literals a pass: the offsets and the
    rows' first words are read once for both. A row's test is branch-free: the length
    test and every word of the literal, the first masked to its length."""
    n = len(offsets) - 1
    nbytes = len(data_array)
    data = _pointer(data_array)
    first_literal, second_literal = _pointer(first_array), _pointer(second_array)
    bounds, rows = _pointer(offsets), _advance(_pointer(out), base)  # no negative-index tests
    m1, m2 = first_length, second_length
    safe = _safe_rows(offsets, nbytes, max(max(m1, m2), 8))
    suffix = mode == SUFFIX
    exact = mode == EQUAL
    mask1, mask2 = _low_mask(min(m1, 8)), _low_mask(min(max(m2, 0), 8))
    head1 = _word(first_literal, 0) & mask1
    head2 = _word(second_literal, 0) & mask2
    if m2 >= 0 and m1 <= 8 and m2 <= 8 and not suffix:
        _short_pair_rows(bounds, data, safe, m1, mask1, head1, m2, mask2, head2, exact, first,
                         rows)
    else:
        for length, literal, mask, head, later in ((m1, first_literal, mask1, head1, False),
                                                   (m2, second_literal, mask2, head2, True)):
            if length < 0:
                continue
            if length <= 8:
                _short_rows(bounds, data, safe, length, mask, head, exact, suffix,
                            first and not later, rows)
            else:
                _long_rows(bounds, data, safe, literal, length, exact, suffix,
                           first and not later, rows)
    for i in range(safe, n):  # the last rows, where a word could read past the buffer
        s = np.int64(bounds[i])
        e = np.int64(bounds[i + 1])
        hit = _hit_near_end(data, nbytes, s, e, first_literal, m1, mode)
        if m2 >= 0:
            hit = hit or _hit_near_end(data, nbytes, s, e, second_literal, m2, mode)
        rows[i] = hit if first else rows[i] | hit


@_compiled
def _pair_in_block(data, at, b0, b1, second):
    """Whether the byte pair (b0, b1) starts at one of the _BLOCK positions from `at`
    (b1 ignored when `second` is 0): a min-reduction LLVM vectorizes."""
    least = np.uint8(255)
    for j in range(_BLOCK):
        least = min(least, (data[at + j] ^ b0) | ((data[at + j + 1] ^ b1) & second))
    return least == 0


@_compiled
def _pairs_in_word(data, at, w0, w1, second):
    """The high bit of each of the 8 bytes from `at` where the pair starts (a candidate)."""
    return _zero_bytes(_word(data, at) ^ w0) & _zero_bytes((_word(data, at + 1) ^ w1) & second)


@_compiled
def _find(data, nbytes, lo, hi, piece, m, pair):
    """The first position q in [lo, hi - m] where the m bytes of `piece` start, else -1.
    Candidates are the positions whose bytes at q + pair, q + pair + 1 are the piece's
    (its rarest pair; `pair` 0 for a one-byte piece, whose second byte is not tested)."""
    last = hi - m
    b0 = piece[pair]
    b1 = piece[pair + 1] if m > 1 else np.uint8(0)
    second = np.uint8(255) if m > 1 else np.uint8(0)
    w0 = _ONES * np.uint64(b0)
    w1 = _ONES * np.uint64(b1)
    wide = _ONES * np.uint64(second)
    q = np.int64(lo)
    while q <= last:
        if q + pair + _BLOCK + 1 <= nbytes:
            if q + _BLOCK <= last + 1 and not _pair_in_block(data, q + pair, b0, b1, second):
                q += _BLOCK
                continue
            stop = min(q + _BLOCK, last + 1)
            while q < stop:
                t = _pairs_in_word(data, q + pair, w0, w1, wide)
                while t:
                    c = q + np.int64(_trailing_zeros(t) >> np.uint64(3))
                    if c > last:
                        return -1
                    if _bytes_at(data, nbytes, c, piece, m):
                        return c
                    t &= t - np.uint64(1)
                q += 8
        else:
            if data[q + pair] == b0 and _bytes_at(data, nbytes, q, piece, m):
                return q
            q += 1
    return -1


@_compiled
def _rest_matches(data, nbytes, pos, end, pieces, starts, pairs, count, first_piece, tail,
                  tail_length):
    """Whether the middle pieces from `first_piece` on (of `count`) occur in order in
    data[pos:end], not overlapping, before the tail, and the row (ending at `end`) ends
    with the tail."""
    hi = end - tail_length
    for j in range(first_piece, count):
        m = starts[j + 1] - starts[j]
        c = _find(data, nbytes, pos, hi, _advance(pieces, starts[j]), m, pairs[j])
        if c < 0:
            return False
        pos = c + m
    if hi < pos:
        return False
    return _bytes_at(data, nbytes, hi, tail, tail_length)


@_compiled
def like_rows(offsets, data_array, head_array, head_length, pieces_array, starts_array,
              pairs_array, tail_array, tail_length, out, base):
    """Per row, into out[base + row]: it starts with the head, then holds each middle
    piece (pieces[starts[j]:starts[j + 1]], its rarest pair at pairs[j]) in order, then
    ends with the tail (lengths 0 for none). Without a head, the first middle piece is
    searched over the whole buffer and its occurrences mapped to rows."""
    n = len(offsets) - 1
    nbytes = len(data_array)
    data, head, tail = _pointer(data_array), _pointer(head_array), _pointer(tail_array)
    pieces, starts, pairs = _pointer(pieces_array), _pointer(starts_array), _pointer(pairs_array)
    count = len(starts_array) - 1
    for i in range(n):
        out[base + i] = False
    if head_length or count == 0:
        for i in range(n):
            s = np.int64(offsets[i])
            e = np.int64(offsets[i + 1])
            if e - s < head_length + tail_length or not _bytes_at(data, nbytes, s, head,
                                                                  head_length):
                continue
            out[base + i] = _rest_matches(data, nbytes, s + head_length, e, pieces, starts,
                                          pairs, count, 0, tail, tail_length)
        return
    end = np.int64(offsets[n])
    m = starts[1] - starts[0]
    row = 0
    q = np.int64(offsets[0])
    while row < n:
        c = _find(data, nbytes, q, end, pieces, m, pairs[0])
        if c < 0:
            return
        while np.int64(offsets[row + 1]) <= c:  # the row holding c
            row += 1
        e = np.int64(offsets[row + 1])
        # an occurrence past the row's end: any later one in this row ends later still
        if c + m <= e:
            out[base + row] = _rest_matches(data, nbytes, c + m, e, pieces, starts, pairs,
                                            count, 1, tail, tail_length)
        q = e
        row += 1


@_compiled
def uniform_width(offsets):
    """The one length every row has (flags, codes), else -1: a reduction LLVM vectorizes,
    no early exit."""
    n = len(offsets) - 1
    if n == 0:
        return -1
    width = np.int64(offsets[1]) - np.int64(offsets[0])
    other = False
    for i in range(n):
        other |= np.int64(offsets[i + 1]) - np.int64(offsets[i]) != width
    return -1 if other else width


@_compiled
def pack(out_array, invert, validity, bits):
    """bits[g] = the eight bytes out[8g:8g + 8] (0 or 1) as bits, inverted if asked, and-ed
    with validity[g] when `validity` is not empty."""
    out = _pointer(out_array)
    flip = np.uint8(255) if invert else np.uint8(0)
    and_valid = len(validity) > 0
    for g in range(len(bits)):
        byte = np.uint8(((_word(out, 8 * g) * _PACK) >> np.uint64(56)) & np.uint64(255)) ^ flip
        bits[g] = byte & validity[g] if and_valid else byte
