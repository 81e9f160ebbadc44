"""Hand-built Substrait messages for the interop tests, with the generated protobuf classes.

Cases are written the way Substrait's own function tests write them: a literal is
its text and a type name (`("120", "i8")`, `("null", "fp64?")`, `("7.25",
"dec<38,2>")`); a trailing `?` makes the type nullable. `extended_expression`
wraps one scalar-function call (or any `algebra_pb2.Expression`) in an
ExtendedExpression over a base schema, declaring its function under a Substrait
extension URN.

pyarrow 26 still writes and reads the older encoding of extensions (a URI table
in field 1 of ExtendedExpression, referenced from field 1 of each function
declaration), which the current generated classes no longer know. `for_arrow`
re-encodes a message built here that way, so that pyarrow's consumer can act as
the oracle on exactly the same call.
"""

from __future__ import annotations

import decimal
import math
import re

import pyarrow as pa
from substrait import algebra_pb2, extended_expression_pb2, type_pb2
from substrait.extensions import extensions_pb2

NULLABLE = type_pb2.Type.Nullability.NULLABILITY_NULLABLE
REQUIRED = type_pb2.Type.Nullability.NULLABILITY_REQUIRED

URN_PREFIX = "extension:io.substrait:"
# the URI pyarrow writes for the same extension file
ARROW_URI_PREFIX = "https://github.com/substrait-io/substrait/blob/main/extensions/"

_SIMPLE = {"bool": "bool", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
           "fp32": "fp32", "fp64": "fp64", "string": "string", "binary": "binary",
           "date": "date"}
_ARROW = {"bool": pa.bool_(), "i8": pa.int8(), "i16": pa.int16(), "i32": pa.int32(),
          "i64": pa.int64(), "fp32": pa.float32(), "fp64": pa.float64(),
          "string": pa.string(), "binary": pa.binary(), "date": pa.date32()}
_DECIMAL = re.compile(r"dec(\??)<(\d+),(\d+)>$")


def parse_type(name: str) -> tuple[str, bool, tuple[int, int] | None]:
    """("i8?",) -> ("i8", True, None); "dec?<38,2>" -> ("dec", True, (38, 2))."""
    name = name.replace(" ", "")
    m = _DECIMAL.match(name)
    if m:
        return "dec", bool(m.group(1)), (int(m.group(2)), int(m.group(3)))
    nullable = name.endswith("?")
    base = name.rstrip("?")
    if base not in _SIMPLE:
        raise ValueError(f"type {name!r} is not one these cases use")
    return base, nullable, None


def arrow_type(name: str) -> pa.DataType:
    base, _, dec = parse_type(name)
    return pa.decimal128(*dec) if base == "dec" else _ARROW[base]


def substrait_type(name: str, *, nullable: bool | None = None) -> type_pb2.Type:
    base, is_nullable, dec = parse_type(name)
    nullability = NULLABLE if (is_nullable if nullable is None else nullable) else REQUIRED
    if base == "dec":
        return type_pb2.Type(decimal=type_pb2.Type.Decimal(
            precision=dec[0], scale=dec[1], nullability=nullability))
    kind = _SIMPLE[base]
    message = getattr(type_pb2.Type, {"bool": "Boolean", "i8": "I8", "i16": "I16",
                                      "i32": "I32", "i64": "I64", "fp32": "FP32",
                                      "fp64": "FP64", "string": "String",
                                      "binary": "Binary", "date": "Date"}[base])
    return type_pb2.Type(**{kind: message(nullability=nullability)})


def python_value(text: str, type_name: str):
    """The Python value a literal's text stands for (None for null)."""
    base, _, dec = parse_type(type_name)
    if text.lower() == "null":
        return None
    if base == "bool":
        return {"true": True, "false": False}[text]
    if base in ("fp32", "fp64"):
        return float(text)
    if base == "dec":
        return decimal.Decimal(text).quantize(decimal.Decimal(1).scaleb(-dec[1]))
    return int(text)


def literal(text: str, type_name: str) -> algebra_pb2.Expression:
    """A literal expression from its case text, e.g. literal("-128", "i8")."""
    base, nullable, dec = parse_type(type_name)
    value = python_value(text, type_name)
    if value is None:
        lit = algebra_pb2.Expression.Literal(null=substrait_type(type_name, nullable=True))
    elif base == "dec":
        unscaled = int(value.scaleb(dec[1]))
        lit = algebra_pb2.Expression.Literal(decimal=algebra_pb2.Expression.Literal.Decimal(
            value=unscaled.to_bytes(16, "little", signed=True),
            precision=dec[0], scale=dec[1]), nullable=nullable)
    elif base == "bool":
        lit = algebra_pb2.Expression.Literal(boolean=value, nullable=nullable)
    else:
        lit = algebra_pb2.Expression.Literal(**{base: value}, nullable=nullable)
    return algebra_pb2.Expression(literal=lit)


def field(*path: int) -> algebra_pb2.Expression:
    """A direct reference into the root struct, nested by index: field(2, 0)."""
    segment = None
    for index in reversed(path):
        child = segment
        segment = algebra_pb2.Expression.ReferenceSegment(
            struct_field=algebra_pb2.Expression.ReferenceSegment.StructField(
                field=index, child=child))
    return algebra_pb2.Expression(selection=algebra_pb2.Expression.FieldReference(
        direct_reference=segment,
        root_reference=algebra_pb2.Expression.FieldReference.RootReference()))


