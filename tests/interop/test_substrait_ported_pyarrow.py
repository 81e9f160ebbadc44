"""Arrow's own Substrait expression cases, with pyarrow as the oracle both ways.

Ported from pyarrow's `tests/test_substrait.py` (serializing one and several
expressions, Arrow-specific and one-way types, bad field references, function
without a Substrait mapping) and Arrow C++'s `engine/substrait/serde_test.cc`
(supported literals, literals that cannot be read, field references by name,
index and path, the special-cased calls if_else / case_when / list_element /
struct_field, an extension call, casts and their failure behaviour, named-struct
name counts, types with no Substrait equivalent).

Reading: pyarrow serializes an expression, `tk.from_substrait` reads it, and
exprscope's value on a small table with nulls must equal pyarrow's, value and
type. Writing: `to_substrait` writes exprscope's expression, pyarrow's consumer
reads it back, and pyarrow's value must equal exprscope's.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.substrait as pa_substrait
import pytest
from substrait import algebra_pb2, extended_expression_pb2, type_pb2

import toolkit as tk
from tests.interop import substrait_messages as sm
from toolkit.errors import ExprscopeError
from toolkit.model.options import option_values

XY = pa.schema([("x", pa.int32()), ("y", pa.int32())])
XY_TABLE = pa.table({"x": pa.array([7, None, 50, 51, -3], pa.int32()),
                     "y": pa.array([7, 2, None, 51, 0], pa.int32())})

# the columns of serde_test's schema that Substrait can carry without Arrow's
# extension types
STRUCT_I32_STR = pa.struct([("i32", pa.int32()), ("str", pa.string())])
NESTED = pa.struct([("i32", pa.int32()), ("str", pa.string()),
                    ("struct_i32_str", STRUCT_I32_STR)])
BORING = pa.schema([
    ("bool", pa.bool_()), ("i8", pa.int8()), ("i32", pa.int32()),
    pa.field("i32_req", pa.int32(), nullable=False), ("i64", pa.int64()),
    ("f32", pa.float32()), pa.field("f32_req", pa.float32(), nullable=False),
    ("f64", pa.float64()), ("str", pa.string()), ("list_i32", pa.list_(pa.int32())),
    ("struct", NESTED), ("list_struct", pa.list_(NESTED)),
])
BORING_TABLE = pa.table({
    "bool": [True, None, False],
    "i8": pa.array([1, None, -8], pa.int8()),
    "i32": pa.array([None, 32, -1], pa.int32()),
    "i32_req": pa.array([1, 2, 3], pa.int32()),
    "i64": pa.array([64, None, 0], pa.int64()),
    "f32": pa.array([1.5, None, -0.0], pa.float32()),
    "f32_req": pa.array([0.5, 1.5, 2.5], pa.float32()),
    "f64": pa.array([float("nan"), 2.25, None], pa.float64()),
    "str": ["a", None, "ccc"],
    "list_i32": pa.array([[1, 2, 3, 4], None, [5, None, 6, 7]], pa.list_(pa.int32())),
    "struct": pa.array([{"i32": 1, "str": "s", "struct_i32_str": {"i32": 2, "str": "t"}},
                        None,
                        {"i32": None, "str": None, "struct_i32_str": None}], NESTED),
    "list_struct": pa.array([[{"i32": 1, "str": "u", "struct_i32_str": {"i32": 3, "str": "v"}}],
                             None,
                             [{"i32": None, "str": "w", "struct_i32_str": None}]],
                            pa.list_(NESTED)),
}, schema=BORING)


def arrow_value(expr: pc.Expression, table: pa.Table) -> pa.ChunkedArray:
    return ds.dataset(table).to_table(columns={"o": expr})["o"]


def as_column(result, rows: int) -> pa.Array:
    if isinstance(result, pa.Scalar):
        return pa.array([result.as_py()] * rows, result.type)
    if isinstance(result, pa.ChunkedArray):
        return result.combine_chunks()
    return result


def assert_same_values(got, expected, where=""):
    rows = next((len(v) for v in (expected, got) if not isinstance(v, pa.Scalar)), 1)
    got = as_column(got, rows)
    expected = as_column(expected, rows)
    assert got.type == expected.type, f"{where}: type {got.type}, Arrow {expected.type}"
    assert got.to_pylist() == expected.to_pylist() or got.equals(expected), \
        f"{where}: {got.to_pylist()} != Arrow's {expected.to_pylist()}"


def read_from_arrow(expr: pc.Expression, schema: pa.Schema, table: pa.Table):
    """pyarrow serializes `expr`; exprscope reads and evaluates it; both agree."""
    data = pa_substrait.serialize_expressions([expr], ["e"], schema)
    ours = tk.from_substrait(data)
    # pyarrow writes no names for struct fields inside lists (they read back as ""),
    # so the expression is bound again to the table it runs on, as evaluate asks
    rebound = tk.bind(ours, table.schema)
    got = tk.evaluate(rebound, table)
    assert rebound.type == arrow_value(expr, table).type, str(expr)
    assert_same_values(got, arrow_value(expr, table), str(expr))
    return ours


def as_pyarrow_reads_it(schema: pa.Schema) -> pa.Schema:
    """The schema after pyarrow's own round trip (struct fields inside lists unnamed)."""
    data = pa_substrait.serialize_expressions([pc.field(schema.names[0])], ["e"], schema)
    return pa_substrait.deserialize_expressions(data).schema


