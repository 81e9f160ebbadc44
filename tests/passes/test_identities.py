"""simplify_identities, the rules beyond Arrow: each one fires where it should, stays away
where it would change a result (nulls, NaN, -0.0, impure calls), and keeps results on data."""

import math

import pyarrow as pa
import pytest

import toolkit as tk
from tests.passes.arrow_cases import assert_same_expr, call, evaluate_full, null_literal
from toolkit.functions import Arity, Function, FunctionKind, Kernel, NullHandling, OutputType
from toolkit.functions.bind import bind_call

SCHEMA = pa.schema([
    pa.field("i", pa.int32()), pa.field("i_req", pa.int32(), nullable=False),
    pa.field("f", pa.float64()), pa.field("f_req", pa.float64(), nullable=False),
    pa.field("b", pa.bool_()), pa.field("b_req", pa.bool_(), nullable=False),
    pa.field("s", pa.utf8()),
])
DATA = pa.table({
    "i": pa.array([1, None, -3, 0, 7], pa.int32()),
    "i_req": pa.array([4, 0, -2, 9, 1], pa.int32()),
    "f": pa.array([1.5, None, float("nan"), -0.0, 2.0]),
    "f_req": pa.array([float("nan"), -0.0, 1.0, float("inf"), 3.5]),
    "b": pa.array([True, None, False, True, None]),
    "b_req": pa.array([True, False, False, True, True]),
    "s": pa.array(["x", None, "y", "", "z"]),
}, schema=SCHEMA)
F = tk.field


def simplified(expr):
    bound = tk.bind(expr, SCHEMA)
    out = tk.simplify_identities(bound)
    # whatever happened, the result on the data is the same, NaN and nulls included
    assert _same(evaluate_full(out, DATA), evaluate_full(bound, DATA)), str(bound)
    return bound, out


def _same(a: pa.Array, b: pa.Array) -> bool:
    if a.type != b.type or len(a) != len(b):
        return False
    for x, y in zip(a.to_pylist(), b.to_pylist()):
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        if x != y or (isinstance(x, float) and math.copysign(1, x) != math.copysign(1, y)):
            return False
    return True


def expect(expr, expected):
    _bound, out = simplified(expr)
    assert_same_expr(out, tk.bind(expected, SCHEMA))


def expect_unchanged(expr):
    bound, out = simplified(expr)
    assert out is bound


def rules_fired(expr):
    fired = []
    tk.simplify_identities(tk.bind(expr, SCHEMA),
                           observer=lambda name, before, after, changed, rewrites:
                           fired.extend(r.rule for r in rewrites))
    return fired


def test_double_negation_keeps_nulls():
    expect(tk.not_(tk.not_(F("b"))), F("b"))
    expect(tk.not_(tk.not_(tk.not_(F("b")))), tk.not_(F("b")))
    assert rules_fired(tk.not_(tk.not_(F("b")))) == ["identities/double-negation"]


@pytest.mark.parametrize("build", [tk.and_, tk.or_])
def test_repeated_operands_of_and_or_chains_are_dropped(build):
    expect(build([F("b"), F("b_req"), F("b")]), build(F("b"), F("b_req")))
    expect(build([F("b"), tk.not_(F("b")), F("b_req"), tk.not_(F("b"))]),
           build([F("b"), tk.not_(F("b")), F("b_req")]))
    expect_unchanged(build(F("b"), tk.not_(F("b"))))  # b and not b is null where b is null


def test_plain_and_or_with_a_repeat_are_dropped_too():
    expect(call("and", F("b"), F("b")), F("b"))
    expect(call("or", call("or", F("b"), F("b_req")), F("b")), call("or", F("b"), F("b_req")))


def _impure_bool_call() -> tk.Call:
    """A bound call of an impure function (the registry has none; Arrow's `random` is one)."""
    kernel = Kernel("coin", (), OutputType("bool", lambda types, options: pa.bool_()))
    coin = Function("coin", FunctionKind.SCALAR, Arity(0, 0), [kernel], NullHandling.COMPUTED,
                    "a coin toss per row", pure=False)
    return tk.Call("coin", [], function=coin, kernel=kernel, call_type=pa.bool_())


def test_impure_operands_are_not_merged():
    toss = _impure_bool_call()
    expr = bind_call(tk.Call("and_kleene", [bind_call(tk.Call("and_kleene", [toss, F("b_req").bind(SCHEMA)])), toss]))
    assert tk.simplify_identities(expr) is expr
    pure = bind_call(tk.Call("and_kleene", [bind_call(tk.Call("and_kleene", [
        tk.bind(F("b"), SCHEMA), toss])), tk.bind(F("b"), SCHEMA)]))
    assert len(tk.simplify_identities(pure).args) == 2
    assert tk.simplify_identities(pure) is not pure


@pytest.mark.parametrize("expr, value", [
    (tk.is_null(F("i_req")), False), (tk.is_valid(F("i_req")), True),
    (call("true_unless_null", F("b_req")), True), (tk.is_null(F("f_req")), False),
])
def test_validity_of_non_nullable_fields_is_known(expr, value):
    expect(expr, tk.literal(value))
    assert rules_fired(expr) == ["identities/non-nullable-field"]


@pytest.mark.parametrize("expr", [
    tk.is_null(F("i")), tk.is_valid(F("i")),
    tk.is_null(F("f_req"), nan_is_null=True),  # NaN counts as null there
])
def test_validity_is_left_alone_where_nulls_or_nans_are_possible(expr):
    expect_unchanged(expr)


