"""Substrait expressions both ways, with pyarrow's Substrait consumer and Acero as the oracle.

Random expressions (the Acero differential's strategies) are written by exprscope,
read by pyarrow and evaluated by Acero; pyarrow's own serializer writes them, and
exprscope reads and evaluates them. Either way the values must be Acero's, and
whatever exprscope writes it reads back to the same tree.
"""

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.substrait as ps
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from substrait import algebra_pb2, extended_expression_pb2, type_pb2

import toolkit as tk
from tests.acero_reference import (
    AceroCrashed,
    acero_loses_this_error,
    run_acero_substrait,
    serialize_in_child,
)
from tests.strategies.paired import SCHEMA, expressions, same_values, tables
from toolkit.model.expression import preorder
from toolkit.model.options import options_changed_text, value_set


def as_column(value, n):
    if isinstance(value, pa.Scalar):
        return pa.chunked_array([pa.repeat(value, n)], value.type) if n else \
            pa.chunked_array([], value.type)
    return value


def without_default_options(expr):
    """The tree with options equal to their class's defaults left out (Substrait writes
    none for them, as Arrow's own serializer does), and a list_element's index as int32:
    Substrait's list reference holds the offset as an int32, whatever integer it was."""
    def post_call(new, old):
        if new.name == "list_element" and new.args[1].is_literal:
            index = tk.literal(new.args[1].value.as_py(), pa.int32())
            return tk.bind(tk.call("list_element", [new.args[0], index]), WRITABLE)
        if new.options is not None and options_changed_text(new.options) == "{}":
            return tk.bind(tk.call(new.name, list(new.args)), WRITABLE)
        if new.name == "is_in" and value_set(new.options).null_count == 0:
            # skipping nulls matters only where the set holds one
            return tk.bind(tk.call("is_in", list(new.args),
                                   pc.SetLookupOptions(value_set(new.options))), WRITABLE)
        return new
    return tk.modify_expression(expr, lambda e: e, post_call)


def same_tree(a, b) -> bool:
    return without_default_options(a).equals(without_default_options(b))


KINDS = st.sampled_from(["int", "float", "bool", "str"])


def _both_write(field: pa.Field) -> bool:
    one = pa.schema([field])
    try:
        ps.deserialize_expressions(tk.field(field.name).to_substrait(one))
        ps.serialize_expressions([pc.field(field.name)], ["o"], one)
    except (tk.SubstraitError, pa.ArrowException):
        return False
    return True


# the strategies' columns that exprscope and pyarrow both write into a base schema
# (a zone other than UTC, durations and maps have no Substrait type): the expressions
# drawn over the others leave their example, as binding them to this schema fails
WRITABLE = pa.schema([f for f in SCHEMA if _both_write(f)])


def _writable(pair, table):
    expr, reference = pair
    try:
        bound = tk.bind(expr, WRITABLE)
    except tk.ExprscopeError:
        assume(False)
    return bound, reference, table.select(WRITABLE.names)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(KINDS.flatmap(expressions), tables())
def test_what_exprscope_writes_acero_reads_and_computes_the_same(pair, table):
    bound, _, table = _writable(pair, table)
    try:
        data = bound.to_substrait(WRITABLE)
    except tk.SubstraitError as err:
        assert "(at " in str(err)  # a refusal says where, and why
        assume(False)
    back = tk.from_substrait(data)
    if not same_tree(back, bound):  # case_when(c, not c) without an else is written in the
        # shape if_else is written in, and reads back as the if_else it equals on every row
        assert "case_when" in str(bound) and "if_else" in str(back), (
            "exprscope reads back what it wrote", str(bound), str(back))
        assert tk.evaluate(back, table).equals(tk.evaluate(bound, table))
    try:
        theirs = ps.deserialize_expressions(data).expressions["expression"]
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid) as err:
        # Acero's consumer maps fewer functions than Substrait names (lower, concat, ...),
        # reads extract of YEAR, MONTH, DAY and SECOND only, and finds no literal in a
        # precision_timestamp (the type of a timestamp in seconds, ms or ns)
        said = str(err).lower()
        assert any(words in said for words in ("conversion", "no function", "not implemented",
                                               "acero", "expected enum value",
                                               "did not have any literal type")), err
        assume(False)
    # Acero reads a one-clause if_then as if_else, which gives null where the condition
    # is null; Substrait's if_then (SQL's CASE) takes the else there, as case_when does
    assume(not any(n.is_call and n.name == "case_when" and len(n.args[0].args) == 1
                   and len(n.args) == 3 for n in preorder(bound)))
    try:
        expected = run_acero_substrait(data, "expression", table)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, AceroCrashed):
        assume(False)
    try:
        got = as_column(tk.evaluate(bound, table), len(table))
    except tk.KernelError as exc:
        assume(not acero_loses_this_error(exc))  # Acero gave 0: no reference
        # Acero's consumer drops the on_domain_error and overflow options a `_checked`
        # function is written with (sqrt_checked is sqrt, ERROR): it computes NaN instead
        assert any(n.is_call and n.name.endswith("_checked") for n in preorder(bound)), \
            str(bound)
        assume(False)
    assert got.type == expected.type, (str(bound), str(theirs), got.type, expected.type)
    assert same_values(got, expected), (str(bound), str(theirs), got, expected)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(KINDS.flatmap(expressions), tables())
