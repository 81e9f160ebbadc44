"""exprscope's LIKE and substring search gives exactly what Arrow's match_like and
match_substring give.

Random strings over an alphabet the patterns' pieces are made of (so pieces occur,
overlap, repeat and straddle row boundaries), non-ASCII text, newlines, nulls, every
offset type (binary with invalid UTF-8), sliced and chunked, over data buffers with junk
after their last byte; patterns built from pieces between `%`s with and without anchors,
NUL bytes, pieces longer than a word and rows longer than the 64-byte search block, plus
patterns with `_`, escapes and ignore_case that must take Arrow's own kernel. A counter
checks which path each call took. Arrow's own MatchLike test cases are ported as they
stand.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.functions import like_search, string_compare
from toolkit.functions.registry import get_function

from .test_string_compare import junk_after

OFFSET_TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
CHARS = "ab%_ é\n\\\x00"  # pattern metacharacters are ordinary bytes in the data
PIECES = ["a", "b", "ab", "ba", "aa", "aba", "é", "aé", "ab ", " ", "abab", "bbbbbbbbb",
          "special", "requests", "a\x00", "\x00b"]


@contextlib.contextmanager
def selective_everywhere():
    """Lower the row threshold to 0 and record the calls that fell back to Arrow."""
    saved_min, saved_call = string_compare.SELECTIVE_MIN_ROWS, like_search.call_pyarrow
    fallbacks = []

    def counting(*args):
        fallbacks.append(args[0].name)
        return saved_call(*args)
    string_compare.SELECTIVE_MIN_ROWS = 0
    like_search.call_pyarrow = counting
    try:
        yield fallbacks
    finally:
        string_compare.SELECTIVE_MIN_ROWS, like_search.call_pyarrow = saved_min, saved_call


@st.composite
def columns(draw):
    """A string/binary array or chunked array, sliced, with nulls."""
    t = draw(st.sampled_from(OFFSET_TYPES))
    text = st.one_of(st.text(CHARS, max_size=14),
                     st.lists(st.sampled_from(PIECES + ["x", "%", "_"]), max_size=5).map("".join),
                     st.text(max_size=4))
    value = text.map(lambda v: v.encode()) if t in (pa.binary(), pa.large_binary()) else text
    if t in (pa.binary(), pa.large_binary()):
        value = st.one_of(value, st.binary(max_size=8).map(lambda b: b + b"ab\xff"),
                          st.binary(max_size=8).map(lambda b: b"a" + b + b"\x00"))
    values = draw(st.lists(st.one_of(st.none(), value, value.map(lambda v: v * 9)),
                           max_size=50))
    array = pa.array(values, type=t)
    if draw(st.booleans()):
        array = junk_after(array)
    start = draw(st.integers(0, len(values)))
    stop = draw(st.integers(start, len(values)))
    array = array.slice(start, stop - start)
    if draw(st.booleans()) and len(array) > 1:
        cut = draw(st.integers(1, len(array) - 1))
        return pa.chunked_array([array.slice(0, cut), array.slice(cut)], type=t)
    return array


@st.composite
def like_patterns(draw):
    """Pieces between `%`s, anchored or not at either end."""
    pieces = draw(st.lists(st.sampled_from(PIECES + [""]), min_size=1, max_size=4))
    head = draw(st.sampled_from(["%", ""] + PIECES[:6]))
    tail = draw(st.sampled_from(["%", ""] + PIECES[:6]))
    return head + "%" + "%".join(pieces) + "%" + tail if head != "%" else \
        "%" + "%".join(pieces) + "%" + tail


def _same(ours, theirs):
    if isinstance(theirs, pa.ChunkedArray):
        theirs = theirs.combine_chunks()
    if isinstance(ours, pa.ChunkedArray):
        ours = ours.combine_chunks()
    ours.validate(full=True)
    assert ours.type == theirs.type
    assert ours.to_pylist() == theirs.to_pylist()
    assert ours.null_count == theirs.null_count


def _took_ours(value) -> bool:
    return not isinstance(value, pa.ChunkedArray) or value.num_chunks > 0


@settings(max_examples=400, deadline=None)
@given(columns(), like_patterns())
def test_like_of_literal_pieces_is_arrows(value, pattern):
    options = pc.MatchSubstringOptions(pattern)
    with selective_everywhere() as fallbacks:
        ours = get_function("match_like")([value], options)
    _same(ours, pc.match_like(value, options=options))
    if like_search.like_pieces(pattern) is not None and _took_ours(value):
        assert fallbacks == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text("ab", max_size=4)), max_size=30),
       st.lists(st.sampled_from(["a", "b", "ab", "ba", "aba", "bab", "abab"]), min_size=1,
                max_size=2), st.sampled_from(["", "a", "ab"]), st.sampled_from([None, "b", "ab"]),
       st.sampled_from(OFFSET_TYPES), st.integers(0, 3))
@example(["a", "b"], ["ab"], "", None, pa.string(), 0)
@example(["xab", "a", "ba", "b"], ["aba"], "", None, pa.large_binary(), 1)
@example(["a", "ba", "b"], ["a", "ab"], "", "b", pa.binary(), 0)
@example(["ab", "ba", "b"], ["a", "ab"], "", None, pa.string(), 0)
def test_pieces_across_row_boundaries_do_not_match(values, pieces, head, tail, type_, start):
    """Two letters only: pieces occur across every row boundary and overlap each other."""
    pattern = head + "%" + "%".join(pieces) + "%" + (tail or "")
    binary = type_ in (pa.binary(), pa.large_binary())
    array = pa.array([v.encode() if binary and v is not None else v for v in values], type_)
    array = array.slice(min(start, len(array)))
    options = pc.MatchSubstringOptions(pattern)
    with selective_everywhere() as fallbacks:
        ours = get_function("match_like")([array], options)
    _same(ours, pc.match_like(array, options=options))
    assert fallbacks == []


@settings(max_examples=300, deadline=None)
@given(columns(), st.text(CHARS, max_size=6), st.booleans())
def test_any_like_pattern_is_arrows(value, pattern, ignore_case):
    """`_`, escapes and ignore_case run Arrow's kernel; everything else ours: same values."""
    options = pc.MatchSubstringOptions(pattern, ignore_case=ignore_case)
    try:
        theirs = pc.match_like(value, options=options)
    except pa.ArrowInvalid:  # a dangling escape: Arrow's error, which ours must also raise
        with pytest.raises(pa.ArrowInvalid), selective_everywhere():
            get_function("match_like")([value], options)
        return
    with selective_everywhere() as fallbacks:
        ours = get_function("match_like")([value], options)
    _same(ours, theirs)
    ours_ran = not ignore_case and like_search.like_pieces(pattern) is not None
    assert (fallbacks == []) == (ours_ran or not _took_ours(value))


