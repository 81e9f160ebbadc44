"""extract_known_field_values and replace_fields_with_known_values: Arrow's cases, and
remove_named_refs."""

import pyarrow as pa
import pytest

import toolkit as tk
from tests.passes.arrow_cases import assert_same_expr, bound, call, null_literal
from toolkit.errors import UnboundError
from toolkit.passes import GuaranteeError
from toolkit.passes.errors import PassError

F = tk.field
R = tk.FieldRef


def f32(x):
    return tk.literal(pa.scalar(x, pa.float32()))


def scalar_map(known):
    return {ref: value for ref, value in known.items()}


@pytest.mark.parametrize("guarantee, expected", [
    (tk.equal(F("i32"), tk.literal(3)), {R("i32"): pa.scalar(3)}),
    (tk.greater(F("i32"), tk.literal(3)), {}),
    (tk.equal(F("i32"), null_literal(pa.int32())), {R("i32"): pa.scalar(None, pa.int32())}),
    (tk.and_(tk.equal(F("i32"), tk.literal(3)), tk.equal(F("f32"), f32(1.5))),
     {R("i32"): pa.scalar(3), R("f32"): pa.scalar(1.5, pa.float32())}),
    # guarantees are not canonicalized: the flipped equality is ignored
    (tk.and_(tk.equal(F("i32"), tk.literal(3)), tk.equal(f32(1.5), F("f32"))),
     {R("i32"): pa.scalar(3)}),
    # nor simplified
    (tk.or_(tk.equal(F("i32"), tk.literal(3)), tk.literal(False)), {}),
    # nor type-checked: applying them may need casts
    (tk.equal(F("i32"), tk.literal("1234324")), {R("i32"): pa.scalar("1234324")}),
    (tk.and_([tk.equal(F("i32"), tk.literal(3)), tk.equal(F("f32"), f32(2.0)),
              tk.equal(F("i32_req"), tk.literal(1))]),
     {R("i32"): pa.scalar(3), R("f32"): pa.scalar(2.0, pa.float32()), R("i32_req"): pa.scalar(1)}),
    (tk.and_(tk.or_(tk.equal(F("i32"), tk.literal(3)), tk.equal(F("i32"), tk.literal(4))),
             tk.equal(F("f32"), f32(2.0))),
     {R("f32"): pa.scalar(2.0, pa.float32())}),
    (tk.and_([tk.equal(F("i32"), tk.literal(3)), tk.equal(F("f32"), F("f32_req")),
              tk.equal(F("i32_req"), tk.literal(1))]),
     {R("i32"): pa.scalar(3), R("i32_req"): pa.scalar(1)}),
    (tk.is_null(F("str")), {R("str"): pa.scalar(None)}),
    (call("and", tk.equal(F("i32"), tk.literal(3)), tk.equal(F("f32"), f32(2.0))), {}),
])
def test_arrow_extract_known_field_values(guarantee, expected):
    known = tk.extract_known_field_values(guarantee)
    assert set(known) == set(expected)
    for ref, value in expected.items():
        assert known[ref].equals(value) and known[ref].type == value.type


def test_is_null_gives_a_null_of_type_null_and_the_first_duplicate_wins():
    known = tk.extract_known_field_values(tk.and_([
        tk.is_null(F("a")), tk.equal(F("a"), tk.literal(1)), tk.equal(F("b"), tk.literal(2)),
        tk.equal(F("b"), tk.literal(3))]))
    assert known[R("a")].type == pa.null()
    assert known[R("b")].as_py() == 2


I32_IS_3 = {R("i32"): pa.scalar(3, pa.int32())}


def expect_replaces_to(expr, known, expected):
    before = bound(expr)
    after = tk.replace_fields_with_known_values(before, known)
    assert_same_expr(after, bound(expected))
    if after.equals(before):
        assert after is before


def i32(n):
    return tk.literal(pa.scalar(n, pa.int32()))


