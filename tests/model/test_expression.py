"""The expression model: immutable nodes, operators that build calls, structural equality."""

import math
import operator
import pickle

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given

import toolkit as tk
from tests.strategies.untyped import expressions
from toolkit.model.expression import Call, Parameter

a, b = tk.field("a"), tk.field("b")
SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.float64())])


# -- immutability ---------------------------------------------------------------------
@pytest.mark.parametrize("node,attr", [
    (tk.literal(1), "value"), (a, "ref"), (a, "field_type"), (a + 1, "name"),
    (a + 1, "options"), (a + 1, "_args"), (a + 1, "kernel"), (a + 1, "_hash"),
])
def test_nodes_cannot_be_changed(node, attr):
    before = node.to_string()
    with pytest.raises(AttributeError, match="immutable"):
        setattr(node, attr, None)
    with pytest.raises(AttributeError):
        delattr(node, attr)
    assert node.to_string() == before


def test_field_refs_cannot_be_changed():
    ref = tk.FieldRef("a")
    with pytest.raises(AttributeError, match="immutable"):
        ref.impl = "b"
    with pytest.raises(AttributeError, match="immutable"):
        tk.FieldPath([1]).indices = (2,)


def test_with_args_returns_a_new_call_and_leaves_the_old_one():
    call = a + 1
    new = call.with_args([b, tk.literal(2)])
    assert new is not call
    assert call.to_string() == "add_checked(a, 1)" and new.to_string() == "add_checked(b, 2)"
    assert isinstance(call.args, tuple)


def test_pickling_rebuilds_equal_nodes_with_the_same_hash():
    e = tk.and_(a + 1 > b, tk.is_valid(tk.field("s", "t")))
    back = pickle.loads(pickle.dumps(e))
    assert back.equals(e) and hash(back) == hash(e)


# -- operators build calls ----------------------------------------------------------------
@pytest.mark.parametrize("op,name", [
    (operator.eq, "equal"), (operator.ne, "not_equal"), (operator.lt, "less"),
    (operator.le, "less_equal"), (operator.gt, "greater"), (operator.ge, "greater_equal"),
    (operator.add, "add_checked"), (operator.sub, "subtract_checked"),
    (operator.mul, "multiply_checked"), (operator.truediv, "divide_checked"),
    (operator.pow, "power_checked"), (operator.and_, "and_kleene"),
    (operator.or_, "or_kleene"), (operator.xor, "xor"),
])
def test_binary_operators_build_the_named_call(op, name):
    """Arithmetic operators build the checked kernels, as pyarrow's operators do."""
    e = op(a, b)
    assert isinstance(e, Call) and e.name == name
    assert e.args[0].equals(a) and e.args[1].equals(b)
    with_constant = op(a, 3)
    assert with_constant.args[1].equals(tk.literal(3))


@pytest.mark.parametrize("op,name", [
    (operator.add, "add_checked"), (operator.sub, "subtract_checked"),
    (operator.mul, "multiply_checked"), (operator.truediv, "divide_checked"),
    (operator.and_, "and_kleene"), (operator.or_, "or_kleene"),
])
def test_reflected_operators_keep_the_order(op, name):
    e = op(3, a)
    assert e.name == name and e.args[0].equals(tk.literal(3)) and e.args[1].equals(a)


def test_reflected_comparison_flips_as_python_does():
    e = 3 < a  # Python asks a.__gt__(3)
    assert e.equals(Call("greater", [a, tk.literal(3)]))


def test_unary_operators():
    assert (~a).equals(Call("invert", [a]))
    assert (-a).equals(Call("negate_checked", [a]))
    assert abs(a).equals(Call("abs_checked", [a]))
    assert (a + 1 > 3).to_string() == "(add_checked(a, 1) > 3)"


def test_operators_build_what_pyarrows_operators_build():
    import pyarrow.compute as pc

    x, y = pc.field("a"), pc.field("b")
    for ours, theirs in [(a + b, x + y), (a - b, x - y), (a * b, x * y), (a / b, x / y),
                         (a + 1 > 3, x + 1 > 3)]:
        assert ours.to_pyarrow().equals(theirs) and str(ours) == str(theirs)
    big = pa.table({"a": pa.array([2 ** 62], pa.int64()), "b": pa.array([4], pa.int64())})
    with pytest.raises(tk.KernelError, match="overflow"):
        tk.evaluate(a * b, big)  # raises, as pyarrow's `pc.field("a") * pc.field("b")` does


def test_bool_refuses_and_points_at_equals():
    with pytest.raises(TypeError, match=r"\.equals\("):
        bool(a == b)
    with pytest.raises(TypeError, match="equals"):
        if a:
            pass
    with pytest.raises(TypeError):
        a in [b]  # noqa: B015 - list membership asks bool(a == b)


# -- equality and hash -------------------------------------------------------------------
def test_equality_is_structural():
    assert (a + 1).equals(tk.field("a") + tk.literal(1))
    assert not (a + 1).equals(a + 2)
    assert not (a + 1).equals(Call("subtract", [a, tk.literal(1)]))
    assert not (a + 1).equals("add_checked(a, 1)")
    assert not tk.literal(1).equals(a)


