"""Bad text and bad values get one clear ExprscopeError with a caret, never another exception.

Each case is one a user (or an attacker) typed and that used to be read as
something else without a word (`a > > 3` as a shift, `a;` as `a`, an ESC inside a
name) or to escape as a Python or Arrow error from deep inside.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import BuildError, ExprscopeError, ParseError


def _caret_column(err: ParseError) -> int:
    return err.args[0].splitlines()[-1].index("^") - 2


@pytest.mark.parametrize("text, culprit, says", [
    ("a > > 3", "> >", "two comparison operators"),
    ("a < < 3", "< <", "two comparison operators"),
    ("a;", ";", "semicolon"),
    (";+y", ";", "semicolon"),
    ("a\x00b > 1", "\x00", "U+0000"),
    ("a\x1bb > 1", "\x1b", "U+001B"),
    ("\ufeffa > 1", "\ufeff", "U+FEFF"),
    ("a\u202e > 1", "\u202e", "U+202E"),
    ("x\x85 > 1", "\x85", "U+0085"),
    ('"quoted\x1b name" > 1', "\x1b", "U+001B"),
    ("'\ud800' = s", "\ud800", "U+D800"),
    ("substr(s, 9223372036854775807, 2)", "substr", "too large"),
    ("CAST(x AS DECIMAL(10, 99999999999999999999))", "10, 9999", "far too large"),
    ("x IN (9007199254740993, 1.5)", "x IN", "9007199254740993"),
    ("1" * 5000 + " > a", "1111", "5,000 characters"),
    ("1e400 > a", "1e400", "beyond the range of a double"),
    ("CAST(x AS DECIMAL(10, 50))", "10, 50", "scale cannot exceed the precision"),
    ("struct(a AS x, a AS x)", "x)", "names the field 'x' twice"),
    ("struct()", "struct", "at least one"),
    ("a /", "/", "'/' is missing its right operand"),
])
def test_bad_text_is_a_parse_error_with_a_caret_under_the_culprit(text, culprit, says):
    with pytest.raises(ParseError) as info:
        tk.parse(text)
    err = info.value
    assert says in err.reason
    assert text[err.position:].startswith(culprit), (err.position, err.args[0])
    assert "Div" not in str(err) and "<class" not in str(err)


@pytest.mark.parametrize("text", ["a >> 3", "a <> b", "a >= 3", "'a; b' = s", "'> >' = s",
                                  '"ok name" > 1', "s = 'tab\there'", "NOT (a > 1)"])
def test_what_looks_alike_but_is_right_still_parses(text):
    assert isinstance(tk.parse(text), tk.Expression)


@pytest.mark.parametrize("build, says", [
    (lambda: tk.literal(2 ** 70), "cannot make a literal"),
    (lambda: tk.literal("x", pa.int32()), "of type int32"),
    (lambda: tk.field("a") + 2 ** 70, "cannot make a literal"),
    (lambda: tk.call("add", [tk.field("a"), tk.field("b")], options=42), "FunctionOptions"),
    (lambda: tk.project([], []), "at least one value"),
    (lambda: tk.make_struct([tk.field("a")], [1]), "names must be strings"),
])
def test_bad_values_in_the_builders_are_build_errors(build, says):
    with pytest.raises(BuildError, match=says):
        build()


@given(st.text(max_size=80))
def test_any_text_gives_an_expression_or_a_parse_error_with_a_caret_inside_it(text):
    try:
        tk.parse(text)
    except ParseError as err:
        assert 0 <= err.position <= len(text)
        assert "^" in err.args[0].splitlines()[-1]


_ALPHABET = st.sampled_from(list("ab1.+-*/()<>=!;,' \"\\eE%|&^~") + ["\x00", "\x1b", "\u202e",
                                                                    "NOT ", "CASE ", " AND "])


@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_operator_soup_gives_an_expression_or_a_parse_error(text):
    try:
        tk.parse(text)
    except ParseError:
        pass


_ANY_VALUE = st.one_of(st.none(), st.integers(-2 ** 80, 2 ** 80), st.floats(), st.text(max_size=5),
                       st.binary(max_size=5), st.booleans(), st.lists(st.integers(), max_size=3),
                       st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
                       st.builds(object))
_TYPES = st.sampled_from([None, pa.int8(), pa.uint64(), pa.float32(), pa.utf8(), pa.bool_(),
                          pa.decimal128(5, 2), pa.date32(), "int32", "no-such-type"])


@given(_ANY_VALUE, _TYPES)
def test_literal_of_anything_is_a_literal_or_a_build_error(value, type_):
    try:
        tk.literal(value, type_)
    except ExprscopeError:
        pass


@given(st.one_of(st.text(max_size=5), st.integers(), st.none(), st.builds(object)),
       st.lists(_ANY_VALUE, max_size=3),
       st.one_of(st.none(), st.integers(), st.just(pc.NullOptions()), st.text(max_size=3)))
def test_call_and_field_of_anything_build_or_raise_an_exprscope_error(name, args, options):
    try:
        tk.call(name, args, options)
    except ExprscopeError:
        pass
    try:
        tk.field(name)
    except ExprscopeError:
        pass
