"""pyarrow expressions in and out: `tk.from_pyarrow` and `Expression.to_pyarrow`.

The oracle is pyarrow itself: for every expression pyarrow builds, exprscope's
tree prints as pyarrow prints it (Arrow's ToString, options included) and turns
back into an expression pyarrow finds equal.
"""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.errors import PyarrowConversionError

f = pc.field

SCALARS = [
    pa.scalar(1), pa.scalar(-7, pa.int8()), pa.scalar(2**63 - 1), pa.scalar(3, pa.uint64()),
    pa.scalar(1.5), pa.scalar(float("nan")), pa.scalar(-0.0), pa.scalar(float("-inf"), pa.float32()),
    pa.scalar(True), pa.scalar(None), pa.scalar(None, pa.int32()), pa.scalar(None, pa.utf8()),
    pa.scalar("Gentoo"), pa.scalar('quote " back \\ tab \t nl \n'), pa.scalar("ünïcødé ✓"),
    pa.scalar(b"\x00\xffab"), pa.scalar("x", pa.large_utf8()), pa.scalar(b"xy", pa.binary(2)),
    pa.scalar(dt.date(2020, 2, 29)), pa.scalar(dt.datetime(2021, 1, 2, 3, 4, 5), pa.timestamp("ms")),
    pa.scalar(dt.datetime(2021, 1, 2), pa.timestamp("ns", "UTC")), pa.scalar(dt.timedelta(seconds=3)),
    pa.scalar(decimal.Decimal("12.345")), pa.scalar(decimal.Decimal(-1), pa.decimal256(40, 3)),
    pa.scalar([1, None, 3], pa.list_(pa.int16())), pa.scalar({"x": 1, "y": "z"}),
    pa.scalar([("k", 1)], pa.map_(pa.utf8(), pa.int64())),
    pa.array(["c"], pa.dictionary(pa.int8(), pa.utf8()))[0],
]

FIELDS = [f("a"), f("b"), f("bill_length_mm"), f("s", "x"), f("a.b"), f(""), f("spaces in name")]

OPTIONED_CALLS = [
    ("utf8_slice_codeunits", 1, lambda: pc.SliceOptions(1, 3)),
    ("round", 1, lambda: pc.RoundOptions(2, "half_to_even")),
    ("strptime", 1, lambda: pc.StrptimeOptions("%Y-%m-%d", "s")),
    ("struct_field", 1, lambda: pc.StructFieldOptions(["x"])),
    ("match_substring_regex", 1, lambda: pc.MatchSubstringOptions("a.*", ignore_case=True)),
    ("make_struct", 2, lambda: pc.MakeStructOptions(["x", "y"])),
    ("is_null", 1, lambda: pc.NullOptions(nan_is_null=True)),
    ("index_in", 1, lambda: pc.SetLookupOptions(pa.array(["a", None]), skip_nulls=True)),
    ("cast", 1, lambda: pc.CastOptions(pa.decimal128(10, 2), allow_decimal_truncate=True)),
    ("cast", 1, lambda: pc.CastOptions.safe(pa.timestamp("us", "Europe/Paris"))),
    ("binary_join_element_wise", 3, lambda: pc.JoinOptions("replace", "?")),
    ("if_else", 3, lambda: None),
    ("coalesce", 4, lambda: None),
    ("case_when", 3, lambda: None),
]


def _leaves():
    return st.one_of(st.sampled_from(FIELDS), st.sampled_from(SCALARS).map(pc.scalar))


def _extend(children):
    binary = st.tuples(st.sampled_from([
        lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
        lambda x, y: x == y, lambda x, y: x != y, lambda x, y: x < y, lambda x, y: x >= y,
        lambda x, y: x & y, lambda x, y: x | y,
    ]), children, children).map(lambda t: t[0](t[1], t[2]))
    unary = st.tuples(st.sampled_from([
        lambda x: ~x, lambda x: x.is_null(), lambda x: x.is_valid(), lambda x: x.is_nan(),
        lambda x: x.isin([1, 2, None]), lambda x: x.cast(pa.int8()), lambda x: x.cast("utf8", safe=False),
    ]), children).map(lambda t: t[0](t[1]))
    optioned = st.sampled_from(OPTIONED_CALLS).flatmap(
        lambda spec: st.lists(children, min_size=spec[1], max_size=spec[1]).map(
            lambda args: pc.Expression._call(spec[0], args, spec[2]())))
    return st.one_of(binary, unary, optioned)