def write_to_arrow(ours: tk.Expression, schema: pa.Schema, table: pa.Table):
    """exprscope writes `ours`; pyarrow reads and evaluates it; both agree."""
    data = ours.to_substrait(schema)
    assert isinstance(data, bytes)
    back = pa_substrait.deserialize_expressions(data)
    assert list(back.expressions) == ["expression"]
    assert back.schema == as_pyarrow_reads_it(schema)
    assert_same_values(arrow_value(back.expressions["expression"], table),
                       tk.evaluate(tk.bind(ours, table.schema), table), str(ours))
    return data


# --- pyarrow's tests/test_substrait.py -----------------------------------------------

XY_EXPRESSIONS = [pc.equal(pc.field("x"), 7), pc.equal(pc.field("x"), pc.field("y")),
                  pc.field("x") > 50]


@pytest.mark.parametrize("expr", XY_EXPRESSIONS, ids=str)
def test_serialized_expression_reads_with_its_schema(expr):
    data = pa_substrait.serialize_expressions([expr], ["test_expr"], XY)
    read = tk.from_substrait_all(data)
    assert read.schema == XY
    assert list(read.expressions) == ["test_expr"]
    assert_same_values(tk.evaluate(read.expressions["test_expr"], XY_TABLE),
                       arrow_value(expr, XY_TABLE), str(expr))


@pytest.mark.parametrize("expr", XY_EXPRESSIONS, ids=str)
def test_written_expression_evaluates_in_arrow_like_ours(expr):
    ours = tk.bind(tk.from_pyarrow(expr), XY)
    write_to_arrow(ours, XY, XY_TABLE)


def test_field_references_print_by_name():
    data = pa_substrait.serialize_expressions([pc.field("x") > 3], ["e"], XY)
    assert str(tk.from_substrait(data)) == "(x > 3)"


def test_several_expressions_keep_their_names_and_order():
    exprs = [pc.equal(pc.field("x"), 7), pc.equal(pc.field("x"), pc.field("y"))]
    data = pa_substrait.serialize_expressions(exprs, ["first", "second"], XY)
    read = tk.from_substrait_all(data)
    assert read.schema == XY
    assert list(read.expressions) == ["first", "second"]
    assert str(read.expressions["first"]) == "(x == 7)"
    assert str(read.expressions["second"]) == "(x == y)"


def test_to_substrait_of_a_dict_writes_every_name_in_order():
    exprs = {"b": tk.bind(tk.from_pyarrow(pc.field("y") < 3), XY),
             "a": tk.bind(tk.from_pyarrow(pc.field("x") + 1), XY)}
    back = pa_substrait.deserialize_expressions(tk.to_substrait(exprs, XY))
    assert list(back.expressions) == ["b", "a"]
    for name, ours in exprs.items():
        assert_same_values(arrow_value(back.expressions[name], XY_TABLE),
                           tk.evaluate(ours, XY_TABLE), name)


def test_to_substrait_names_its_one_expression_expression():
    ours = tk.bind(tk.from_pyarrow(pc.equal(pc.field("x"), 7)), XY)
    back = pa_substrait.deserialize_expressions(ours.to_substrait(XY))
    assert str(back.expressions["expression"]) == str(pc.equal(pc.field(0), 7))


