"""bind(expr, schema): resolve field references, pick kernels, insert implicit casts.

Arrow's Bind (docs/semantics.md §4): literals stay; a field reference finds its
field; a call binds its arguments and then runs `bind_call` (Arrow's
BindNonRecursive): exact dispatch, else narrowed literals and best dispatch with
implicit casts (a literal is re-typed, anything else is wrapped in a safe
`cast`), then the kernel's option check and the output type. The walk is
iterative, so 10,000-deep expressions bind.
"""

from __future__ import annotations

import struct

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import BindError, NoKernelError
from ..model.expression import Call, Expression, Literal, Parameter, from_pyarrow, postorder
from ..model.field_ref import FieldPath
from ..model.scalar_values import python_value
from ..support import late
from ..support.bounded_cache import BoundedCache
from . import get_function
from .cast import safe_cast_options
from .resolution import output_type, resolve

__all__ = ["Binder", "bind", "bind_call", "schema_of"]


def schema_of(schema_or_data) -> pa.Schema:
    """A pa.Schema from a schema, a Table, a RecordBatch or anything with `.schema`."""
    if isinstance(schema_or_data, pa.Schema):
        return schema_or_data
    schema = getattr(schema_or_data, "schema", None)
    if isinstance(schema, pa.Schema):
        return schema
    raise BindError(f"bind needs a pyarrow Schema, Table or RecordBatch, not "
                    f"{type(schema_or_data).__name__}")


def bind(expr: Expression, schema) -> Expression:
    """A bound copy of `expr`: every field typed, every call with its kernel and type.

    Subtrees already bound to the same fields come back as they are (the same
    objects), so binding a bound tree again costs one walk, not a rebuild.
    """
    if isinstance(expr, pc.Expression):
        expr = from_pyarrow(expr)
    if not isinstance(expr, Expression):
        raise BindError(f"bind needs an Expression, not {type(expr).__name__}")
    binder = Binder(schema_of(schema))
    bound: dict[int, Expression] = {}
    for node in postorder(expr):
        bound[id(node)] = binder.node(node, [bound[id(a)] for a in node.args])
    return bound[id(expr)]


class Binder:
    """Binds one node at a time, each after its arguments (Arrow's BindNonRecursive per
    call): what `bind` runs over a tree, and what evaluation's preparation runs inside
    its one walk. Each distinct field reference is resolved once per binder."""

    __slots__ = ("_resolved", "schema")

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self._resolved: dict[object, Parameter] = {}

    def node(self, node: Expression, args: list[Expression]) -> Expression:
        """`node` bound to the schema, given its arguments already bound (in order)."""
        if node.is_literal:
            return node
        if node.is_field:
            known = self._resolved.get(node.ref)
            if known is None:
                out = self._resolved[node.ref] = _bind_parameter(node, self.schema)
            else:  # a node of its own (positions stay distinct), the resolution shared
                out = Parameter(node.ref, known.field_type, known.path, known.nullable)
            if (node.field_type is not None and node.path == out.path
                    and node.field_type == out.field_type and node.nullable == out.nullable):
                return node  # already bound to this very field
            return out
        if (node.is_bound and all(new is old for new, old in zip(args, node.args))
                and node.function is _registered(node.name)):
            return node  # bound over the same arguments, by the function registered now
        try:
            return bind_call(Call(node.name, args, node.options))
        except BindError as exc:
            if isinstance(exc, NoKernelError) and exc.call is None:
                exc.call = node  # as written: the parser knows where it stands
            exc.add_note(f"while binding {_short(node)}")
            raise


def _registered(name: str):
    try:
        return get_function(name)
    except BindError:
        return None


def _bind_parameter(node: Parameter, schema: pa.Schema) -> Parameter:
    path = node.ref.find_one(schema)  # FieldRefError names the ref and the schema
    nullable = False
    parent = schema
    field = None
    for i in path.indices:
        field = parent.field(i)
        nullable = nullable or field.nullable
        parent = field.type
    return Parameter(node.ref, field.type, FieldPath(path.indices), nullable)


