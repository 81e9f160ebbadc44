"""bind(): Arrow's dispatch cases, implicit casts, errors, deep trees, and Acero as the reference."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from functions.samples import acero_type_and_values, eager
from toolkit.errors import ArityError, BindError, FieldRefError, NoKernelError, UnknownFunctionError
from toolkit.functions.bind import bind_call
from toolkit.model.expression import Call, postorder

TABLE = pa.table({
    "i8": pa.array([1, -2, None, 100], pa.int8()),
    "i32": pa.array([1, -2, None, 70000], pa.int32()),
    "i64": pa.array([1, -2, None, 2**40], pa.int64()),
    "u8": pa.array([1, 2, None, 200], pa.uint8()),
    "u64": pa.array([1, 2, None, 3], pa.uint64()),
    "f32": pa.array([1.5, -2.0, None, 0.25], pa.float32()),
    "f64": pa.array([1.5, -2.0, None, 1e20], pa.float64()),
    "dec": pa.array([Decimal("1.25"), Decimal("-2.50"), None, Decimal("3.00")], pa.decimal128(7, 2)),
    "s": pa.array(["a", "bc", None, "a"], pa.utf8()),
    "ls": pa.array(["a", "x", None, "bc"], pa.large_utf8()),
    "ds": pa.array(["a", "bc", None, "a"]).dictionary_encode(),
    "b": pa.array([True, False, None, True]),
    "ts_ms": pa.array([0, 1_500, None, 86_400_000], pa.timestamp("ms")),
    "ts_ns": pa.array([0, 1_500_000_000, None, 10**15], pa.timestamp("ns")),
    "d32": pa.array([dt.date(2024, 1, 1), dt.date(1970, 1, 2), None, dt.date(2000, 2, 29)]),
    "n": pa.nulls(4),
    "st": pa.array([{"x": 1, "y": "a"}, {"x": 2, "y": None}, None, {"x": None, "y": "c"}]),
})
SCHEMA = TABLE.schema
F = tk.field


def _cast_target(expr):
    assert expr.is_call and expr.name == "cast"
    return expr.type


# -- the dispatch cases of Arrow ---------------------------------------------------------------

def test_exact_match_inserts_no_cast():
    b = (F("i32") + F("i32")).bind(SCHEMA)
    assert b.type == pa.int32()
    assert all(a.is_field for a in b.args)
    assert b.kernel is tk.get_function("add_checked").dispatch_exact([pa.int32(), pa.int32()])


def test_coalesce_of_timestamp_units_converts_where_acero_copies_raw_values():
    expr = tk.coalesce(tk.literal(None, pa.timestamp("ms")), F("ts_ns"))
    b = expr.bind(SCHEMA)
    assert b.type == pa.timestamp("ns")
    assert eager(b, TABLE).to_pylist()[:2] == TABLE["ts_ns"].to_pylist()[:2]
    assert _acero_quirk(expr)


def test_if_else_of_two_decimals_casts_to_one_where_acero_fails_at_run_time():
    expr = tk.if_else(F("b"), F("dec"), tk.literal(pa.scalar(Decimal("1.5"),
                                                             pa.decimal128(3, 1))))
    b = expr.bind(SCHEMA)
    assert b.type == SCHEMA.field("dec").type
    expected = [d if c else (Decimal("1.5") if c is False else None)
                for c, d in zip(TABLE["b"].to_pylist(), TABLE["dec"].to_pylist())]
    assert eager(b, TABLE).to_pylist() == expected
    with pytest.raises(pa.ArrowTypeError, match="All types must be compatible"):
        acero_type_and_values(expr, TABLE)
    assert _acero_quirk(expr)


def test_int32_field_plus_int64_literal_stays_int32():
    b = (F("i32") + 1).bind(SCHEMA)  # 1 is an int64 literal, narrowed to int8, then int32
    assert b.type == pa.int32()
    assert b.args[0].is_field
    assert b.args[1].is_literal and b.args[1].type == pa.int32() and b.args[1].value.as_py() == 1
    assert acero_type_and_values(F("i32") + 1, TABLE)[0] == pa.int32()


def test_big_literal_widens_the_field():
    b = (F("i32") + 2**40).bind(SCHEMA)
    assert b.type == pa.int64()
    assert _cast_target(b.args[0]) == pa.int64()


def test_int8_field_against_uint8_field_is_int16():
    b = (F("i8") + F("u8")).bind(SCHEMA)
    assert b.type == pa.int16()
    assert [_cast_target(a) for a in b.args] == [pa.int16(), pa.int16()]
    assert eager(b, TABLE).to_pylist() == [2, 0, None, 300]


def test_int64_against_uint64_is_int64_as_arrow_caps_at_64_bits():
    assert (F("i64") + F("u64")).bind(SCHEMA).type == pa.int64()


def test_float_against_int_is_float64():
    b = (F("f64") > F("i32")).bind(SCHEMA)
    assert _cast_target(b.args[1]) == pa.float64()
    b = (F("f64") + 3).bind(SCHEMA)
    assert b.type == pa.float64() and b.args[1].type == pa.float64()


def test_int_field_and_fractional_literal_uses_the_narrowed_float():
    # 1.5 is exactly a float32, so Arrow computes int32 + 1.5 in float32
    b = (F("i32") + 1.5).bind(SCHEMA)
    assert b.type == pa.float32()
    assert acero_type_and_values(F("i32") + 1.5, TABLE)[0] == pa.float32()
    assert (F("i32") + 0.1).bind(SCHEMA).type == pa.float64()


def test_decimal_with_integer_and_decimal_promotion():
    b = (F("dec") + F("i32")).bind(SCHEMA)
    assert b.type == pa.decimal128(13, 2)  # int32 has 10 digits, scale aligned to 2
    assert _cast_target(b.args[1]) == pa.decimal128(12, 2)  # Arrow's kAdd: scaled up to 2 at binding
    assert eager(b, TABLE).to_pylist()[:2] == [Decimal("2.25"), Decimal("-4.50")]
    assert (F("dec") * F("dec")).bind(SCHEMA).type == pa.decimal128(15, 4)
    assert (F("dec") / F("dec")).bind(SCHEMA).type == pa.decimal128(15, 8)
    assert (F("dec") + F("f32")).bind(SCHEMA).type == pa.float64()
    for expr in (F("dec") + F("i32"), F("dec") / F("dec"), F("dec") > F("i8")):
        assert expr.bind(SCHEMA).type == acero_type_and_values(expr, TABLE)[0]
    # a small integer literal joins as the decimal of its narrowed type: 2 -> decimal(3, 0)
    # (Acero casts the int64 literal itself and fails: "precision ... at least 19")
    b = (F("dec") * 2).bind(SCHEMA)
    assert b.type == pa.decimal128(11, 2) and b.args[1].type == pa.decimal128(3, 0)
    assert eager(b, TABLE).to_pylist() == [Decimal("2.50"), Decimal("-5.00"), None, Decimal("6.00")]


def test_timestamp_units_take_the_finest():
    b = (F("ts_ms") < F("ts_ns")).bind(SCHEMA)
    assert _cast_target(b.args[0]) == pa.timestamp("ns")
    # a ns literal of a whole second narrows to seconds, so the ms field needs no cast
    lit = tk.literal(pa.scalar(2_000_000_000, pa.timestamp("ns")))
    b = (F("ts_ms") > lit).bind(SCHEMA)
    assert b.args[0].is_field and b.args[1].type == pa.timestamp("ms")
    assert eager(b, TABLE).to_pylist() == [False, False, None, True]


def test_timestamp_and_date_arithmetic():
    assert (F("ts_ms") + tk.literal(pa.scalar(5, pa.duration("s")))).bind(SCHEMA).type == pa.timestamp("ms")
    assert (F("ts_ms") - F("ts_ns")).bind(SCHEMA).type == pa.duration("ns")
    assert (F("d32") - F("d32")).bind(SCHEMA).type == pa.duration("s")
    b = (F("d32") + tk.literal(pa.scalar(3600, pa.duration("s")))).bind(SCHEMA)
    assert b.type == pa.timestamp("s")
    assert eager(b, TABLE)[0].as_py() == dt.datetime(2024, 1, 1, 1, 0)
    assert tk.call("year", [F("ts_ms")]).bind(SCHEMA).type == pa.int64()


def test_dictionary_is_compared_through_its_values():
    """Beyond Arrow (which decodes first): a dictionary of strings meets a string as it is,
    and the kernel compares once per dictionary entry."""
    b = (F("ds") == "a").bind(SCHEMA)
    assert b.args[0].is_field and b.kernel.inputs[0].accepts(SCHEMA.field("ds").type)
    assert eager(b, TABLE).to_pylist() == [True, False, None, True]


def test_string_and_large_string_meet_as_large_string():
    b = (F("s") == F("ls")).bind(SCHEMA)
    assert _cast_target(b.args[0]) == pa.large_utf8()


def test_large_string_literal_narrows_to_string():
    b = (F("s") == tk.literal(pa.scalar("a", pa.large_utf8()))).bind(SCHEMA)
    assert b.args[0].is_field and b.args[1].type == pa.utf8()


def test_null_literal_takes_the_other_type():
    b = (F("i32") + tk.literal(None)).bind(SCHEMA)
    assert b.type == pa.int32() and b.args[1].type == pa.int32() and b.args[1].is_null_literal
    b = tk.if_else(F("b"), F("i8"), tk.literal(None)).bind(SCHEMA)
    assert b.type == pa.int8()


def test_if_else_and_case_when_find_a_common_type():
    b = tk.if_else(F("b"), F("i8"), F("u8")).bind(SCHEMA)
    assert b.type == pa.int16()
    cw = tk.case_when([(F("i32") > 0, F("i8")), (F("b"), F("f32"))], else_=0)
    b = cw.bind(SCHEMA)
    assert b.type == pa.float32()
    assert b.args[0].type == pa.struct([("0", pa.bool_()), ("1", pa.bool_())])
    assert eager(b, TABLE).to_pylist() == [1.0, 0.0, 0.0, 100.0]
    assert b.type == acero_type_and_values(cw, TABLE)[0]


def test_coalesce_and_is_in_and_struct_field():
    assert tk.coalesce(F("i8"), F("i64"), 0).bind(SCHEMA).type == pa.int64()
    b = F("ds").isin(["a"]).bind(SCHEMA)
    assert b.type == pa.bool_() and eager(b, TABLE).to_pylist() == [True, False, False, True]
    sf = tk.call("struct_field", [F("st")], pc.StructFieldOptions("y")).bind(SCHEMA)
    assert sf.type == pa.utf8()
    assert eager(sf, TABLE).to_pylist() == ["a", None, None, "c"]


def test_cast_reads_its_target_from_the_options():
    b = F("i32").cast("float64").bind(SCHEMA)
    assert b.type == pa.float64()
    assert b.function.can_fail


def test_nested_field_is_bound_with_path_and_nullability():
    schema = pa.schema([pa.field("s", pa.struct([pa.field("x", pa.int8(), nullable=False)]),
                                 nullable=False)])
    b = F("s", "x").bind(schema)
    assert b.type == pa.int8() and b.path.indices == (0, 0) and b.nullable is False
    assert F("st", "x").bind(SCHEMA).nullable is True


# -- binding twice, data in place of schemas, deep trees ----------------------------------------

def test_binding_a_bound_expression_again_gives_an_equal_expression():
    for expr in (F("i8") + F("u8") * 2, (F("ds") == "a") & F("b"), tk.if_else(F("b"), F("dec"), 1),
                 F("d32") + tk.literal(pa.scalar(1, pa.duration("ms")))):
        once = expr.bind(SCHEMA)
        twice = once.bind(SCHEMA)
        assert twice.equals(once)
        assert twice.type == once.type


def test_bind_takes_a_table_or_a_record_batch():
    e = F("i32") + 1
    assert tk.bind(e, TABLE).equals(tk.bind(e, TABLE.to_batches()[0]))
    with pytest.raises(BindError, match="Schema, Table or RecordBatch"):
        tk.bind(e, {"i32": 1})


def test_ten_thousand_deep_expressions_bind():
    expr = F("i8")
    for _ in range(10_000):
        expr = expr + 1
    b = expr.bind(SCHEMA)
    assert b.type == pa.int8() and b.is_bound
    assert b.bind(SCHEMA).equals(b)


# -- errors ------------------------------------------------------------------------------

def test_unknown_function_suggests_close_names():
    with pytest.raises(UnknownFunctionError) as info:
        tk.call("ad", [F("i8"), 1]).bind(SCHEMA)
    assert "No function registered with name: ad" in str(info.value)
    assert "add" in info.value.suggestions
    with pytest.raises(UnknownFunctionError) as info:
        tk.get_function("upper")
    assert "utf8_upper" in info.value.suggestions


def test_wrong_arity_names_the_counts():
    with pytest.raises(ArityError, match=r"Function 'add' accepts 2 arguments but 3 passed"):
        tk.call("add", [F("i8"), 1, 2]).bind(SCHEMA)
    with pytest.raises(ArityError, match="needs at least 1 arguments but only 0 passed"):
        tk.call("coalesce", []).bind(SCHEMA)


def test_no_kernel_says_what_was_written_what_was_narrowed_and_what_the_function_takes():
    with pytest.raises(NoKernelError) as info:
        (F("s") == 1).bind(SCHEMA)
    lines = str(info.value).splitlines()
    assert lines == [
        "equal(s: string, 1) has no kernel",
        "  the literal 1 (int64) was narrowed to int8 to look for one, as Arrow does",
        "  equal takes integers, floats, decimals, booleans, strings, binary, dates, timestamps,"
        " times, durations and dictionaries",
        "  each type is taken on its own, not together: cast the arguments to one type",
        "  tk.describe('equal') lists its 44 signatures",
    ]
    # Arrow's own words and every signature stay on the error
    assert info.value.arrow_message.splitlines()[0] == (
        "Function 'equal' has no kernel matching input types (string, int8)")
    assert "equal(string, string) -> bool" in info.value.signatures
    assert info.value.types == (pa.utf8(), pa.int8())
    assert any("while binding (s == 1)" in note for note in info.value.__notes__)


def test_no_kernel_in_at_most_eight_lines_for_a_penguins_typo():
    from palmerpenguins import load_penguins

    schema = pa.Table.from_pandas(load_penguins(), preserve_index=False).schema
    with pytest.raises(NoKernelError) as info:
        tk.parse("species + 1").bind(schema)
    text = str(info.value)
    assert len(text.splitlines()) <= 8
    species = schema.field("species").type  # string or large_string, as pandas gives it
    assert text.startswith(f"add(species: {species}, 1) has no kernel")
    assert "narrowed to int8" in text and "add takes integers" in text
    with pytest.raises(NoKernelError) as info:
        tk.parse("if(year, 1, 2)").bind(schema)
    assert "argument 1: booleans" in str(info.value)


def test_missing_field_raises_the_field_ref_error():
    with pytest.raises(FieldRefError, match=r"no field 'nope'") as info:
        (F("nope") + 1).bind(SCHEMA)
    assert info.value.arrow_message.startswith("No match for FieldRef.Name(nope)")


def test_bad_options_fail_at_bind_time():
    with pytest.raises(BindError, match="to_type"):
        tk.call("cast", [F("i8")]).bind(SCHEMA)
    with pytest.raises(NoKernelError, match="Unsupported cast from struct"):
        F("st").cast("int32").bind(SCHEMA)
    with pytest.raises(BindError, match="SetLookupOptions"):
        tk.call("is_in", [F("i8")]).bind(SCHEMA)
    with pytest.raises(BindError, match="rejects its options"):
        tk.call("is_in", [F("i8")], pc.SetLookupOptions(pa.array(["x"]))).bind(SCHEMA)
    with pytest.raises(BindError, match="struct_field"):
        tk.call("struct_field", [F("st")], pc.StructFieldOptions([5])).bind(SCHEMA)
    with pytest.raises(BindError, match="1 arguments but 2 field names"):
        tk.call("make_struct", [F("i8")], pc.MakeStructOptions(["a", "b"])).bind(SCHEMA)


def test_make_struct_of_nothing_is_a_bind_error_not_an_index_error():
    # pyarrow's eager answer has no rows whatever the input, and Acero crashes on it
    assert len(pc.make_struct()) == 0
    table = pa.table({"i8": pa.array([1, 2], pa.int8())})
    for options in (None, pc.MakeStructOptions([])):
        with pytest.raises(BindError, match="make_struct needs at least one argument"):
            tk.evaluate(tk.call("make_struct", [], options), table)


def test_options_of_the_wrong_class_are_refused():
    with pytest.raises(BindError, match="Function 'round' expects RoundOptions, not CastOptions"):
        tk.call("round", [F("f64")], pc.CastOptions.safe(pa.int8())).bind(SCHEMA)
    with pytest.raises(BindError, match="Function 'add' takes no options"):
        tk.call("add", [F("i8"), 1], pc.RoundOptions()).bind(SCHEMA)


def test_case_when_needs_boolean_conditions():
    bad = Call("case_when", [tk.make_struct([F("i8")], ["c"]), F("i8")])
    with pytest.raises(BindError, match="all fields of first argument must be BOOL"):
        bad.bind(SCHEMA)


def test_bind_call_without_implicit_casts_refuses_mixed_types():
    a, b = F("i8").bind(SCHEMA), F("u8").bind(SCHEMA)
    with pytest.raises(NoKernelError):
        bind_call(Call("add", [a, b]), insert_implicit_casts=False)
    assert bind_call(Call("add", [a, b])).type == pa.int16()
    with pytest.raises(BindError, match="not bound"):
        bind_call(Call("add", [F("i8"), b]))


# -- Acero is the reference ----------------------------------------------------------------

NUMERIC_FIELDS = ["i8", "i32", "i64", "u8", "u64", "f32", "f64", "dec"]
LITERALS = st.one_of(
    st.integers(-(2**40), 2**40), st.sampled_from([0, 1, -1, 127, 128, 255, 256, 70000, 2**31]),
    st.sampled_from([1.5, 0.1, -2.0, 1e20]), st.none(),
)


def _leaf():
    return st.one_of(st.sampled_from(NUMERIC_FIELDS).map(F), LITERALS.map(tk.literal))


def _tree():
    numeric = st.recursive(
        _leaf(),
        lambda kids: st.one_of(
            st.tuples(st.sampled_from(["add", "subtract", "multiply", "add_checked"]), kids, kids)
            .map(lambda t: tk.call(t[0], [t[1], t[2]])),
            st.tuples(kids, kids, kids).map(lambda t: tk.if_else(t[0] > t[1], t[1], t[2])),
            st.tuples(kids, kids).map(lambda t: tk.coalesce(t[0], t[1])),
            kids.map(lambda k: tk.call("abs", [k])),
        ),
        max_leaves=5,
    )
    comparison = st.tuples(st.sampled_from(["equal", "less", "greater_equal"]), numeric, numeric).map(
        lambda t: tk.call(t[0], [t[1], t[2]]))
    return st.one_of(numeric, comparison, st.tuples(comparison, comparison).map(lambda t: t[0] & t[1]))


def _acero(expr):
    try:
        return acero_type_and_values(expr, TABLE), None
    except (pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        return None, exc


def _acero_quirk(expr) -> bool:
    """Where exprscope fixes Acero on purpose (docs/differences-from-arrow.md).

    Acero's coalesce matches timestamps by type id alone: coalesce(ts[ms], ts[ns]) is typed
    ts[ms] and copies the ns values unconverted; exprscope casts to the common unit. Acero's
    if_else matches any two decimal128 by type id and fails at run time when their precision
    or scale differ; exprscope casts both to one decimal, as Acero's case_when does.
    """
    for node in postorder(expr):
        if node.is_call and node.name in ("coalesce", "if_else"):
            try:
                types = {tk.bind(a, SCHEMA).type for a in node.args[node.name == "if_else":]}
            except BindError:
                continue
            if node.name == "coalesce" and len(types) > 1 and all(
                    pa.types.is_timestamp(t) for t in types):
                return True
            if node.name == "if_else" and len(types) > 1 and all(
                    pa.types.is_decimal128(t) for t in types):
                return True
    return False


@settings(max_examples=80, deadline=None)
@given(_tree())
def test_bound_types_and_values_equal_aceros(expr):
    if _acero_quirk(expr):
        return
    try:
        ours = expr.bind(SCHEMA)
    except BindError as exc:
        ours, error = None, exc
    try:
        reference, reference_error = _acero(expr)
    except pa.ArrowInvalid:
        return  # the data overflowed or a decimal did not fit: not a typing question
    if ours is None:
        assert reference is None, f"{expr}: bind failed ({error}) but Acero gives {reference[0]}"
        return
    assert reference is not None, f"{expr}: bound to {ours.type} but Acero fails: {reference_error}"
    ref_type, ref_values = reference
    assert ours.type == ref_type, str(expr)
    try:
        values = eager(ours, TABLE)
    except pa.ArrowInvalid:
        return
    if isinstance(values, pa.Scalar):
        values = pa.array([values.as_py()] * TABLE.num_rows, values.type)
    assert values.to_pylist() == ref_values.to_pylist(), str(expr)


ALL_FIELDS = [n for n in SCHEMA.names if n != "st"]
TYPED_LITERALS = st.sampled_from([
    pa.scalar(2_000_000_000, pa.timestamp("ns")), pa.scalar(1_500, pa.timestamp("ms")),
    pa.scalar(7, pa.timestamp("s")), pa.scalar(3_000_000, pa.timestamp("us")),
    pa.scalar("a", pa.large_utf8()), pa.scalar("bc"), pa.scalar(b"a"), pa.scalar(True),
    pa.scalar(dt.date(2024, 1, 1)), pa.scalar(5, pa.duration("s")), pa.scalar(None),
    pa.scalar(Decimal("1.5"), pa.decimal128(3, 1)), pa.scalar(2**33), pa.scalar(-3),
    pa.scalar(2.5), pa.scalar(300, pa.uint16()),
])


def _mixed_tree():
    leaf = st.one_of(st.sampled_from(ALL_FIELDS).map(F), TYPED_LITERALS.map(tk.literal))
    pair = st.tuples(leaf, leaf)
    return st.one_of(
        st.tuples(st.sampled_from(["equal", "less", "greater_equal", "not_equal"]), pair).map(
            lambda t: tk.call(t[0], list(t[1]))),
        st.tuples(st.sampled_from(["add", "subtract", "multiply"]), pair).map(
            lambda t: tk.call(t[0], list(t[1]))),
        pair.map(lambda t: tk.if_else(F("b"), t[0], t[1])),
        pair.map(lambda t: tk.coalesce(t[0], t[1])),
    )


@settings(max_examples=100, deadline=None)
@given(_mixed_tree())
def test_dispatch_across_type_families_agrees_with_acero(expr):
    """Strings, temporals, dictionaries, decimals, nulls and typed literals (narrowed)."""
    test_bound_types_and_values_equal_aceros.hypothesis.inner_test(expr)


@settings(max_examples=60, deadline=None)
@given(st.one_of(_tree(), _mixed_tree()))
def test_rebinding_is_stable(expr):
    """bind(bind(e)) equals bind(e): inserted casts and re-typed literals dispatch exactly."""
    try:
        once = expr.bind(SCHEMA)
    except BindError:
        return
    twice = once.bind(SCHEMA)
    assert twice.equals(once), f"{once}\n{twice}"
    assert twice.type == once.type


def test_decimal_comparison_with_an_integer_binds_as_arrows_expression_tests():
    # Arrow's expression_test.cc: cmp(decimal128(3, 2), int64) is
    # cmp(d, cast(i64, decimal128(21, 2))): int64's 19 digits, scaled up to 2
    schema = pa.schema([("d", pa.decimal128(3, 2)), ("i", pa.int64())])
    for op in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        b = tk.call(op, [F("d"), F("i")]).bind(schema)
        assert b.args[0].type == pa.decimal128(3, 2)
        assert _cast_target(b.args[1]) == pa.decimal128(21, 2)
    table = pa.table({"d": pa.array([Decimal("1.50"), Decimal("-2.00")], pa.decimal128(3, 2)),
                      "i": [1, -2]})
    assert tk.evaluate(F("d") > F("i"), table).to_pylist() == [True, False]


@pytest.mark.parametrize("decimal", [pa.decimal128(10, 2), pa.decimal128(5, 3),
                                     pa.decimal256(40, 5)], ids=str)
@pytest.mark.parametrize("name", ["divide", "divide_checked"])
def test_a_decimal_divided_by_null_has_acero_type(decimal, name):
    import pyarrow.dataset as ds

    table = pa.table({"d": pa.array([1], decimal)})
    for args in ([F("d"), tk.literal(None)], [tk.literal(None), F("d")]):
        expr = tk.call(name, args)
        acero = ds.dataset(table).to_table(columns={"r": expr.to_pyarrow()}).column("r")
        assert expr.bind(table.schema).type == acero.type
        got = tk.evaluate(expr, table)
        assert got.type == acero.type and got.to_pylist() == [None]


def test_no_kernel_puts_a_caret_under_the_call_in_the_parsed_text():
    text = "bill_length_mm > 3 and (species + 1) * 2 > 2"
    schema = pa.schema([("species", pa.large_string()), ("bill_length_mm", pa.float64())])
    with pytest.raises(tk.NoKernelError) as info:
        tk.parse(text).bind(schema)
    lines = info.value.located(text).splitlines()
    assert lines[0] == "add(species: large_string, 1) has no kernel"
    assert lines[1] == "  " + text
    assert lines[2] == "  " + " " * text.index("species + 1") + "^" * len("species + 1")
    # a tree built in Python has no text: the message stands without a caret
    with pytest.raises(tk.NoKernelError) as built:
        (tk.field("species") + 1).bind(schema)
    assert built.value.located(text) == str(built.value)