def test_from_substrait_refuses_a_message_of_two_expressions():
    expr = pc.equal(pc.field("x"), 7)
    data = pa_substrait.serialize_expressions([expr, expr], ["first", "second"], XY)
    with pytest.raises(tk.SubstraitError, match="2|two|multiple|one"):
        tk.from_substrait(data)


@pytest.mark.parametrize("kind", ["bytes", "memoryview", "message"])
def test_from_substrait_takes_any_name_and_any_form(kind):
    data = pa_substrait.serialize_expressions([pc.equal(pc.field("x"), 7)], ["weirdname"], XY)
    if kind == "bytes":
        data = bytes(data)
    elif kind == "message":
        message = extended_expression_pb2.ExtendedExpression()
        message.ParseFromString(bytes(data))
        data = message
    assert str(tk.from_substrait(data)) == "(x == 7)"


ARROW_SPECIFIC = {
    "time_seconds": (pa.time32("s"), dt.time(0, 0)),
    "time_millis": (pa.time32("ms"), dt.time(0, 0)),
    "time_nanos": (pa.time64("ns"), dt.time(0, 0)),
    "date_millis": (pa.date64(), dt.date(1970, 1, 1)),
    "large_string": (pa.large_string(), "test_string"),
    "large_binary": (pa.large_binary(), b"test_string"),
}


@pytest.mark.parametrize("name", list(ARROW_SPECIFIC))
def test_arrow_specific_types_keep_their_type(name):
    """pyarrow writes these through Arrow's own extension types and reads them back
    exactly; exprscope's reading gives the same schema and the same answers."""
    schema = pa.schema([(n, t) for n, (t, _) in ARROW_SPECIFIC.items()])
    type_, value = ARROW_SPECIFIC[name]
    expr = pc.field(name) == pa.scalar(value, type=type_)
    data = pa_substrait.serialize_expressions([expr], ["test_expr"], schema)
    read = tk.from_substrait_all(data)
    assert read.schema == schema
    table = pa.table({n: pa.array([v, None], t) for n, (t, v) in ARROW_SPECIFIC.items()},
                     schema=schema)
    assert_same_values(tk.evaluate(read.expressions["test_expr"], table),
                       arrow_value(expr, table), name)


def test_one_way_types_read_back_as_their_plain_types():
    schema = pa.schema([("binary_view", pa.binary_view()), ("string_view", pa.string_view()),
                        ("dictionary", pa.dictionary(pa.int32(), pa.string())),
                        ("ree", pa.run_end_encoded(pa.int32(), pa.string()))])
    plain = pa.schema([("binary_view", pa.binary()), ("string_view", pa.string()),
                       ("dictionary", pa.string()), ("ree", pa.string())])
    for field in schema:
        data = pa_substrait.serialize_expressions([pc.is_null(pc.field(field.name))],
                                                  ["test_expr"], schema)
        assert tk.from_substrait_all(data).schema == plain, field.name


def test_writing_a_reference_to_a_missing_field_names_it():
    with pytest.raises(ExprscopeError, match="z"):
        tk.equal(tk.field("z"), tk.literal(7)).to_substrait(XY)


def test_function_without_a_substrait_mapping_is_named_when_written():
    """pyarrow refuses shift_left unless Arrow's own extension functions are allowed."""
    schema = pa.schema([("x", pa.uint32())])
    ours = tk.bind(tk.from_pyarrow(pc.shift_left(pc.scalar(10), pc.scalar(4))), schema)
    with pytest.raises(tk.SubstraitError, match="shift_left"):
        ours.to_substrait(schema)


def test_arrow_extension_function_is_read_or_refused_by_name():
    schema = pa.schema([("x", pa.uint32())])
    expr = pc.shift_left(pc.scalar(10), pc.scalar(4))
    data = pa_substrait.serialize_expressions([expr], ["expr"], schema,
                                              allow_arrow_extensions=True)
    try:
        ours = tk.from_substrait(data)
    except tk.SubstraitError as err:
        assert "shift_left" in str(err)
    else:
        assert tk.evaluate(ours, pa.table({"x": pa.array([1], pa.uint32())})).as_py() == 160


# --- Arrow C++'s engine/substrait/serde_test.cc -----------------------------------------