DICT_STR = pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()), pa.array(["3"]))[0]


@pytest.mark.parametrize("expr, known, expected", [
    (tk.literal(1), I32_IS_3, tk.literal(1)),
    (F("i32"), I32_IS_3, i32(3)),
    (F("i32"), {R("i32"): pa.scalar("3")}, i32(3)),  # known values are cast
    (F("f32"), I32_IS_3, F("f32")),
    (tk.equal(F("i32"), i32(1)), I32_IS_3, tk.equal(i32(3), i32(1))),
    (F("dict_str"), {R("dict_str"): DICT_STR}, tk.literal(DICT_STR)),
    (call("add", call("subtract", F("i32"), call("multiply", i32(2), i32(3))), i32(2)), I32_IS_3,
     call("add", call("subtract", i32(3), call("multiply", i32(2), i32(3))), i32(2))),
    (tk.is_null(F("i32")), {**I32_IS_3, R("str"): pa.scalar(None, pa.utf8())}, tk.is_null(i32(3))),
    (tk.is_valid(F("str")), {**I32_IS_3, R("str"): pa.scalar(None, pa.utf8())},
     tk.is_valid(null_literal(pa.utf8()))),
    # a plain string becomes a dictionary scalar; an int32 dictionary is cast to a string one
    (F("dict_str"), {R("dict_str"): pa.scalar("3")}, tk.literal(DICT_STR)),
    (F("dict_str"), {R("dict_str"): pa.DictionaryArray.from_arrays(
        pa.array([0], pa.int32()), pa.array([3], pa.int32()))[0]}, tk.literal(DICT_STR)),
    (F("dict_str"), {R("dict_str"): pa.DictionaryArray.from_arrays(
        pa.array([0], pa.int8()), pa.array(["3"]))[0]}, tk.literal(DICT_STR)),
])
def test_arrow_replace_fields_with_known_values(expr, known, expected):
    expect_replaces_to(expr, known, expected)


def test_a_value_that_cannot_be_cast_names_the_field_and_the_type():
    with pytest.raises(GuaranteeError, match="i32.*int32"):
        tk.replace_fields_with_known_values(bound(F("i32")), {R("i32"): pa.scalar("abc")})


def test_replace_refuses_unbound_input():
    with pytest.raises(UnboundError, match="ReplaceFieldsWithKnownValues called on an unbound"):
        tk.replace_fields_with_known_values(F("i32"), I32_IS_3)


def test_every_pass_takes_the_expression_first_and_says_so():
    with pytest.raises(PassError, match=r"takes the expression first, not dict: "
                                        r"replace_fields_with_known_values\(expr, known=\.\.\.\)"):
        tk.replace_fields_with_known_values(I32_IS_3, bound(F("i32")))


def test_known_values_come_from_the_guarantee_when_not_given():
    after = tk.replace_fields_with_known_values(bound(F("i32")),
                                                guarantee=tk.field("i32") == 3)
    assert after.to_string() == "3"


NESTED = pa.schema([pa.field("a", pa.struct([pa.field("b", pa.int32())]))])


@pytest.mark.parametrize("expr, expected, schema", [
    (F("i32"), F(2), None),
    (call("add", tk.literal(4), F("i32")), call("add", tk.literal(4), F(2)), None),
    (F("a", "b"), F(0, 0), NESTED),
])
def test_arrow_remove_named_refs(expr, expected, schema):
    schema = schema or bound.__defaults__[0]
    out = tk.remove_named_refs(bound(expr, schema))
    assert_same_expr(out, bound(expected, schema))
    assert out.type == bound(expected, schema).type


def test_remove_named_refs_keeps_path_refs_identical_and_refuses_unbound():
    expr = bound(call("add", tk.literal(4), F(2)))
    assert tk.remove_named_refs(expr) is expr
    with pytest.raises(UnboundError, match="RemoveNamedRefs called on unbound expression"):
        tk.remove_named_refs(F("a"))