PYARROW_EXPRESSIONS = st.recursive(_leaves(), _extend, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(PYARROW_EXPRESSIONS)
def test_every_pyarrow_expression_round_trips_and_prints_as_pyarrow_prints_it(x):
    e = tk.from_pyarrow(x)
    assert str(e) == str(x)
    assert e.to_pyarrow().equals(x)


@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: str(s.type))
def test_literals_keep_their_type_and_value(scalar):
    e = tk.from_pyarrow(pc.scalar(scalar))
    assert e.type == scalar.type
    assert e.value.equals(scalar) or (e.value.is_valid and e.value.as_py() != e.value.as_py())


def test_operators_read_as_pyarrow_builds_them():
    e = tk.from_pyarrow((f("a") + 1) / f("b") > 3)
    assert e.args[0].name == "divide_checked"
    assert e.args[0].args[0].name == "add_checked"


def test_nested_field_refs_resolve_against_a_struct_column():
    table = pa.table({"s": pa.array([{"x": 1}, {"x": 5}])})
    e = tk.from_pyarrow(f("s", "x") > 2)
    assert tk.evaluate(e, table).to_pylist() == [False, True]


def test_a_pyarrow_expression_is_accepted_where_an_expression_is():
    table = pa.table({"a": [1, 2, None], "b": [10, 0, 3]})
    x = (f("a") + 1) * f("b")
    assert tk.evaluate(x, table).equals(tk.evaluate(tk.from_pyarrow(x), table))
    assert tk.optimize(x, table.schema).is_bound
    assert str(tk.call("negate", [x])) == f"negate({x})"


def test_evaluation_agrees_with_pyarrows_own_evaluation():
    table = pa.table({"a": [1, 2, None, 4], "s": ["a", "b", "c", None]})
    x = ((f("a") * 2) > 3) | f("s").isin(["a"])
    expected = ds.dataset(table).to_table(columns={"r": x}).column("r")
    assert tk.evaluate(x, table).equals(expected)


def test_deep_expressions_convert_both_ways():
    x = f("a")
    for i in range(5_000):
        x = pc.Expression._call("add", [x, pc.scalar(i)])
    e = tk.from_pyarrow(x)
    assert e.to_pyarrow().equals(x)


def test_index_field_refs_pyarrow_cannot_serialize_give_a_clear_error():
    with pytest.raises(PyarrowConversionError, match="by index"):
        tk.from_pyarrow(f(0) > 1)


def test_from_pyarrow_refuses_other_values():
    with pytest.raises(PyarrowConversionError, match="got str"):
        tk.from_pyarrow("a > 1")


def test_index_paths_and_nested_refs_convert_to_pyarrow():
    assert str(tk.field(1).to_pyarrow()) == "FieldPath(1)"
    assert tk.field("s", "x").to_pyarrow().equals(f("s", "x"))


def test_array_literals_have_no_pyarrow_form():
    with pytest.raises(PyarrowConversionError, match="array literal"):
        tk.Literal(pa.array([1, 2])).to_pyarrow()


def test_every_entry_point_takes_a_pyarrow_expression():
    from toolkit import plan

    table = pa.table({"a": [1, 2, 3], "b": [4, 5, 6]})
    x = f("a") > 1
    bound = tk.bind(x, table.schema)
    assert bound.is_bound and bound.equals(tk.parse("a > 1").bind(table.schema))
    assert tk.optimize(x, table.schema, guarantee=f("a") == 2).equals(tk.literal(True))
    assert tk.simplify_with_guarantee(bound, f("a") == 2).equals(tk.literal(True))
    assert tk.canonicalize(tk.bind(pc.scalar(1) < f("a"), table.schema)).equals(bound)
    assert tk.is_satisfiable(x)
    assert tk.to_text(x) == tk.to_text(tk.from_pyarrow(x))
    assert tk.to_dot(x).source == tk.to_dot(tk.from_pyarrow(x)).source
    out = plan.create_physical_plan(
        plan.scan("t", table).filter(x).project([f("b") * 2], names=["b2"])).collect()
    assert out.column("b2").to_pylist() == [10, 12]