Lit = algebra_pb2.Expression.Literal

# (literal message fields, the value Arrow reads it as)
SUPPORTED_LITERALS = [
    ({"boolean": True}, pa.scalar(True)),
    ({"i8": 34}, pa.scalar(34, pa.int8())),
    ({"i16": 34}, pa.scalar(34, pa.int16())),
    ({"i32": 34}, pa.scalar(34, pa.int32())),
    ({"i64": 34}, pa.scalar(34, pa.int64())),
    ({"fp32": 3.5}, pa.scalar(3.5, pa.float32())),
    ({"fp64": 7.125}, pa.scalar(7.125, pa.float64())),
    ({"string": "hello world"}, pa.scalar("hello world")),
    ({"binary": b"zzz"}, pa.scalar(b"zzz", pa.binary())),
    ({"date": 5}, pa.scalar(5, pa.date32())),
    ({"fixed_binary": b"zzz"}, pa.scalar(b"zzz", pa.binary(3))),
    ({"decimal": Lit.Decimal(value=base64.b64decode("0gKWSQAAAAAAAAAAAAAAAA=="),
                             precision=27, scale=5)},
     # the 16 bytes are the unscaled integer 1234567890, little-endian
     pa.scalar(decimal.Decimal("12345.67890"), pa.decimal128(27, 5))),
    ({"precision_timestamp": Lit.PrecisionTimestamp(precision=6, value=579)},
     pa.scalar(579, pa.timestamp("us"))),
    ({"precision_timestamp_tz": Lit.PrecisionTimestamp(precision=6, value=579)},
     pa.scalar(579, pa.timestamp("us", "UTC"))),
    ({"empty_list": type_pb2.Type.List(type=sm.substrait_type("i32?"))},
     pa.scalar([], pa.list_(pa.int32()))),
    ({"struct": Lit.Struct(fields=[
        Lit(i64=32),
        Lit(list=Lit.List(values=[Lit(string="hello"), Lit(string="world")]))])},
     pa.StructArray.from_arrays([pa.array([32]), pa.array([["hello", "world"]])],
                                names=["", ""])[0]),
]
NULL_LITERALS = [
    ("bool?", pa.bool_()), ("i8?", pa.int8()), ("i64?", pa.int64()),
]


def _literal_ids(cases):
    return [next(iter(fields)) for fields, _ in cases]


@pytest.mark.parametrize("nullable", [False, True])
@pytest.mark.parametrize(("fields", "expected"), SUPPORTED_LITERALS,
                         ids=_literal_ids(SUPPORTED_LITERALS))
def test_supported_literal_reads_and_writes_back(fields, expected, nullable):
    message = sm.extended_expression(
        algebra_pb2.Expression(literal=Lit(**fields, nullable=nullable)))
    ours = tk.from_substrait(message.SerializeToString())
    empty = pa.table({"_": pa.array([0])}).select([])
    value = tk.evaluate(ours, pa.table({"_": [0]}))
    got = value if isinstance(value, pa.Scalar) else value[0]
    assert got.equals(expected), f"{got!r} != {expected!r}"
    # written back, both readers see the same value again
    data = ours.to_substrait(empty.schema)
    again = tk.evaluate(tk.from_substrait(data), pa.table({"_": [0]}))
    assert (again if isinstance(again, pa.Scalar) else again[0]).equals(got)
    arrow = arrow_value(pa_substrait.deserialize_expressions(data).expressions["expression"],
                        pa.table({"_": [0]}))
    assert arrow[0].equals(expected), f"Arrow reads back {arrow[0]!r}"


@pytest.mark.parametrize(("type_name", "arrow_type"), NULL_LITERALS)
def test_null_literal_keeps_its_type(type_name, arrow_type):
    message = sm.extended_expression(sm.literal("null", type_name))
    ours = tk.from_substrait(message.SerializeToString())
    assert ours.type == arrow_type
    value = tk.evaluate(ours, pa.table({"_": [0]}))
    assert (value if isinstance(value, pa.Scalar) else value[0]).as_py() is None


def test_list_literal_without_values_or_type_is_refused():
    message = sm.extended_expression(
        algebra_pb2.Expression(literal=Lit(list=Lit.List(values=[]))))
    with pytest.raises(tk.SubstraitError, match="list"):
        tk.from_substrait(message.SerializeToString())