def test_what_pyarrow_writes_exprscope_reads_and_computes_as_acero(pair, table):
    _, reference, table = _writable(pair, table)
    try:
        data = serialize_in_child(reference, "out", WRITABLE)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, AceroCrashed):
        assume(False)  # pyarrow's producer maps fewer functions than its registry holds
    try:
        theirs = ps.deserialize_expressions(data).expressions["out"]
        expected = run_acero_substrait(data, "out", table)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, AceroCrashed):
        # pyarrow cannot run what its own serializer wrote (a struct literal loses its
        # field names in Substrait, and no longer matches the column it stands beside)
        assume(False)
    try:
        mine = tk.from_substrait(data)
    except tk.SubstraitError as err:
        # a struct literal reads back with unnamed fields; Acero lets it stand beside a
        # column of named ones, exprscope refuses the call by name (docs/substrait.md)
        assert "does not bind" in str(err) and ("struct<: " in str(err)
                                                or "{:" in str(err)), err
        assume(False)
    try:
        got = as_column(tk.evaluate(mine, table), len(table))
    except tk.KernelError as exc:
        assume(not acero_loses_this_error(exc))  # Acero gave 0: no reference
        raise
    assert got.type == expected.type, (str(mine), str(theirs))
    assert same_values(got, expected), (str(mine), str(theirs), got, expected)


SMALL = pa.schema([("x", pa.int64()), ("y", pa.float64()), ("s", pa.string()),
                   ("b", pa.bool_()), ("t", pa.timestamp("us", "UTC")),
                   ("d", pa.date32()), ("m", pa.decimal128(7, 2)),
                   ("st", pa.struct([("i", pa.int32()), ("j", pa.string())])),
                   ("l", pa.list_(pa.int64()))])


def test_fields_read_by_name_nested_too():
    e = tk.from_substrait(ps.serialize_expressions(
        [pc.field("st", "j") == "a"], ["o"], SMALL))
    assert str(e) == 'FieldRef.Nested(FieldRef.Name(st) FieldRef.Name(j)) == "a"'.join("()")
    assert e.type == pa.bool_()


def test_special_forms_round_trip_as_arrows_serde_tests_do():
    cases = [
        tk.if_else(tk.literal(True), tk.field("st", "j"), tk.field("s")),
        tk.case_when([(tk.literal(False), tk.field("s")), (tk.field("b"), tk.field("st", "j"))],
                     else_=tk.field("s")),
        tk.call("list_element", [tk.field("l"), tk.literal(pa.scalar(1, pa.int32()))]),
        tk.call("struct_field", [tk.field("st")], pc.StructFieldOptions([1])),
        tk.coalesce(tk.field("y"), tk.literal(0.0)),
    ]
    for e in cases:
        bound = tk.bind(e, SMALL)
        back = tk.from_substrait(bound.to_substrait(SMALL))
        assert tk.evaluate(back, pa.table({f.name: pa.nulls(0, f.type) for f in SMALL})).type \
            == bound.type
        table = pa.table({
            "x": [1, None], "y": [None, 2.5], "s": ["a", None], "b": [True, None],
            "t": pa.array([0, None], pa.timestamp("us", "UTC")),
            "d": pa.array([0, 1], pa.date32()), "m": pa.array([None, None], pa.decimal128(7, 2)),
            "st": [{"i": 1, "j": "q"}, None], "l": [[1, 2], None]}, schema=SMALL)
        assert tk.evaluate(back, table).equals(tk.evaluate(bound, table)), str(e)