def bind_call(call: Call, insert_implicit_casts: bool = True) -> Call:
    """Bind one call whose arguments are bound (Arrow's BindNonRecursive)."""
    function = get_function(call.name)
    args = list(call.args)
    for i, arg in enumerate(args):
        if arg.type is None:
            raise BindError(f"argument {i} of {call.name} is not bound: {_short(arg)}")
    resolution = resolve(function, args, insert_implicit_casts)
    if not resolution.exact:
        args = [_cast_to(arg, target, via)
                for arg, target, via in zip(args, resolution.types, resolution.narrowed)]
    _check_options_class(function, call.options)
    options = call.options if call.options is not None else function.default_options
    types = list(resolution.types)
    if function.init is not None:
        function.init(function, resolution.kernel, types, options)
    out_type = output_type(call.name, resolution.given, resolution, options)
    return Call(call.name, args, call.options, function=function, kernel=resolution.kernel,
                call_type=out_type)


def _check_options_class(function, options) -> None:
    """Options of the wrong class would fail only when the kernel runs; Arrow's init refuses."""
    if options is None:
        return
    expected = function.options_class
    if expected is None:
        raise BindError(f"Function '{function.name}' takes no options, but "
                        f"{type(options).__name__} was given")
    if not isinstance(options, expected):
        raise BindError(f"Function '{function.name}' expects {expected.__name__}, "
                        f"not {type(options).__name__}")


def _cast_to(arg: Expression, target: pa.DataType, narrowed: pa.DataType) -> Expression:
    """The argument as `target`: unchanged, a re-typed literal, or a safe cast call.

    A literal goes through its narrowed type first: the value is the same, and
    pyarrow's type-level checks (int64 -> decimal(7, 2) "needs precision 21")
    then judge the type that dispatch actually chose from.
    """
    if arg.type == target:
        return arg
    if arg.is_literal:
        return _cast_literal(arg, target, narrowed)
    return bind_call(Call("cast", [arg], safe_cast_options(target)), insert_implicit_casts=False)


# Re-typed literals by (type, value, target): `x + 1 + 1 + ...` casts the same `1` each time,
# and a pyarrow scalar cast costs more than the rest of binding a call.
_LITERAL_CASTS = BoundedCache(4096)  # (type, value, target, narrowed) -> the cast literal


def _value_key(value: pa.Scalar):
    """The literal's value for the cache, by its bits where `==` would merge two values.

    Python finds `-0.0 == 0.0` (and NaN unequal to itself), so floats are keyed by
    their IEEE bytes: a `-0.0` must never come back as the `0.0` cast earlier.
    """
    py = python_value(value)
    if isinstance(py, float):
        return struct.pack("<d", py)
    return py


def _cast_literal(arg: Literal, target: pa.DataType, narrowed: pa.DataType) -> Literal:
    value = arg.value
    key = None
    if isinstance(value, pa.Scalar) and not pa.types.is_nested(value.type):
        try:
            key = (value.type, _value_key(value), target, narrowed)
            hit = _LITERAL_CASTS.get(key)
            if hit is not None:
                return hit
        except (TypeError, ValueError, pa.ArrowException):  # unhashable or unconvertible
            key = None
    try:
        if narrowed != value.type and narrowed != target:
            value = pc.cast(value, narrowed, safe=True)
        out = Literal(pc.cast(value, target, safe=True))
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise BindError(f"cannot cast literal {arg} ({arg.type}) to {target}: {exc}") from exc
    if key is not None:
        _LITERAL_CASTS.put(key, out)
    return out


def _short(node: Expression) -> str:
    text = node.to_string()
    return text if len(text) <= 120 else text[:117] + "..."


late.provide("bind", bind)