@pytest.mark.parametrize("expr, value", [
    (tk.equal(F("i_req"), F("i_req")), True), (tk.less_equal(F("i_req"), F("i_req")), True),
    (tk.greater_equal(F("i_req"), F("i_req")), True), (tk.not_equal(F("i_req"), F("i_req")), False),
    (tk.less(F("i_req"), F("i_req")), False), (tk.greater(F("i_req"), F("i_req")), False),
    (tk.less(F("f_req"), F("f_req")), False), (tk.greater(F("f_req"), F("f_req")), False),
])
def test_a_non_null_field_compared_with_itself(expr, value):
    expect(expr, tk.literal(value))


@pytest.mark.parametrize("expr", [
    tk.equal(F("i"), F("i")),  # null where i is null
    tk.equal(F("f_req"), F("f_req")),  # NaN == NaN is false
    tk.not_equal(F("f_req"), F("f_req")),  # NaN != NaN is true
    tk.less_equal(F("f_req"), F("f_req")),
    tk.equal(F("i_req"), F("i")),
])
def test_self_comparisons_that_nulls_or_nan_make_data_dependent_stay(expr):
    expect_unchanged(expr)


def i32(n):
    return tk.literal(pa.scalar(n, pa.int32()))


@pytest.mark.parametrize("expr, expected, rule", [
    (F("i") * i32(1), F("i"), "identities/multiply-1"),
    (i32(1) * F("i"), F("i"), "identities/multiply-1"),
    (F("i") + i32(0), F("i"), "identities/add-0"),
    (i32(0) + F("i"), F("i"), "identities/add-0"),
    (F("i") - i32(0), F("i"), "identities/subtract-0"),
    (call("divide", F("i"), i32(1)), F("i"), "identities/divide-1"),
    (call("add_checked", F("i"), i32(0)), F("i"), "identities/add-0"),
])
def test_exact_integer_identities(expr, expected, rule):
    expect(expr, expected)
    assert rules_fired(expr) == [rule]


@pytest.mark.parametrize("expr", [
    F("f") + tk.literal(0.0),  # -0.0 + 0.0 is +0.0
    F("f") * tk.literal(1.0),
    i32(0) - F("i"),  # not an identity
    F("i") * i32(0),  # null where i is null
])
def test_no_identity_where_it_is_not_exact(expr):
    expect_unchanged(expr)


def test_if_else_with_a_constant_condition():
    expect(tk.if_else(tk.literal(True), F("i"), F("i_req")), F("i"))
    expect(tk.if_else(tk.literal(False), F("i"), F("i_req")), F("i_req"))
    expect(tk.if_else(null_literal(pa.bool_()), F("i"), F("i_req")), null_literal(pa.int32()))
    expect_unchanged(tk.if_else(F("b"), F("i"), F("i_req")))


def test_case_when_drops_cases_that_can_never_be_taken():
    never = tk.case_when([(tk.literal(False), F("i")), (F("b"), F("i_req"))], else_=i32(5))
    expect(never, tk.case_when([(F("b"), F("i_req"))], else_=i32(5)))
    null_cond = tk.case_when([(null_literal(pa.bool_()), F("i")), (F("b"), F("i_req"))])
    expect(null_cond, tk.case_when([(F("b"), F("i_req"))]))


def test_case_when_with_a_true_condition_stops_there():
    first = tk.case_when([(tk.literal(True), F("i")), (F("b"), F("i_req"))], else_=i32(5))
    expect(first, F("i"))
    later = tk.case_when([(F("b"), F("i_req")), (tk.literal(True), F("i")), (F("b_req"), i32(3))])
    _bound, out = simplified(later)
    assert out.name == "case_when" and len(out.args) == 3  # one case, then the else
    assert_same_expr(out.args[2], tk.bind(F("i"), SCHEMA))


def test_case_when_with_every_condition_false_is_its_else_or_null():
    expect(tk.case_when([(tk.literal(False), F("i"))], else_=F("i_req")), F("i_req"))
    expect(tk.case_when([(tk.literal(False), F("i"))]), null_literal(pa.int32()))


def test_coalesce_stops_at_the_first_argument_that_is_never_null():
    expect(tk.coalesce(F("i"), F("i_req"), i32(3)), tk.coalesce(F("i"), F("i_req")))
    expect(tk.coalesce(F("i"), i32(3), F("i_req")), tk.coalesce(F("i"), i32(3)))
    expect(tk.coalesce(F("i_req"), F("i")), F("i_req"))
    expect(tk.coalesce(null_literal(pa.int32()), F("i"), F("i_req")), tk.coalesce(F("i"), F("i_req")))
    expect_unchanged(tk.coalesce(F("i"), F("s").cast(pa.int32())))
    assert rules_fired(tk.coalesce(F("i"), F("i_req"), i32(3))) == ["identities/coalesce-truncate"]


def test_rules_chain_at_one_node_and_each_is_reported():
    expr = tk.coalesce(null_literal(pa.bool_()), tk.not_(tk.not_(F("b_req"))))
    assert rules_fired(expr) == ["identities/double-negation", "identities/coalesce-drop-null"]
    expect(expr, F("b_req"))


def test_fold_keeps_x_and_x_when_x_is_impure():
    toss = _impure_bool_call()
    expr = bind_call(tk.Call("and_kleene", [toss, toss]))
    assert tk.fold_constants(expr) is expr
    assert tk.optimize(expr) is expr