@pytest.mark.parametrize("value", [
    pa.scalar(True), pa.scalar(-3, pa.int8()), pa.scalar(7, pa.int16()),
    pa.scalar(2**31 - 1, pa.int32()), pa.scalar(-2**63, pa.int64()),
    pa.scalar(1.5, pa.float32()), pa.scalar(float("nan")), pa.scalar("héllo"),
    pa.scalar(b"\x00\xff"), pa.scalar(b"abcd", pa.binary(4)),
    pa.scalar(19_000, pa.int32()).cast(pa.date32()),
    pa.scalar(86_399_999_999, pa.int64()).cast(pa.time64("us")),
    pa.scalar(1, pa.int64()).cast(pa.time64("ns")),
    pa.scalar(2**62, pa.int64()).cast(pa.timestamp("us")),
    pa.scalar(-1, pa.int64()).cast(pa.timestamp("ns", "UTC")),
    pa.scalar(5, pa.int64()).cast(pa.timestamp("s")),
    pa.scalar(__import__("decimal").Decimal("-123.45"), pa.decimal128(5, 2)),
    pa.scalar(__import__("decimal").Decimal("9" * 38), pa.decimal128(38, 0)),
    pa.scalar([1, None, 3], pa.list_(pa.int64())), pa.scalar([], pa.list_(pa.string())),
    pa.scalar(None, pa.int32()), pa.scalar(None, pa.timestamp("ms")),
    pa.scalar(None, pa.decimal128(10, 3)), pa.scalar(None, pa.list_(pa.float64())),
])
def test_a_literal_of_every_supported_type_round_trips(value):
    e = tk.literal(value)
    back = tk.from_substrait(e.to_substrait(pa.schema([("x", pa.int64())])))
    assert back.type == value.type
    assert back.equals(e), (back, e)


@pytest.mark.parametrize("value", [
    pa.scalar(3, pa.int64()), pa.scalar("a"), pa.scalar(2.5),
    pa.scalar(19_000, pa.int32()).cast(pa.date32()),
    pa.scalar(2**40, pa.int64()).cast(pa.timestamp("us")),
    pa.scalar(2**40, pa.int64()).cast(pa.timestamp("us", "UTC")),
    pa.scalar(3_600_000_000, pa.int64()).cast(pa.time64("us")),
    pa.scalar(__import__("decimal").Decimal("1.25"), pa.decimal128(3, 2)),
])
def test_pyarrows_literals_read_as_pyarrow_reads_them(value):
    """pyarrow 26 writes times and microsecond timestamps in Substrait's older fields."""
    schema = pa.schema([("x", pa.int64())])
    data = ps.serialize_expressions([pc.scalar(value)], ["o"], schema)
    theirs = ps.deserialize_expressions(data).expressions["o"]
    got = tk.from_substrait(data)
    assert got.value.equals(value)
    assert str(got) == str(theirs)


def test_a_safe_widening_cast_binding_inserts_is_written():
    """pyarrow refuses safe casts; one that cannot fail for its types means the same thrown."""
    schema = pa.schema([("i", pa.int32()), ("y", pa.float64())])
    e = tk.bind(tk.field("i") + tk.field("y"), schema)
    assert "cast" in str(e)
    data = e.to_substrait(schema)
    assert "expression" in ps.deserialize_expressions(data).expressions
    table = pa.table({"i": pa.array([1, None, 2**31 - 1], pa.int32()), "y": [0.5, 1.0, None]})
    assert run_acero_substrait(data, "expression", table).equals(tk.evaluate(e, table))
    assert tk.from_substrait(data).equals(e)


def test_acero_reads_a_throwing_cast_as_unsafe_and_so_does_exprscope_for_acero():
    schema = pa.schema([("x", pa.int64())])
    data = ps.serialize_expressions([pc.field("x").cast(pa.int8(), safe=False)], ["o"], schema)
    table = pa.table({"x": [1, 300]})
    mine = tk.from_substrait(data)
    expected = run_acero_substrait(data, "o", table)
    assert tk.evaluate(mine, table).equals(expected)  # 300 wraps to 44 in both


@pytest.mark.parametrize("expr, named", [
    (tk.call("choose", [tk.field("x"), tk.field("y"), tk.field("y")]), "choose"),
    (tk.call("and", [tk.field("b"), tk.field("b")]), "Kleene"),
    (tk.call("utf8_lpad", [tk.field("s")], pc.PadOptions(5)), "utf8_lpad"),
    (tk.cast(tk.field("x"), pa.int8(), safe=False), "unsafe cast"),
    (tk.call("is_null", [tk.field("y")], pc.NullOptions(nan_is_null=True)), "nan_is_null"),
    (tk.field("t") == tk.literal(pa.scalar(0, pa.timestamp("us", "Asia/Tokyo"))), "zone"),
])
def test_what_substrait_cannot_say_is_refused_by_name(expr, named):
    schema = SMALL
    with pytest.raises(tk.SubstraitError) as err:
        expr.to_substrait(schema)
    assert named in str(err.value)


