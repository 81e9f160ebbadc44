"""optimize: binds, runs the default passes to a fixed point, takes names or functions."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.passes import PassError, UnknownPassError

SCHEMA = pa.schema([pa.field("a", pa.int32()), pa.field("b", pa.bool_()),
                    pa.field("r", pa.int32(), nullable=False)])
F = tk.field


def test_default_passes_are_exported_in_order():
    assert tk.DEFAULT_PASSES == ("simplify_with_guarantee", "canonicalize", "fold_constants",
                                 "simplify_identities")


def test_optimize_binds_and_reaches_a_fixed_point():
    one, two = tk.literal(1, pa.int32()), tk.literal(2, pa.int32())
    expr = tk.and_(tk.literal(True), tk.less(one + two, F("a")))
    out = tk.optimize(expr, SCHEMA)
    assert out.is_bound
    assert str(out) == "(a > 3)"
    assert tk.optimize(out) is out  # already bound and optimal: the very same object


def test_a_guarantee_is_used_when_given():
    expr = tk.and_(tk.greater(F("a"), tk.literal(5)), F("b"))
    assert str(tk.optimize(expr, SCHEMA, guarantee=tk.greater(F("a"), tk.literal(10)))) == "b"
    assert str(tk.optimize(expr, SCHEMA)) == "((a > 5) and b)"


def test_one_pass_by_name_or_by_function():
    expr = tk.less(tk.literal(1), F("a") + tk.literal(0))
    assert str(tk.optimize(expr, SCHEMA, passes="canonicalize")) == "(add_checked(0, a) > 1)"
    assert str(tk.optimize(expr, SCHEMA, passes=[tk.simplify_identities])) == "(1 < a)"
    assert str(tk.optimize(expr, SCHEMA, passes=["remove_named_refs"])) == "(1 < add_checked(FieldPath(0), 0))"


def test_a_user_function_runs_as_a_pass_and_is_reported():
    seen = []

    def drop_everything(expr):
        return tk.literal(False)

    out = tk.optimize(F("b"), SCHEMA, passes=[drop_everything],
                      observer=lambda name, *rest: seen.append(name))
    assert str(out) == "false"
    assert seen[0] == "drop_everything"


def test_unknown_pass_names_list_the_known_ones():
    with pytest.raises(UnknownPassError) as info:
        tk.optimize(F("a"), SCHEMA, passes=["canonicalise"])
    message = str(info.value)
    assert "canonicalise" in message and "canonicalize" in message and "fold_constants" in message


def test_guarantee_passes_need_a_guarantee_and_unbound_input_needs_a_schema():
    with pytest.raises(PassError, match="needs a guarantee"):
        tk.optimize(F("a"), SCHEMA, passes=["simplify_with_guarantee"])
    with pytest.raises(PassError, match="needs a schema"):
        tk.optimize(F("a") + 1)


def test_replace_fields_by_name_uses_the_guarantees_known_values():
    out = tk.optimize(F("a") + F("r"), SCHEMA, guarantee=tk.equal(F("a"), tk.literal(2)),
                      passes=["replace_fields_with_known_values", "fold_constants"])
    assert str(out) == "add_checked(2, r)"


def test_rounds_are_bounded():
    calls = []

    def flip(expr):
        calls.append(1)
        return tk.not_(expr) if not (expr.is_call and expr.name == "invert") else expr.args[0]

    tk.optimize(F("b"), SCHEMA, passes=[flip], max_rounds=5)
    assert len(calls) == 5
