"""to_string is Arrow's ToString, character for character; pyarrow is the oracle.

Each expression is also built with pyarrow's own `Expression._call`, `field` and
`scalar`, and the two strings must be identical.
"""

import datetime as dt

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies.untyped import expressions, literals
from toolkit.model.expression import Call, Literal, Parameter, postorder
from toolkit.model.field_ref import FieldPath
from toolkit.support.visible_text import visible_lines

a, b = tk.field("a"), tk.field("b")


def to_arrow(expr):
    """The same tree as a pyarrow.compute.Expression (iteratively)."""
    built = {}
    for node in postorder(expr):
        if isinstance(node, Literal):
            built[id(node)] = pc.scalar(node.value)
        elif isinstance(node, Parameter):
            parts = []
            for leaf in node.ref.leaves():
                impl = leaf.impl
                parts.extend(impl.indices if isinstance(impl, FieldPath) else [impl])
            built[id(node)] = pc.field(*parts)
        else:
            args = [built[id(x)] for x in node.args]
            built[id(node)] = pc.Expression._call(node.name, args, node.options)
    return built[id(expr)]


def same_as_arrow(expr) -> str:
    ours = expr.to_string()
    assert ours == str(to_arrow(expr))
    # str() is the same text with invisible characters spelled out (visible_text)
    assert str(expr) == visible_lines(ours)
    return ours


# -- the examples of Arrow's ToString (docs/semantics.md §1) ---------------------------
@pytest.mark.parametrize("expr,text", [
    (tk.equal(a, 1), "(a == 1)"),
    (tk.not_equal(a, "a"), '(a != "a")'),
    (tk.less(a, 2), "(a < 2)"),
    (tk.less_equal(a, "b"), '(a <= "b")'),
    (tk.greater(a, 3), "(a > 3)"),
    (tk.greater_equal(a, "c"), '(a >= "c")'),
    (tk.and_(a, b), "(a and b)"),
    (tk.or_(a, b), "(a or b)"),
    (Call("and_not_kleene", [a, b]), "(a and_not b)"),
    (tk.project([a, a, 3], ["a", "renamed_a", "three"]), "{a=a, renamed_a=a, three=3}"),
    (Call("add", [tk.literal(3), tk.field("beta")]), "add(3, beta)"),
    (tk.not_(a), "invert(a)"),
    (Call("and", [a, b]), "and(a, b)"),
    (Call("widgetify", []), "widgetify()"),
    (Call("random", [], pc.RandomOptions()), "random({initializer=SystemRandom, seed=0})"),
    (tk.cast(a, pa.int32()),
     ("cast(a, {to_type=int32, allow_int_overflow=false, allow_time_truncate=false, "
      "allow_time_overflow=false, allow_decimal_truncate=false, allow_float_truncate=false, "
      "allow_invalid_utf8=false})")),
    (Call("index_in", [tk.field("beta")], pc.SetLookupOptions(pa.array([1, 2], pa.int32()))),
     "index_in(beta, {value_set=int32:[\n  1,\n  2\n], null_matching_behavior=MATCH})"),
    (Call("round", [tk.literal(3.14)], pc.RoundOptions()),
     "round(3.14, {ndigits=0, round_mode=HALF_TO_EVEN})"),
    (tk.is_null(a), "is_null(a, {nan_is_null=false})"),
    (tk.is_valid(a), "is_valid(a)"),
    (tk.field(0, 1), "FieldPath(0 1)"),
    (tk.field("a", 0), "FieldRef.Nested(FieldRef.Name(a) FieldRef.FieldPath(0))"),
    (tk.field("a", "b"), "FieldRef.Nested(FieldRef.Name(a) FieldRef.Name(b))"),
    (tk.case_when([(a, 1)], else_=2), "case_when({0=a}, 1, 2)"),
    (a + 1 > 3, "(add_checked(a, 1) > 3)"),
])
def test_arrow_examples(expr, text):
    assert same_as_arrow(expr) == text


