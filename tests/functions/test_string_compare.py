"""exprscope's selective string comparisons give exactly what Arrow's kernels give.

Every string and binary type, sliced and chunked, with nulls, invalid UTF-8 in
binary columns, literals that match, share a prefix or a length, or are empty,
buffers without padding after their last byte (the loops read 8-byte words); the row
threshold is lowered so small generated arrays take the compiled loops, and a counter
checks that they did (views and null literals take Arrow's).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.functions import string_compare
from toolkit.functions.registry import get_function

OFFSET_TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
VIEW_TYPES = [pa.string_view(), pa.binary_view()]
TEXT_ALPHABET = ["", "M", "MA", "MAIL", "MAIX", "SHIP", "MAILS", "é", "Mé", "AIR", "REG AIR",
                 "ABCDEFGHIJ", "ABCDEFGHIK"]
BYTE_ALPHABET = [t.encode() for t in TEXT_ALPHABET] + [b"\xff", b"MA\xff", b"\xc3", b"\x00MAIL"]


@contextlib.contextmanager
def selective_everywhere():
    """Lower the row threshold to 0 and count the calls that fell back to Arrow."""
    saved_min, saved_call = string_compare.SELECTIVE_MIN_ROWS, string_compare.call_pyarrow
    fallbacks = []

    def counting(*args):
        fallbacks.append(args[0].name)
        return saved_call(*args)
    string_compare.SELECTIVE_MIN_ROWS = 0
    string_compare.call_pyarrow = counting
    try:
        yield fallbacks
    finally:
        string_compare.SELECTIVE_MIN_ROWS, string_compare.call_pyarrow = saved_min, saved_call


def junk_after(array: pa.Array) -> pa.Array:
    """The same array over a data buffer cut out of a longer one whose next bytes are junk
    (0xff, then the literals' letters): a loop reading a word past the last row's end
    would see them and answer wrong."""
    if array.type not in OFFSET_TYPES:
        return array
    validity, offsets, data = array.buffers()
    data = data.to_pybytes() if data is not None else b""
    cut = pa.py_buffer(data + b"\xffMAILABCDEFGHIJ\xff")[:len(data)]
    return pa.Array.from_buffers(array.type, len(array), [validity, offsets, cut],
                                 offset=array.offset)


@st.composite
def columns(draw, types=OFFSET_TYPES):
    """(a string/binary array or chunked array, the Python values it holds)."""
    t = draw(st.sampled_from(types))
    binary = pa.types.is_binary(t) or pa.types.is_large_binary(t) or t == pa.binary_view()
    alphabet = BYTE_ALPHABET if binary else TEXT_ALPHABET
    if draw(st.booleans()):  # every row of one width (flags, codes), as the literals often are
        width = draw(st.sampled_from([1, 2, 3, 4, 7, 8]))
        chars = "ABRé" if not binary else "AB\xff"
        one = st.text(chars, min_size=width, max_size=width).filter(
            lambda v: len(v.encode("latin-1" if binary else "utf-8")) == width)
        values = draw(st.lists(one.map(lambda v: v.encode("latin-1")) if binary else one,
                               max_size=60))
    else:
        values = draw(st.lists(st.one_of(st.none(), st.sampled_from(alphabet),
                                         st.binary(max_size=12) if binary else st.text(max_size=6)),
                               max_size=60))
    array = pa.array(values, type=t)
    if draw(st.booleans()):
        array = junk_after(array)
    start = draw(st.integers(0, len(values)))
    stop = draw(st.integers(start, len(values)))
    array = array.slice(start, stop - start)
    if draw(st.booleans()) and len(array) > 1:
        cut = draw(st.integers(1, len(array) - 1))
        return pa.chunked_array([array.slice(0, cut), array.slice(cut)], type=t), t, binary
    return array, t, binary


def literal_for(draw, t, binary):
    alphabet = BYTE_ALPHABET if binary else TEXT_ALPHABET
    alphabet = alphabet + ([b"A", b"AB", b"BBB", b"ABAB", b"A\xffA\xff"] if binary
                           else ["A", "R", "AB", "BBB", "ABAB", "Aé", "ABABABA"])
    return draw(st.one_of(st.sampled_from(alphabet),
                          st.binary(max_size=10) if binary else st.text(max_size=5)))


def _same(ours, theirs):
    if isinstance(theirs, pa.ChunkedArray):
        theirs = theirs.combine_chunks()
    if isinstance(ours, pa.ChunkedArray):
        ours = ours.combine_chunks()
    assert ours.type == theirs.type
    assert ours.to_pylist() == theirs.to_pylist()
    assert ours.null_count == theirs.null_count
    ours.validate(full=True)


def _offset_type(value) -> bool:
    return value.type in OFFSET_TYPES and (not isinstance(value, pa.ChunkedArray) or value.num_chunks > 0)


@settings(max_examples=300, deadline=None)
@given(st.data(), columns(OFFSET_TYPES + VIEW_TYPES), st.sampled_from(["equal", "not_equal"]),
       st.booleans())
def test_equality_against_a_literal_is_arrows(data, column, name, literal_first):
    value, t, binary = column
    literal = pa.scalar(literal_for(data.draw, t, binary), type=t)
    args = [literal, value] if literal_first else [value, literal]
    with selective_everywhere() as fallbacks:
        ours = get_function(name)(args)
    _same(ours, getattr(pc, name)(*args))
    assert (fallbacks == []) == _offset_type(value)


@settings(max_examples=100, deadline=None)
@given(columns(), st.sampled_from(["equal", "not_equal"]))
def test_a_null_literal_gives_nulls_as_arrow_does(column, name):
    value, t, _ = column
    literal = pa.scalar(None, type=t)
    with selective_everywhere():
        _same(get_function(name)([value, literal]), getattr(pc, name)(value, literal))


@settings(max_examples=300, deadline=None)
@given(st.data(), columns(OFFSET_TYPES), st.sampled_from([0, 1, 2, 3]),
       st.booleans())
def test_is_in_is_arrows(data, column, behavior, with_null):
    from toolkit.passes.set_lookup import set_lookup_options
    value, _, binary = column
    literals = data.draw(st.lists(st.sampled_from(BYTE_ALPHABET if binary else TEXT_ALPHABET),
                                  max_size=5))
    set_type = data.draw(st.sampled_from([pa.binary(), pa.large_binary()] if binary
                                         else [pa.string(), pa.large_string()]))
    value_set = pa.array(literals + ([None] if with_null else []), type=set_type)
    options = set_lookup_options(value_set, behavior)
    with selective_everywhere() as fallbacks:
        ours = get_function("is_in")([value], options)
    _same(ours, pc.is_in(value, options=options))
    assert (fallbacks == []) == (_offset_type(value) and not with_null)


@settings(max_examples=400, deadline=None)
@given(st.data(), columns(OFFSET_TYPES + VIEW_TYPES), st.booleans(),
       st.sampled_from(["starts_with", "ends_with"]))
def test_starts_with_and_ends_with_are_arrows(data, column, ignore_case, name):
    value, t, _ = column
    affix = data.draw(st.sampled_from(TEXT_ALPHABET + ["IL", "AIL", "BCDEFGHIJ", "ABCDEFGHI"])
                      | st.text(max_size=4))
    options = pc.MatchSubstringOptions(affix, ignore_case=ignore_case)
    if t in VIEW_TYPES:
        with pytest.raises(pa.ArrowNotImplementedError):
            getattr(pc, name)(value, options=options)
        return
    with selective_everywhere() as fallbacks:
        ours = get_function(name)([value], options)
    _same(ours, getattr(pc, name)(value, options=options))
    assert (fallbacks == []) == (_offset_type(value) and not ignore_case)


@settings(max_examples=100, deadline=None)
@given(st.data(), columns(OFFSET_TYPES))
def test_a_large_value_set_is_arrows_hash_lookup(data, column):
    """More than MAX_SET_LITERALS values: Arrow's kernel, the same values."""
    value, _, binary = column
    alphabet = BYTE_ALPHABET if binary else TEXT_ALPHABET
    literals = data.draw(st.lists(st.sampled_from(alphabet), min_size=9, max_size=12,
                                  unique=True))
    options = pc.SetLookupOptions(pa.array(literals, pa.binary() if binary else pa.string()))
    with selective_everywhere() as fallbacks:
        ours = get_function("is_in")([value], options)
    _same(ours, pc.is_in(value, options=options))
    assert (fallbacks == ["is_in"]) == _offset_type(value)


def test_lineitem_shaped_column_through_the_engine(monkeypatch):
    """At real size (above the threshold, no patching) through evaluate: the shipmode
    filter of TPC-H on a column with nulls, sliced off a byte boundary, in chunks; a
    literal a third of the rows share their length with; a column of one width. Every
    row went through the compiled loops; an array below the threshold took Arrow's."""
    modes = np.array(["MAIL", "SHIP", "AIR", "RAIL", "TRUCK", "REG AIR", "FOB"], dtype=object)
    rng = np.random.default_rng(7)
    values = modes[rng.integers(0, len(modes), 30_003)]
    values[rng.random(len(values)) < 0.1] = None
    column = pa.array(values, pa.large_string()).slice(3)
    table = pa.table({"m": pa.chunked_array([column.slice(0, 12_000), column.slice(12_000)])})
    saved, ran = string_compare.literal_mask, []

    def counting(*args, **kwargs):
        ran.append(len(args[0]))
        return saved(*args, **kwargs)
    monkeypatch.setattr(string_compare, "literal_mask", counting)
    short = pa.table({"m": column.slice(0, string_compare.SELECTIVE_MIN_ROWS - 1)})
    _same(tk.evaluate(tk.parse("m == 'MAIL'"), short), pc.equal(short["m"], "MAIL"))
    assert ran == []
    for text, oracle in [
        ("m == 'MAIL'", pc.equal(table["m"], "MAIL")),
        ("m != 'REG AIR'", pc.not_equal(table["m"], "REG AIR")),
        ("starts_with(m, 'REG A')", pc.starts_with(table["m"], "REG A")),
        ("ends_with(m, 'AIL')", pc.ends_with(table["m"], "AIL")),
        ("m in ('MAIL', 'SHIP', 'AIR')", pc.is_in(table["m"], pa.array(["MAIL", "SHIP", "AIR"]))),
    ]:
        if "_with" in text:
            name, affix = text.split("(")[0], text.split("'")[1]
            expr = tk.call(name, [tk.field("m")], pc.MatchSubstringOptions(affix))
        else:
            expr = tk.parse(text)
        _same(tk.evaluate(expr, table), oracle)
    assert sum(ran) == 5 * len(column)
    ran.clear()
    common = pa.array(np.where(rng.random(30_003) < 0.35, "NONE", "COLLECT COD"), pa.string())
    common_table = pa.table({"m": pa.chunked_array([common.slice(0, 15_000), common.slice(15_000)])})
    _same(tk.evaluate(tk.parse("m = 'NONE'"), common_table), pc.equal(common_table["m"], "NONE"))
    _same(tk.evaluate(tk.parse("m <> 'NONE'"), common_table),
          pc.not_equal(common_table["m"], "NONE"))
    flags = pa.array(np.array(["R", "A", "N"])[rng.integers(0, 3, 30_003)], pa.string())
    flag_table = pa.table({"m": pa.chunked_array([flags.slice(0, 15_000), flags.slice(15_000)])})
    _same(tk.evaluate(tk.parse("m = 'R'"), flag_table), pc.equal(flag_table["m"], "R"))
    assert sum(ran) == 3 * 30_003


@settings(max_examples=200, deadline=None)
@given(st.data(), columns(), st.sampled_from(["equal", "not_equal"]), st.booleans(),
       st.booleans())
def test_a_dictionary_is_compared_per_entry_as_arrow_decodes(data, column, name, literal_first,
                                                            null_entry):
    """Dictionary columns (a null entry as well as null indices) through binding and the
    engine: the same values as Arrow's kernel, with no cast to decode them first."""
    value, t, binary = column
    chunks = value.chunks if isinstance(value, pa.ChunkedArray) else [value]
    encoded = []
    for chunk in chunks:
        chunk = chunk.dictionary_encode()
        if null_entry and len(chunk.dictionary):  # an entry that is itself null
            dictionary = pa.array([None] + chunk.dictionary.to_pylist()[1:], t)
            chunk = pa.DictionaryArray.from_arrays(chunk.indices, dictionary)
        encoded.append(chunk)
    table = pa.table({"m": pa.chunked_array(encoded, type=encoded[0].type)})
    literal = pa.scalar(literal_for(data.draw, t, binary), type=t)
    args = [tk.literal(literal), tk.field("m")] if literal_first else [tk.field("m"),
                                                                      tk.literal(literal)]
    bound = tk.bind(tk.call(name, args), table.schema)
    assert "cast" not in str(bound)
    oracle = [literal, table["m"]] if literal_first else [table["m"], literal]
    _same(tk.evaluate(bound, table, simplify=False), getattr(pc, name)(*oracle))


@pytest.mark.parametrize("type_", OFFSET_TYPES)
def test_long_literals_sharing_their_first_eight_bytes(type_):
    """Literals longer than a word that agree on the first 8 bytes, rows of every length
    around them, the shortest rows last in the buffer."""
    texts = ["ABCDEFGHIJ", "ABCDEFGHIK", "ABCDEFGH", "ABCDEFGHIJK", "ABCDEFGHI", None,
             "XBCDEFGHIJ", "ABCDEFGHIJ", "", "A", "AB"]
    binary = type_ in (pa.binary(), pa.large_binary())
    values = pa.array([t.encode() if binary and t is not None else t for t in texts], type_)
    for sliced in (values, values.slice(1), values.slice(0, 8)):
        for literal in ["ABCDEFGHIJ", "ABCDEFGHIK", "ABCDEFGH", "A", "AB"]:
            scalar = pa.scalar(literal.encode() if binary else literal, type_)
            with selective_everywhere():
                _same(get_function("equal")([sliced, scalar]), pc.equal(sliced, scalar))
            options = pc.SetLookupOptions(pa.array([literal, "ABCDEFGHIK"],
                                                   pa.binary() if binary else pa.string()))
            with selective_everywhere():
                _same(get_function("is_in")([sliced], options), pc.is_in(sliced, options=options))
            affix = pc.MatchSubstringOptions(literal)
            for name in ("starts_with", "ends_with"):
                with selective_everywhere():
                    _same(get_function(name)([sliced], affix),
                          getattr(pc, name)(sliced, options=affix))