FIELD_REFS = [
    pc.field("i32"), pc.field("struct"), pc.field(0), pc.field(1),
    pc.field(len(BORING) - 1), pc.field(BORING.get_field_index("struct")),
    pc.field("struct", "i32"), pc.field("struct", "struct_i32_str", "i32"),
    pc.field(BORING.get_field_index("struct"), 1),
]


@pytest.mark.parametrize("ref", FIELD_REFS, ids=str)
def test_field_reference_round_trip(ref):
    ours = read_from_arrow(ref, BORING, BORING_TABLE)
    write_to_arrow(ours, BORING, BORING_TABLE)
    data = ours.to_substrait(BORING)
    message = extended_expression_pb2.ExtendedExpression()
    message.ParseFromString(data)
    assert len(message.extensions) == 0, "a field reference needs no extension function"


def test_nested_reference_is_written_as_a_path_from_the_root():
    ours = tk.bind(tk.field("struct", "str"), BORING)
    message = extended_expression_pb2.ExtendedExpression()
    message.ParseFromString(ours.to_substrait(BORING))
    selection = message.referred_expr[0].expression.selection
    assert selection.HasField("root_reference")
    outer = selection.direct_reference.struct_field
    assert outer.field == BORING.get_field_index("struct")
    assert outer.child.struct_field.field == 1
    assert not outer.child.struct_field.HasField("child")


def _arrow_call(name, args, options=None):
    return pc.Expression._call(name, list(args), options)


SPECIAL_CASES = {
    "if_else": pc.if_else(pc.scalar(True), pc.field("struct", 1), pc.field("str")),
    "case_when": _arrow_call("case_when", [
        _arrow_call("make_struct", [pc.scalar(False), pc.scalar(True)],
                    pc.MakeStructOptions(["cond1", "cond2"])),
        pc.field("struct", "str"), pc.field("struct", "struct_i32_str", "str"),
        pc.field("str")]),
    "struct_field_of_if_else": _arrow_call(
        "struct_field", [pc.if_else(pc.scalar(True), pc.field("struct"), pc.field("struct"))],
        pc.StructFieldOptions([0])),
}


@pytest.mark.parametrize("name", list(SPECIAL_CASES))
def test_special_case_call_round_trip(name):
    """Substrait has core expressions for these (IfThen, field selection), so they need
    no extension function, but for `not`: Arrow's if_else is null where its condition
    is null, while Substrait's if_then takes the else there, so exprscope writes
    `if c then t; if not c then f` (Arrow's serializer writes one clause and loses it)."""
    ours = read_from_arrow(SPECIAL_CASES[name], BORING, BORING_TABLE)
    if name == "struct_field_of_if_else":
        # a struct-typed if_else has no typed null to take the rows where its condition is
        # null (Substrait's struct types carry no names), so it is written with no else,
        # which Substrait reads as null there and Acero does not read at all
        data = ours.to_substrait(BORING)
        assert tk.from_substrait(data).equals(ours)
        with pytest.raises(pa.ArrowNotImplementedError):
            pa_substrait.deserialize_expressions(data)
        return
    data = write_to_arrow(ours, BORING, BORING_TABLE)
    message = extended_expression_pb2.ExtendedExpression()
    message.ParseFromString(data)
    wanted = ["not"] if "if_else" in name else []
    assert [e.extension_function.name for e in message.extensions] == wanted


# pyarrow 26 reads list elements (a reference segment) but cannot write them, so
# these messages are built by hand; both consumers read the same bytes
LIST_ELEMENT_REFERENCES = {
    "list_element": [("field", 9), ("element", 2)],
    "struct_field_of_list_element": [("field", 11), ("element", 0), ("field", 1)],
    "nested_struct_field_of_list_element": [("field", 11), ("element", 0), ("field", 2),
                                            ("field", 0)],
}