@settings(max_examples=300, deadline=None)
@given(columns(), st.sampled_from(PIECES + [""]) | st.text(CHARS, max_size=4), st.booleans())
def test_match_substring_is_arrows(value, pattern, ignore_case):
    options = pc.MatchSubstringOptions(pattern, ignore_case=ignore_case)
    with selective_everywhere() as fallbacks:
        ours = get_function("match_substring")([value], options)
    _same(ours, pc.match_substring(value, options=options))
    assert (fallbacks == []) == (not ignore_case or not _took_ours(value))


# Arrow's own cases (scalar_string_test.cc: MatchLike, MatchLikeEscaping), as they stand
ARROW_CASES = [
    (["foo", "bar", "foobar", "barfoo", "o", "\nfoo", "foo\n", None], "foo%",
     [True, False, True, False, False, False, True, None]),
    (["foo", "bar", "foobar", "barfoo", "o", "\nfoo", "foo\n", None], "%foo",
     [True, False, False, True, False, True, False, None]),
    (["foo", "bar", "foobar", "barfoo", "o", "\nfoo", "foo\n", None], "%foo%",
     [True, False, True, True, False, True, True, None]),
    (["foo", "bar", "foobar", "barfoo", "o", "\nfoo", "foo\n", None], "%%",
     [True, True, True, True, True, True, True, None]),
    (["foo", "bar", "foobar", "barfoo", "o", "\nfoo", "foo\n", None], "foo%bar",
     [False, False, True, False, False, False, False, None]),
    (["%%foo", "_bar", "({", "\\baz"], "\\%%", [True, False, False, False]),
    (["%%foo", "_bar", "({", "\\baz"], "%\\%%", [True, False, False, False]),
    (["%%foo", "_bar", "({", "\\baz"], "\\____", [False, True, False, False]),
    (["%%foo", "_bar", "({", "\\baz"], "(%", [False, False, True, False]),
    (["%%foo", "_bar", "({", "\\baz"], "\\\\%", [False, False, False, True]),
    (["!@#$^&*()[]{}.?"], "!@#$^&*()[]{}.?", [True]),
    (["\n\tfoo\t", "\n\t", "\n"], "\n\t%", [True, True, False]),
]


