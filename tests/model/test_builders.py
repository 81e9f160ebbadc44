"""The builders: Arrow's helper shapes (§1), and that what they build runs on real data."""

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.model.expression import Call, Literal
from toolkit.model.options import field_names

a, b, c = tk.field("a"), tk.field("b"), tk.field("c")
TABLE = pa.table({"a": [1, -2, None, 5], "b": [1.0, float("nan"), None, 2.0],
                  "f": [True, None, False, True], "g": [False, True, None, True]})


def evaluated(expr):
    return tk.evaluate(expr, TABLE).to_pylist()


# -- and_ / or_ / not_ -----------------------------------------------------------------------
def test_and_or_of_two_build_kleene_calls():
    assert tk.and_(a, b).equals(Call("and_kleene", [a, b]))
    assert tk.or_(a, b).equals(Call("or_kleene", [a, b]))
    assert tk.not_(a).equals(Call("invert", [a]))


@given(st.integers(1, 6))
def test_the_list_forms_fold_left(n):
    operands = [tk.field(f"x{i}") for i in range(n)]
    for builder, name in ((tk.and_, "and_kleene"), (tk.or_, "or_kleene")):
        folded = builder(operands)
        expected = operands[0]
        for operand in operands[1:]:
            expected = Call(name, [expected, operand])
        assert folded.equals(expected)
        if n > 1:
            assert builder(*operands).equals(folded)


def test_the_empty_forms_are_true_and_false():
    assert tk.and_([]).equals(tk.literal(True))
    assert tk.or_([]).equals(tk.literal(False))


def test_kleene_logic_on_real_rows():
    f, g = tk.field("f"), tk.field("g")
    assert evaluated(tk.and_(f, g)) == [False, None, False, True]
    assert evaluated(tk.or_(f, g)) == [True, True, None, True]
    assert evaluated(tk.not_(f)) == [False, None, True, False]


# -- comparisons, is_null, is_valid ---------------------------------------------------------
@pytest.mark.parametrize("builder,name", [
    (tk.equal, "equal"), (tk.not_equal, "not_equal"), (tk.less, "less"),
    (tk.less_equal, "less_equal"), (tk.greater, "greater"), (tk.greater_equal, "greater_equal"),
])
def test_comparison_helpers(builder, name):
    assert builder(a, 1).equals(Call(name, [a, tk.literal(1)]))


def test_is_null_always_carries_null_options():
    plain = tk.is_null(a)
    assert plain.options == pc.NullOptions(nan_is_null=False)
    assert tk.is_null(a, nan_is_null=True).options == pc.NullOptions(nan_is_null=True)
    assert tk.is_valid(a).options is None
    assert a.is_null().equals(plain) and a.is_valid().equals(tk.is_valid(a))


def test_nan_is_null_changes_the_result():
    assert evaluated(tk.is_null(tk.field("b"))) == [False, False, True, False]
    assert evaluated(tk.is_null(tk.field("b"), nan_is_null=True)) == [False, True, True, False]
    assert evaluated(tk.is_valid(a)) == [True, True, False, True]


# -- literal, call, cast -----------------------------------------------------------------------
def test_literal_forms():
    assert tk.literal(3).type == pa.int64()
    assert tk.literal(None, pa.int32()).equals(Literal(pa.scalar(None, pa.int32())))
    assert tk.literal(3, "int8").type == pa.int8()
    assert tk.literal(pa.scalar(3), pa.int16()).type == pa.int16()  # a scalar is cast
    assert tk.literal(pa.scalar({"x": 1})).type == pa.struct([("x", pa.int64())])
    lit = tk.literal(1)
    assert tk.literal(lit) is lit


def test_call_converts_arguments():
    e = tk.call("add_checked", [a, 1])
    assert e.equals(a + 1)
    with_options = tk.call("round", [a], pc.RoundOptions(2))
    assert with_options.options == pc.RoundOptions(2)


def test_cast_is_safe_by_default():
    assert tk.cast(a, pa.int8()).options == pc.CastOptions.safe(pa.int8())
    assert tk.cast(a, "int8", safe=False).options == pc.CastOptions.unsafe(pa.int8())


def test_a_safe_cast_refuses_to_overflow():
    table = pa.table({"a": [1, 300]})
    with pytest.raises(tk.ExprscopeError):
        tk.evaluate(tk.cast(a, pa.int8()), table)
    assert tk.evaluate(tk.cast(a, pa.int8(), safe=False), table).to_pylist() == [1, 44]


# -- if_else, case_when, coalesce ---------------------------------------------------------
def test_if_else_shape_and_rows():
    e = tk.if_else(a > 0, a, 0)
    assert e.equals(Call("if_else", [a > 0, a, tk.literal(0)]))
    assert evaluated(e) == [1, 0, None, 5]


def test_case_when_has_arrows_shape():
    e = tk.case_when([(a > 2, "big"), (a > 0, "small")], else_="neg")
    assert e.name == "case_when" and len(e.args) == 4
    conditions = e.args[0]
    assert conditions.name == "make_struct"
    assert field_names(conditions.options) == ["0", "1"]
    assert conditions.args[0].equals(a > 2) and conditions.args[1].equals(a > 0)
    assert e.args[1].equals(tk.literal("big")) and e.args[3].equals(tk.literal("neg"))
    assert e.to_string() == 'case_when({0=(a > 2), 1=(a > 0)}, "big", "small", "neg")'


def test_case_when_on_real_rows():
    e = tk.case_when([(a > 2, "big"), (a > 0, "small")], else_="neg")
    assert evaluated(e) == ["small", "neg", "neg", "big"]  # a null condition is not true
    no_else = tk.case_when([(a > 2, "big")])
    assert len(no_else.args) == 2
    assert evaluated(no_else) == [None, None, None, "big"]


def test_coalesce():
    e = tk.coalesce(a, 0)
    assert e.equals(Call("coalesce", [a, tk.literal(0)]))
    assert tk.coalesce([a, b, c]).equals(Call("coalesce", [a, b, c]))
    assert evaluated(e) == [1, -2, 0, 5]


@pytest.mark.parametrize("build,words", [
    (lambda: tk.case_when([]), "at least one"),
    (lambda: tk.coalesce(), "at least one"),
    (lambda: tk.project([a, b], ["x"]), "2 values but 1 names"),
])
def test_bad_arguments_raise_a_clear_error(build, words):
    with pytest.raises(tk.BuildError, match=words) as info:
        build()
    assert isinstance(info.value, tk.ExprscopeError) and isinstance(info.value, ValueError)


# -- project ---------------------------------------------------------------------------------
def test_project_is_make_struct_with_the_names():
    e = tk.project([a, tk.field("b") * 2], ["x", "y"])
    assert e.name == "make_struct" and e.options == pc.MakeStructOptions(["x", "y"])
    assert e.to_string() == "{x=a, y=multiply_checked(b, 2)}"
    rows = evaluated(e)
    assert rows[0] == {"x": 1, "y": 2.0} and rows[2] == {"x": None, "y": None}


def test_field_needs_a_part():
    with pytest.raises(tk.BuildError):
        tk.field()
    assert tk.field(tk.FieldRef("a", "b")).ref == tk.FieldRef("a", "b")