def test_equality_compares_argument_counts_unlike_arrow():
    assert not Call("add", [a]).equals(Call("add", [a, b]))
    assert not Call("add", [a, b]).equals(Call("add", [a]))
    # Arrow's quirk, for the record: it ignores the count
    arrow_short = pc.Expression._call("add", [pc.field("a")])
    arrow_long = pc.Expression._call("add", [pc.field("a"), pc.field("b")])
    assert arrow_short.equals(arrow_long)


def test_options_take_part_in_equality_but_not_in_the_hash():
    x = tk.is_null(a, nan_is_null=False)
    y = tk.is_null(a, nan_is_null=True)
    assert not x.equals(y)
    assert hash(x) == hash(y)  # as Arrow: options are not hashed
    assert not Call("is_null", [a]).equals(x)  # no options vs options


def test_literal_types_must_match():
    assert not tk.literal(1).equals(tk.literal(1, pa.int32()))
    assert tk.literal(1, pa.int32()).equals(tk.literal(1, pa.int32()))


@pytest.mark.parametrize("typ", [pa.float64(), pa.float32(), pa.float16()])
def test_nan_literals_are_equal(typ):
    nan = tk.literal(pa.scalar(float("nan"), typ) if typ != pa.float16()
                     else pa.array([float("nan")], typ)[0])
    other = tk.literal(pa.array([math.nan], typ)[0])
    assert nan.equals(other) and hash(nan) == hash(other)
    assert not nan.equals(tk.literal(pa.array([1.0], typ)[0]))


def test_typed_nulls():
    n32 = tk.literal(None, pa.int32())
    assert n32.equals(tk.literal(None, pa.int32()))
    assert hash(n32) == hash(tk.literal(None, pa.int32()))
    assert not n32.equals(tk.literal(None, pa.int64()))
    assert not n32.equals(tk.literal(None))  # the untyped null has type null
    assert n32.type == pa.int32() and tk.literal(None).type == pa.null()
    assert n32.is_null_literal and not tk.literal(0, pa.int32()).is_null_literal
    assert n32.to_string() == "null[int32]"


def test_arrows_hash_example_has_eight_distinct_members():
    members = [a, b, tk.literal(1), tk.literal(3), tk.literal(None, pa.int32()),
               tk.literal(None, pa.float32()), Call("add", []), Call("widgetify", [])]
    for i, x in enumerate(members):
        for j, y in enumerate(members):
            assert x.equals(y) == (i == j)
    assert len({hash(m) for m in members}) == 8


@given(expressions(), expressions())
def test_hash_agrees_with_equals(x, y):
    copy = tk.parse(x.to_sql())  # rebuilt from scratch: no shared objects
    assert copy.equals(x) and hash(copy) == hash(x)
    if x.equals(y):
        assert hash(x) == hash(y)
    assert x.equals(y) == y.equals(x)


# -- bound and unbound ---------------------------------------------------------------------
def test_bound_and_unbound():
    e = a + 1
    bound = e.bind(SCHEMA)
    assert not e.is_bound and e.type is None
    assert bound.is_bound and bound.type == pa.int64()
    assert bound.args[0].type == pa.int64()
    assert not bound.equals(e)  # a bound call has a kernel, the unbound one has none
    assert bound.args[0].equals(e.args[0])  # fields compare by ref only, as in Arrow
    assert bound.equals(e.bind(SCHEMA)) and hash(bound) == hash(e.bind(SCHEMA))
    assert tk.literal(1).is_bound  # literals are always bound
    assert not Parameter(tk.FieldRef("a")).is_bound


def test_is_bound_sees_an_unbound_node_deep_below_a_bound_call():
    """is_bound is remembered per call: a bound call over an unbound argument is not bound."""
    bound = (a + 1).bind(SCHEMA)
    grafted = bound.with_args([Parameter(tk.FieldRef("a")), bound.args[1]])
    assert grafted.kernel is not None and not grafted.is_bound
    deep = bound
    for _ in range(3):
        deep = deep.with_args([deep, deep.args[1]])
    assert deep.is_bound
    assert not deep.with_args([grafted, deep.args[1]]).is_bound


def test_kinds_and_type():
    lit = tk.literal("x")
    assert lit.is_literal and not lit.is_field and not lit.is_call and lit.type == pa.string()
    assert a.is_field and a.type is None and a.args == ()
    assert (a + 1).is_call and (a + 1).args[1].equals(tk.literal(1))


def test_repr_shortens_long_expressions():
    e = a
    for _ in range(100):
        e = e + 1
    assert repr(e).startswith("<toolkit.Expression add_checked(") and repr(e).endswith("...>")
    assert len(repr(e)) < 230


def test_deep_trees_hash_compare_and_print_without_recursion():
    x, y = a, a
    for _ in range(10_000):
        x, y = x + 1, y + 1
    assert x.equals(y) and hash(x) == hash(y)
    assert x.to_string().startswith("add_checked(add_checked(add_checked(")
    assert not x.equals(y.with_args([y.args[0], tk.literal(2)]))
