"""Substrait ExtendedExpressions in and out: what pyarrow, DataFusion and others send.

    e = tk.from_substrait(data)             # one expression, bound, fields by name
    all_ = tk.from_substrait_all(data)      # .expressions {name: Expression}, .schema
    data = e.to_substrait(schema)           # bytes pyarrow.substrait reads

Whatever `to_substrait` writes, `from_substrait` reads back: the writer reads its
own bytes before returning them, so a tree too deep for protobuf's readers is
refused when written (naming its depth and the readers' limit), not when
someone else reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
from substrait.extended_expression_pb2 import ExtendedExpression

from ...errors import BindError, SubstraitError
from ...functions.bind import bind, schema_of
from ...model.expression import Expression, as_expression
from ...support import late
from ...support.visible_text import visible
from .limits import MAX_NESTING, nesting, readable_bytes
from .messages import (
    declare_functions,
    decode,
    function_names,
    producer,
    stamp_version,
    user_types,
)
from .read import ExpressionReader
from .types import schema_from_substrait, schema_to_substrait
from .write import ExpressionWriter, tree_shape

__all__ = ["BoundExpressions", "from_substrait", "from_substrait_all", "to_substrait"]

DEFAULT_NAME = "expression"
# an ExtendedExpression holds each expression in an ExpressionReference: two levels
_ENVELOPE = 2


@dataclass(frozen=True)
class BoundExpressions:
    """The expressions of one ExtendedExpression, bound to its base schema."""

    expressions: dict[str, Expression]
    schema: pa.Schema


def from_substrait_all(data) -> BoundExpressions:
    """Every expression of a Substrait ExtendedExpression, by its output name, bound."""
    message = decode(data, ExtendedExpression, "from_substrait")
    if not message.HasField("base_schema"):
        raise SubstraitError("from_substrait: the message has no base_schema, so its field "
                             "references name nothing")
    types = user_types(message)
    schema = schema_from_substrait(message.base_schema, user_types=types)
    reader = ExpressionReader(function_names(message), schema, producer(message), types)
    out: dict[str, Expression] = {}
    for i, referred in enumerate(message.referred_expr):
        where = f"referred_expr[{i}]"
        kind = referred.WhichOneof("expr_type")
        if kind != "expression":
            held = f"a {kind}" if kind else "empty"
            raise SubstraitError(f"{where} is {held}; exprscope reads scalar expressions "
                                 "(aggregates belong in a plan)")
        name = _own_name(list(referred.output_names), producer(message)) or f"{DEFAULT_NAME}{i}"
        if name in out:
            raise SubstraitError(f"two expressions are named {visible(name)!r} (at {where})")
        tree = reader.read(referred.expression, where + ".expression")
        try:
            out[name] = bind(tree, schema)
        except BindError as exc:
            raise SubstraitError(f"{where} ({visible(name)!r}) does not bind to the message's "
                                 f"schema: {exc}") from None
    if not out:
        raise SubstraitError("from_substrait: the message holds no expression")
    return BoundExpressions(out, schema)


def from_substrait(data) -> Expression:
    """The one expression of a Substrait ExtendedExpression, bound to its base schema."""
    found = from_substrait_all(data)
    if len(found.expressions) != 1:
        names = ", ".join(visible(n) for n in list(found.expressions)[:8])
        raise SubstraitError(f"the message holds {len(found.expressions)} expressions "
                             f"({names}); tk.from_substrait_all(data) returns them all "
                             "by name, with the schema")
    return next(iter(found.expressions.values()))


def to_substrait(expressions, schema) -> bytes:
    """An ExtendedExpression holding `expressions` (one, or a dict name -> expression)
    bound to `schema`, as bytes pyarrow.substrait.deserialize_expressions reads."""
    schema = schema_of(schema)
    if isinstance(expressions, dict):
        named = dict(expressions)
    else:
        named = {DEFAULT_NAME: expressions}
    if not named:
        raise SubstraitError("to_substrait needs at least one expression")
    message = ExtendedExpression()
    writer = ExpressionWriter()
    bound_by_name: dict[str, Expression] = {}
    for name, expr in named.items():
        if not isinstance(name, str):
            raise SubstraitError(f"expression names must be strings, got {type(name).__name__}")
        bound = bound_by_name[name] = bind(as_expression(expr), schema)
        referred = message.referred_expr.add()
        try:
            referred.expression.CopyFrom(writer.write(bound))
        except SubstraitError as exc:
            if isinstance(expressions, dict):  # which of them
                raise SubstraitError(f"{visible(name)!r}: {exc}") from None
            raise
        referred.output_names.extend(_output_names(name, bound.type))
    schema_to_substrait(schema, message.base_schema, writer.user_types)
    declare_functions(message, writer.anchors, writer.user_types)
    stamp_version(message)
    data = readable_bytes(message)
    if data is None:
        raise _too_deep(message, bound_by_name)
    return data


def _too_deep(message: ExtendedExpression, bound: dict[str, Expression]) -> SubstraitError:
    """Which expression nests past what protobuf's readers take, and how deep."""
    for (name, expr), referred in zip(bound.items(), message.referred_expr):
        depth = nesting(referred.expression) + _ENVELOPE
        if depth > MAX_NESTING:
            levels = tree_shape(expr).depth
            return SubstraitError(
                f"{visible(name)!r} ({levels} levels deep) is written as messages nested "
                f"{depth} deep in its ExtendedExpression; protobuf's readers (pyarrow's, "
                f"DataFusion's, Python's) take {MAX_NESTING} at most")
    return SubstraitError(f"the ExtendedExpression nests {nesting(message)} messages deep; "
                          f"protobuf's readers take {MAX_NESTING} at most")


def _output_names(name: str, t: pa.DataType) -> list[str]:
    """The names of an expression's output and of every field nested in it, as pyarrow
    writes and reads them: each field's nested names first, then its own (a list's
    values are `item`)."""
    def nested(t: pa.DataType) -> list[str]:
        if pa.types.is_struct(t):
            return [n for f in t for n in (*nested(f.type), f.name)]
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return [*nested(t.value_type), "item"]
        return []
    return [*nested(t), name]


def _own_name(names: list[str], producer: str) -> str | None:
    """The expression's own name among its output names: pyarrow (and exprscope, which
    writes as pyarrow reads) put it last, after its nested fields' names; the
    specification's depth-first order puts it first."""
    if not names:
        return None
    return names[-1] if producer.startswith(("Acero", "exprscope")) else names[0]


late.provide("to_substrait", to_substrait)