@pytest.mark.parametrize("values, pattern, expected", ARROW_CASES)
@pytest.mark.parametrize("type_", OFFSET_TYPES)
def test_arrows_own_like_cases(values, pattern, expected, type_):
    if type_ in (pa.binary(), pa.large_binary()):
        values = [v.encode() if v is not None else None for v in values]
    with selective_everywhere():
        ours = get_function("match_like")([pa.array(values, type_)],
                                          pc.MatchSubstringOptions(pattern))
    assert ours.to_pylist() == expected


def test_orders_comments_through_the_engine(monkeypatch):
    """At real size (above the threshold, no patching), through evaluate: Q13's
    `not like '%special%requests%'` on comment-like text with nulls, sliced off a byte
    boundary, in chunks; the compiled search ran on every row."""
    words = np.array(["special", "requests", "specia", "requestsspecial", "quickly", "é",
                      "pending", "deposits", "sleep", " "], dtype=object)
    rng = np.random.default_rng(13)
    values = ["".join(words[rng.integers(0, len(words), rng.integers(0, 9))])
              for _ in range(20_011)]
    values = [None if rng.random() < 0.1 else v for v in values]
    column = pa.array(values, pa.string()).slice(5)
    table = pa.table({"c": pa.chunked_array([column.slice(0, 9_000), column.slice(9_000)])})
    saved, ran = like_search.like_mask, []

    def counting(array, pieces):
        ran.append(len(array))
        return saved(array, pieces)
    monkeypatch.setattr(like_search, "like_mask", counting)
    for text, pattern in [("c not like '%special%requests%'", "%special%requests%"),
                          ("c like 'special%requests%é'", "special%requests%é"),
                          ("c like '%requests%special%é%'", "%requests%special%é%"),
                          ("c like 'quickly%special%'", "quickly%special%")]:
        oracle = pc.match_like(table["c"], pattern)
        if text.startswith("c not"):
            oracle = pc.invert(oracle)
        _same(tk.evaluate(tk.parse(text), table), oracle)
    assert sum(ran) == 4 * len(column)


@pytest.mark.parametrize("type_", OFFSET_TYPES)
def test_nul_bytes_long_rows_and_long_pieces(type_):
    """NUL bytes at the buffer's end and in pieces; rows longer than the 64-byte block the
    search tests at once, with the piece in every position of it; pieces longer than a
    word: the same values as Arrow's."""
    binary = type_ in (pa.binary(), pa.large_binary())
    filler = "the quick brown fox jumps over the lazy dog "
    texts = ["xx special yy requests", "requests special", "special requests", None,
             "specialrequests", "special request", "special\nrequests!", "é special é requests é",
             "nothing", "special requestsspecial", "special re", "quests"]
    texts += [filler[:k] + "special" + filler * 2 + "requests" + filler[k:] for k in range(44)]
    texts += [filler * 3 + "special requests"[:k] for k in range(17)]
    for ending, pattern in [("", "%special%requests%"), ("\x00", "%special%requests%"),
                            ("", "%special%requests\x00%"), ("", "%e%s%"),
                            ("", "%brown fox jumps over%lazy%"), ("\x00", "%\x00"),
                            ("", "%quick brown fox%requests"), ("", "the%special%")]:
        values = [t + ending if t is not None else None for t in texts]
        if binary:
            values = [v.encode() if v is not None else None for v in values]
        for array in (pa.array(values, type_).slice(1), junk_after(pa.array(values, type_))):
            options = pc.MatchSubstringOptions(pattern)
            with selective_everywhere() as fallbacks:
                ours = get_function("match_like")([array], options)
            _same(ours, pc.match_like(array, options=options))
            assert fallbacks == []