def test_is_in_keeps_arrows_null_semantics_through_substrait():
    """Arrow's is_in is false for a null value; SQL's IN is null: written as coalesce(IN, false)."""
    schema = pa.schema([("x", pa.int64())])
    table = pa.table({"x": [1, None, 3]})
    for options in (pc.SetLookupOptions(pa.array([1, 2])),
                    pc.SetLookupOptions(pa.array([1, None]), skip_nulls=True),
                    pc.SetLookupOptions(pa.array([1, None]))):
        e = tk.bind(tk.call("is_in", [tk.field("x")], options), schema)
        data = e.to_substrait(schema)
        assert "expression" in ps.deserialize_expressions(data).expressions
        want = pc.is_in(table["x"], options=options)
        assert run_acero_substrait(data, "expression", table).equals(want)
        assert tk.evaluate(tk.from_substrait(data), table).equals(want)


def test_several_expressions_name_the_function_that_returns_them_all():
    data = ps.serialize_expressions([pc.field("x") > 1, pc.field("y") < 2], ["a", "b"], SMALL)
    with pytest.raises(tk.SubstraitError, match="from_substrait_all"):
        tk.from_substrait(data)
    found = tk.from_substrait_all(data)
    assert list(found.expressions) == ["a", "b"] and found.schema == SMALL
    assert tk.to_substrait(found.expressions, SMALL)  # and they write back together


def test_a_message_object_and_a_memoryview_are_read_too():
    data = ps.serialize_expressions([pc.field("x") > 1], ["a"], SMALL)
    message = extended_expression_pb2.ExtendedExpression()
    message.ParseFromString(bytes(data))
    assert tk.from_substrait(message).equals(tk.from_substrait(memoryview(data)))


def _message(expression, names=("x",), types=None):
    m = extended_expression_pb2.ExtendedExpression()
    m.extension_urns.add(extension_urn_anchor=1, urn="extension:io.substrait:functions_boolean")
    f = m.extensions.add().extension_function
    f.extension_urn_reference, f.function_anchor, f.name = 1, 7, "and"
    r = m.referred_expr.add()
    r.expression.CopyFrom(expression)
    r.output_names.append("o")
    m.base_schema.names.extend(names)
    for t in types or [type_pb2.Type(bool=type_pb2.Type.Boolean())] * len(names):
        m.base_schema.struct.types.append(t)
    return m.SerializeToString()


def _field(i):
    e = algebra_pb2.Expression()
    e.selection.direct_reference.struct_field.field = i
    e.selection.root_reference.SetInParent()
    return e


def test_substraits_variadic_and_reads_as_a_chain():
    e = algebra_pb2.Expression()
    e.scalar_function.function_reference = 7
    for i in range(3):
        e.scalar_function.arguments.add().value.CopyFrom(_field(i))
    got = tk.from_substrait(_message(e, names=("a", "b", "c")))
    assert str(got) == "((a and b) and c)"


def test_a_reference_past_the_schema_names_where():
    e = algebra_pb2.Expression()
    e.scalar_function.function_reference = 7
    e.scalar_function.arguments.add().value.CopyFrom(_field(0))
    e.scalar_function.arguments.add().value.CopyFrom(_field(5))
    with pytest.raises(tk.SubstraitError,
                       match=r"field 5 is past the 1 fields .*referred_expr\[0\]\.expression"
                             r"\.scalar_function\.arguments\[1\]"):
        tk.from_substrait(_message(e))


@pytest.mark.parametrize("index", [pa.scalar(1, pa.int8()), pa.scalar(1, pa.uint64())])
def test_a_list_element_index_of_any_integer_width_reads_back_as_int32(index):
    bound = tk.bind(tk.call("list_element", [tk.field("l"), tk.literal(index)]), SMALL)
    back = tk.from_substrait(bound.to_substrait(SMALL))
    assert back.args[1].type == pa.int32()
    table = pa.table({"l": [[1, 2], None, [3, 4]]})
    assert tk.evaluate(back, table).equals(tk.evaluate(bound, table))


def test_a_list_element_index_past_int32_is_refused_naming_the_range():
    bound = tk.bind(tk.call("list_element", [tk.field("l"), tk.literal(pa.scalar(2**31, pa.int64()))]),
                    SMALL)
    with pytest.raises(tk.SubstraitError, match="from 0 to 2,147,483,647"):
        bound.to_substrait(SMALL)