@pytest.mark.parametrize("value,text", [
    (pa.scalar(None, pa.bool_()), "null[bool]"),
    (pa.scalar(None, pa.int64()), "null[int64]"),
    (pa.scalar('a"\\\t\r\n'), '"a\\"\\\\\\t\\r\\n"'),
    (pa.scalar("x", pa.large_string()), '"x"'),
    (pa.scalar(b"az"), '"617A"'),
    (pa.scalar(b"az", pa.large_binary()), '"617A"'),
    (pa.scalar(3), "3"),
    (pa.scalar(3, pa.int32()), "3"),  # types are invisible: 3, 3L and 3.0f all print 3
    (pa.scalar(3.0, pa.float32()), "3"),
    (pa.scalar(3.14), "3.14"),
    (pa.scalar(1e20), "1e+20"),
    (pa.scalar(1e-7), "1e-7"),
    (pa.scalar(float("nan")), "nan"),
    (pa.scalar(float("-inf")), "-inf"),
    (pa.scalar(dt.datetime(1990, 10, 23, 10, 23, 33), pa.timestamp("ns")),
     "1990-10-23 10:23:33.000000000"),
    (pa.scalar(300, pa.duration("s")), "300"),
    (pa.DictionaryArray.from_arrays(pa.array([0], pa.int32()), pa.array(["3"]))[0], '[\n  "3"\n][0]'),
    (pa.scalar({"i32 + 1": 4}, pa.struct([("i32 + 1", pa.int32())])), "{i32 + 1:int32 = 4}"),
])
def test_literal_formats(value, text):
    assert same_as_arrow(tk.literal(value)) == text


def test_array_literal_prints_its_type():
    assert Literal(pa.array([1, 2], pa.int16())).to_string() == "Array[int16]"


# -- random trees ---------------------------------------------------------------------------
def _value_sets():
    return st.one_of(
        st.lists(st.integers(-5, 5), min_size=1, max_size=4).map(lambda v: pa.array(v, pa.int32())),
        st.lists(st.one_of(st.none(), st.text(max_size=3)), min_size=1, max_size=3).map(
            lambda v: pa.array(v, pa.string())),
    )


def _arrow_only_calls(children):
    """Calls with options the SQL strategy does not make: is_in, cast, round, make_struct."""
    return st.one_of(
        st.tuples(children, _value_sets()).map(
            lambda t: Call("is_in", [t[0]], pc.SetLookupOptions(t[1]))),
        st.tuples(children, st.sampled_from([pa.int8(), pa.float32(), pa.string()])).map(
            lambda t: tk.cast(t[0], t[1])),
        st.tuples(children, st.integers(-3, 3), st.sampled_from(["half_up", "down"])).map(
            lambda t: Call("round", [t[0]], pc.RoundOptions(t[1], t[2]))),
        st.lists(st.tuples(st.text("xyz =,{}", max_size=3), children), min_size=1, max_size=3).map(
            lambda kv: tk.project([v for _, v in kv], [k for k, _ in kv])),
        st.tuples(children, children).map(lambda t: Call("and_not_kleene", list(t))),
    )


@given(expressions())
def test_random_trees_print_as_arrow_does(expr):
    same_as_arrow(expr)


@given(st.recursive(literals() | st.sampled_from([a, b, tk.field("s", "c")]),
                    _arrow_only_calls, max_leaves=8))
def test_random_trees_with_options_print_as_arrow_does(expr):
    same_as_arrow(expr)


@pytest.mark.parametrize("name", ["and_kleene", "equal", "less"])
def test_infix_names_with_other_argument_counts_print_as_calls(name):
    # Arrow prints the first two arguments of any `_kleene`/comparison call, dropping a
    # third and reading past the end with fewer (a crash); every argument is printed here
    assert Call(name, [a, b, tk.literal(1)]).to_string() == f"{name}(a, b, 1)"
    assert Call(name, [a]).to_string() == f"{name}(a)"
    assert Call(name, []).to_string() == f"{name}()"


def test_a_10000_deep_tree_prints():
    e = a
    for _ in range(10_000):
        e = tk.not_(e)
    text = e.to_string()
    assert text == "invert(" * 10_000 + "a" + ")" * 10_000