def reference(*steps: tuple[str, int]) -> algebra_pb2.Expression:
    """A direct reference from the root through struct fields ("field", i) and list
    elements ("element", offset): reference(("field", 11), ("element", 0))."""
    Segment = algebra_pb2.Expression.ReferenceSegment
    segment = None
    for kind, index in reversed(steps):
        child = segment
        if kind == "field":
            segment = Segment(struct_field=Segment.StructField(field=index, child=child))
        else:
            segment = Segment(list_element=Segment.ListElement(offset=index, child=child))
    return algebra_pb2.Expression(selection=algebra_pb2.Expression.FieldReference(
        direct_reference=segment,
        root_reference=algebra_pb2.Expression.FieldReference.RootReference()))


def call(anchor: int, args, output: type_pb2.Type, options=None) -> algebra_pb2.Expression:
    """A scalar-function call of the function declared at `anchor`."""
    return algebra_pb2.Expression(scalar_function=algebra_pb2.Expression.ScalarFunction(
        function_reference=anchor,
        arguments=[algebra_pb2.FunctionArgument(value=a) for a in args],
        output_type=output,
        options=[algebra_pb2.FunctionOption(name=k, preference=[v])
                 for k, v in (options or {}).items()]))


def named_struct(schema: pa.Schema) -> type_pb2.NamedStruct:
    """A base schema of flat columns of the simple types above."""
    reverse = {v: k for k, v in _ARROW.items()}
    return type_pb2.NamedStruct(
        names=list(schema.names),
        struct=type_pb2.Type.Struct(
            types=[substrait_type(reverse[f.type], nullable=f.nullable) for f in schema],
            nullability=REQUIRED))


def extended_expression(expressions, *, functions=(), base_schema=None,
                        names=None) -> extended_expression_pb2.ExtendedExpression:
    """An ExtendedExpression holding `expressions` (one Expression or a list).

    `functions` declares, in anchor order 0, 1, ..., pairs (extension, name), e.g.
    ("functions_arithmetic", "add"); the extension is written as the URN
    extension:io.substrait:<extension>. `base_schema` is a NamedStruct (default: empty).
    """
    if isinstance(expressions, algebra_pb2.Expression):
        expressions = [expressions]
    names = names or [f"e{i}" for i in range(len(expressions))]
    files = list(dict.fromkeys(ext for ext, _ in functions))
    message = extended_expression_pb2.ExtendedExpression(
        extension_urns=[extensions_pb2.SimpleExtensionURN(extension_urn_anchor=i + 1,
                                                          urn=URN_PREFIX + f)
                        for i, f in enumerate(files)],
        extensions=[extensions_pb2.SimpleExtensionDeclaration(
            extension_function=extensions_pb2.SimpleExtensionDeclaration.ExtensionFunction(
                extension_urn_reference=files.index(ext) + 1, function_anchor=anchor,
                name=name))
            for anchor, (ext, name) in enumerate(functions)],
        referred_expr=[extended_expression_pb2.ExpressionReference(
            expression=e, output_names=[n]) for e, n in zip(expressions, names)],
        base_schema=base_schema or type_pb2.NamedStruct(
            struct=type_pb2.Type.Struct(nullability=REQUIRED)))
    return message


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _length_delimited(field_number: int, payload: bytes) -> bytes:
    return _varint(field_number << 3 | 2) + _varint(len(payload)) + payload


def for_arrow(message: extended_expression_pb2.ExtendedExpression) -> bytes:
    """The same message with its extensions in the URI encoding pyarrow 26 reads.

    Each URN becomes a URI entry (field 1: anchor, uri) and each function
    declaration refers to it through field 1 instead of the URN reference.
    """
    copy = extended_expression_pb2.ExtendedExpression()
    copy.CopyFrom(message)
    urns = {u.extension_urn_anchor: u.urn for u in copy.extension_urns}
    del copy.extension_urns[:]
    declarations = []
    for decl in copy.extensions:
        fn = decl.extension_function
        inner = (_varint(1 << 3) + _varint(fn.extension_urn_reference)
                 + _varint(2 << 3) + _varint(fn.function_anchor)
                 + _length_delimited(3, fn.name.encode()))
        declarations.append(_length_delimited(2, _length_delimited(3, inner)))
    del copy.extensions[:]
    uris = b"".join(
        _length_delimited(1, _varint(1 << 3) + _varint(anchor)
                          + _length_delimited(2, (ARROW_URI_PREFIX + urn.removeprefix(
                              URN_PREFIX) + ".yaml").encode()))
        for anchor, urn in urns.items())
    return uris + b"".join(declarations) + copy.SerializeToString()


def same_float(got: float, expected: float, type_name: str) -> bool:
    """Equal for these cases: NaN is NaN, infinities exactly, finite values within
    the precision of the type (the cases print decimal approximations)."""
    if math.isnan(expected):
        return math.isnan(got)
    if math.isinf(expected) or expected == 0:
        return got == expected
    tolerance = 2e-7 if type_name.startswith("fp32") else 1e-14
    return math.isclose(got, expected, rel_tol=tolerance)