@pytest.mark.parametrize("name", list(LIST_ELEMENT_REFERENCES))
def test_list_element_reference_round_trip(name):
    message = sm.extended_expression(sm.reference(*LIST_ELEMENT_REFERENCES[name]),
                                     base_schema=_boring_named_struct())
    arrow = pa_substrait.deserialize_expressions(sm.for_arrow(message)).expressions["e0"]
    # struct fields inside lists have no names in the message: bound again to the table
    ours = tk.bind(tk.from_substrait(message.SerializeToString()), BORING)
    assert ours.type == arrow_value(arrow, BORING_TABLE).type
    assert_same_values(tk.evaluate(ours, BORING_TABLE), arrow_value(arrow, BORING_TABLE), name)
    data = write_to_arrow(ours, BORING, BORING_TABLE)
    written = extended_expression_pb2.ExtendedExpression()
    written.ParseFromString(data)
    assert len(written.extensions) == 0


def test_extension_call_declares_one_function():
    ours = tk.bind(tk.from_pyarrow(pc.add(pc.scalar(0), pc.scalar(1))), BORING)
    message = extended_expression_pb2.ExtendedExpression()
    message.ParseFromString(write_to_arrow(ours, BORING, BORING_TABLE))
    assert [e.extension_function.name for e in message.extensions] == ["add"]


def _cast_message(behavior, *, nullable=True):
    cast = algebra_pb2.Expression(cast=algebra_pb2.Expression.Cast(
        type=sm.substrait_type("fp64", nullable=nullable), input=sm.field(2),
        failure_behavior=behavior))
    return sm.extended_expression(cast, base_schema=_boring_named_struct())


def _boring_named_struct():
    """BORING as a NamedStruct, the way pyarrow writes it."""
    data = pa_substrait.serialize_expressions([pc.field("i32")], ["e"], BORING)
    message = extended_expression_pb2.ExtendedExpression()
    message.ParseFromString(bytes(data))
    return message.base_schema


def test_cast_with_a_failure_behavior_reads_as_a_cast():
    behavior = algebra_pb2.Expression.Cast.FailureBehavior.FAILURE_BEHAVIOR_THROW_EXCEPTION
    ours = tk.from_substrait(_cast_message(behavior).SerializeToString())
    assert ours.type == pa.float64()
    assert_same_values(tk.evaluate(ours, BORING_TABLE),
                       pc.cast(BORING_TABLE["i32"], pa.float64()), "cast")


def test_cast_without_a_failure_behavior_reads_as_a_safe_cast():
    """Substrait leaves an unspecified failure behavior to the consumer (Arrow refuses
    it); exprscope reads a cast that raises where it would lose a value, Arrow's safe cast."""
    behavior = algebra_pb2.Expression.Cast.FailureBehavior.FAILURE_BEHAVIOR_UNSPECIFIED
    ours = tk.from_substrait(_cast_message(behavior).SerializeToString())
    assert ours.name == "cast" and not any(
        v for k, v in option_values(ours.options).items() if k.startswith("allow"))


@pytest.mark.parametrize("target", [pa.float64(), pa.int64(), pa.string()], ids=str)
def test_cast_from_arrow_round_trip(target):
    """pyarrow writes only unsafe casts (Substrait has no safe flag)."""
    ours = read_from_arrow(pc.field("i32").cast(target, safe=False), BORING, BORING_TABLE)
    write_to_arrow(ours, BORING, BORING_TABLE)


@pytest.mark.parametrize("names", [[], ["a", "b", "c", "d"]], ids=["too few", "too many"])
def test_base_schema_with_the_wrong_number_of_names_is_refused(names):
    message = sm.extended_expression(sm.literal("1", "i32"))
    message.base_schema.CopyFrom(type_pb2.NamedStruct(
        names=names, struct=type_pb2.Type.Struct(
            types=[sm.substrait_type("i32")] * 3, nullability=sm.REQUIRED)))
    with pytest.raises(tk.SubstraitError, match="(?i)name"):
        tk.from_substrait(message.SerializeToString())


@pytest.mark.parametrize("type_", [
    pa.dense_union([pa.field("i8", pa.int8()), pa.field("f32", pa.float32())]),
    pa.sparse_union([pa.field("i8", pa.int8()), pa.field("f32", pa.float32())]),
    pa.duration("us"), pa.large_list(pa.string()), pa.list_(pa.float16(), 3),
    pa.decimal256(76, 67),
], ids=str)
def test_type_without_a_substrait_equivalent_is_refused_naming_the_column(type_):
    schema = pa.schema([("col", type_)])
    ours = tk.bind(tk.is_null(tk.field("col")), schema)
    with pytest.raises(tk.SubstraitError, match="col"):
        ours.to_substrait(schema)
