"""The expression model: Literal | Parameter (a field reference) | Call.

Immutable, structurally hashable and comparable with `.equals()`, as Arrow's
`compute::Expression`. Python operators build calls as pyarrow's do, so
`field("a") + 1 > 3` is `greater(add_checked(a, 1), 3)` (arithmetic operators
build the checked kernels: an overflow raises instead of wrapping, in both
libraries); `==` builds an `equal` call, which is why `bool(expr)` refuses and
points at `.equals()`.

Everything that walks a tree here uses an explicit stack: 10,000-deep chains
(a long `a + 1 + 1 + ...`) hash, compare and print without RecursionError.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import BuildError, PyarrowConversionError, UsageError
from ..support import late
from ..support.visible_text import visible, visible_lines
from .field_ref import FieldPath, FieldRef
from .options import field_names, options_equal, options_short_text, options_to_string
from .pyarrow import tokens as pyarrow_tokens
from .scalar_values import python_value

__all__ = [
    "COMPARISON_SYMBOLS",
    "Call",
    "Expression",
    "Literal",
    "Parameter",
    "as_expression",
    "postorder",
]

_set = object.__setattr__  # nodes are immutable; only their constructors set attributes

COMPARISON_SYMBOLS = {
    "equal": "==",
    "not_equal": "!=",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
}


class Expression:
    """Base of the three node kinds. Use the builders in `toolkit` to make one."""

    __slots__ = ()
    kind: str = "expression"

    # -- structure -------------------------------------------------------------
    @property
    def args(self) -> tuple[Expression, ...]:
        return ()

    @property
    def is_literal(self) -> bool:
        return False

    @property
    def is_field(self) -> bool:
        return False

    @property
    def is_call(self) -> bool:
        return False

    @property
    def type(self) -> pa.DataType | None:
        """The output type: a literal's own, otherwise set by binding (None before)."""
        return None

    def to_pyarrow(self) -> pc.Expression:
        """The same expression as a pyarrow.compute.Expression (unbound, as pyarrow's are)."""
        built: dict[int, pc.Expression] = {}
        for node in postorder(self):
            if node.is_literal:
                if isinstance(node.value, pa.Array):
                    raise PyarrowConversionError(
                        f"an array literal ({node}) has no pyarrow expression form")
                out = pc.scalar(node.value)
            elif node.is_field:
                out = _pyarrow_field(node.ref)
            else:
                out = pc.Expression._call(node.name, [built[id(a)] for a in node.args],
                                          node.options)
            built[id(node)] = out
        return built[id(self)]

    def to_substrait(self, schema) -> bytes:
        """This expression, bound to `schema`, as a Substrait ExtendedExpression's bytes
        (what pyarrow.substrait.deserialize_expressions reads); see toolkit.interop."""
        return late.operation("to_substrait")(self, schema)

    @property
    def is_bound(self) -> bool:
        """Arrow's IsBound: every node has a type and every call a kernel.

        O(1): a leaf answers for itself and a call remembers the answer for its
        subtree from construction (nodes are immutable).
        """
        return self._all_bound()

    def _all_bound(self) -> bool:
        """Whether this node and everything below it is bound (a leaf: itself)."""
        return True

    # -- equality and hash -------------------------------------------------------
    def equals(self, other: object) -> bool:
        """Structural equality (Arrow's Equals, but argument counts are compared)."""
        if not isinstance(other, Expression):
            return False
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or hash(a) != hash(b) or not a._shallow_equals(b):
                return False
            if a.is_call:
                stack.extend(zip(a.args, b.args))
        return True

    def _shallow_equals(self, other: Expression) -> bool:
        raise UsageError(f"{type(self).__name__} is not one of Literal, Parameter, Call")

    def __hash__(self) -> int:
        return self._hash

    def __setattr__(self, name, value):
        raise AttributeError(
            f"{type(self).__name__} is immutable: build a new expression instead "
            "(e.g. call.with_args(...))")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __bool__(self):
        raise UsageError(
            "an Expression has no truth value: `==` builds an `equal` call. "
            "Use `a.equals(b)` to compare expressions."
        )

    # -- text --------------------------------------------------------------------
    def to_string(self, shown: bool = False, short: bool = False) -> str:
        """Arrow's ToString format, e.g. `(add(a, 1) > 3)`.

        `shown=True` (what `str()` and `repr()` print): every name, literal and
        option spelled through `visible`, so a name with a newline or a zero-width
        space in it never prints like another; only the line breaks Arrow itself
        puts into a value set stay. `short=True`: options only where they differ
        from Arrow's defaults, on one line (`cast(a, {to_type=double})`), for text
        a person reads in a plan; never for text a program reads back.

        Streamed: each node gives a template of text pieces and argument slots,
        expanded with an explicit stack and joined once, so a 10,000-deep chain
        prints in linear time without building every intermediate string.
        """
        out: list[str] = []
        stack: list = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                if shown:
                    item = (visible_lines(item) if isinstance(item, _ArrowLayout)
                            else visible(item))
                out.append(item)
                continue
            template = item._short_template() if short and item.is_call \
                else item._template()
            args = item.args
            for piece in reversed(template):
                stack.append(args[piece] if isinstance(piece, int) else piece)
        return "".join(out)

    def _template(self) -> list:
        """Text pieces (str) and argument slots (int index) that print this node."""
        raise UsageError(f"{type(self).__name__} is not one of Literal, Parameter, Call")

    def __str__(self) -> str:
        """`to_string()` as a person reads it: invisible characters in names and
        literals spelled out, so no name prints like another. Line breaks stay, as
        Arrow prints a value set over lines; `repr` spells those out too."""
        return self.to_string(shown=True)

    def __repr__(self) -> str:
        text = visible(self.to_string(shown=True))
        if len(text) > 200:
            text = text[:197] + "..."
        return f"<toolkit.Expression {text}>"

    def to_sql(self) -> str:
        """SQL-like text that `toolkit.parse` reads back to an equal expression."""
        return late.operation("to_sql")(self)

    def bind(self, schema) -> Expression:
        """This expression bound against `schema` (`toolkit.bind`, which imports this module)."""
        return late.operation("bind")(self, schema)

    def field_refs(self) -> list[FieldRef]:
        """The field references in the tree, in pre-order, duplicates kept once."""
        seen: dict[FieldRef, None] = {}
        for node in preorder(self):
            if node.is_field:
                seen.setdefault(node.ref, None)
        return list(seen)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return late.mimebundle(self)

    # -- operators build calls (arithmetic: the checked kernels, as pyarrow's do) ------
    def _binary(self, name: str, other: Any, reflected: bool = False) -> Call:
        other = as_expression(other)
        return Call(name, (other, self) if reflected else (self, other))

    def __eq__(self, other):  # type: ignore[override]
        return self._binary("equal", other)

    def __ne__(self, other):  # type: ignore[override]
        return self._binary("not_equal", other)

    def __lt__(self, other):
        return self._binary("less", other)

    def __le__(self, other):
        return self._binary("less_equal", other)

    def __gt__(self, other):
        return self._binary("greater", other)

    def __ge__(self, other):
        return self._binary("greater_equal", other)

    def __add__(self, other):
        return self._binary("add_checked", other)

    def __radd__(self, other):
        return self._binary("add_checked", other, reflected=True)

    def __sub__(self, other):
        return self._binary("subtract_checked", other)

    def __rsub__(self, other):
        return self._binary("subtract_checked", other, reflected=True)

    def __mul__(self, other):
        return self._binary("multiply_checked", other)

    def __rmul__(self, other):
        return self._binary("multiply_checked", other, reflected=True)

    def __truediv__(self, other):
        return self._binary("divide_checked", other)

    def __rtruediv__(self, other):
        return self._binary("divide_checked", other, reflected=True)

    def __pow__(self, other):
        return self._binary("power_checked", other)

    def __rpow__(self, other):
        return self._binary("power_checked", other, reflected=True)

    def __and__(self, other):
        return self._binary("and_kleene", other)

    def __rand__(self, other):
        return self._binary("and_kleene", other, reflected=True)

    def __or__(self, other):
        return self._binary("or_kleene", other)

    def __ror__(self, other):
        return self._binary("or_kleene", other, reflected=True)

    def __xor__(self, other):
        return self._binary("xor", other)

    def __rxor__(self, other):
        return self._binary("xor", other, reflected=True)

    def __invert__(self):
        return Call("invert", (self,))

    def __neg__(self):
        return Call("negate_checked", (self,))

    def __abs__(self):
        return Call("abs_checked", (self,))

    # pyarrow.compute.Expression's convenience methods, for familiarity
    def is_null(self, nan_is_null: bool = False) -> Call:
        return Call("is_null", (self,), pc.NullOptions(nan_is_null=nan_is_null))

    def is_valid(self) -> Call:
        return Call("is_valid", (self,))

    def isin(self, values) -> Call:
        values = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values)
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        return Call("is_in", (self,), pc.SetLookupOptions(values))

    def cast(self, target_type, safe: bool = True) -> Call:
        target_type = pa.type_for_alias(target_type) if isinstance(target_type, str) else target_type
        options = pc.CastOptions.safe(target_type) if safe else pc.CastOptions.unsafe(target_type)
        return Call("cast", (self,), options)


class Literal(Expression):
    """A constant: a pyarrow Scalar (or, rarely, an Array). Always bound."""

    __slots__ = ("_hash", "_text", "value")
    kind = "literal"

    def __init__(self, value):
        if isinstance(value, Literal):
            value = value.value
        if not isinstance(value, (pa.Scalar, pa.Array)):
            try:
                value = pa.scalar(value)
            except (OverflowError, ValueError, TypeError, pa.ArrowException) as exc:
                shown = repr(value)
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                raise BuildError(f"cannot make a literal from {shown}: "
                                 f"{str(exc).splitlines()[0][:160]}") from None
        _set(self, "value", value)
        _set(self, "_text", None)
        if isinstance(value, pa.Array):
            _set(self, "_hash", 0)
        else:
            _set(self, "_hash", hash(("Literal", _scalar_hash(value))))

    def __reduce__(self):  # rebuilt through __init__, so the hash is this process's
        return (Literal, (self.value,))

    @property
    def is_literal(self) -> bool:
        return True

    @property
    def is_scalar(self) -> bool:
        return isinstance(self.value, pa.Scalar)

    @property
    def type(self) -> pa.DataType:
        return self.value.type

    @property
    def is_null_literal(self) -> bool:
        """Arrow's IsNullLiteral (a zero-length array counts, as in Arrow)."""
        if isinstance(self.value, pa.Scalar):
            return not self.value.is_valid
        return self.value.null_count == len(self.value)

    def _shallow_equals(self, other: Literal) -> bool:
        a, b = self.value, other.value
        if isinstance(a, pa.Array) or isinstance(b, pa.Array):
            return isinstance(a, pa.Array) and isinstance(b, pa.Array) and a.equals(b)
        if a.type != b.type:
            return False
        if a.is_valid and b.is_valid and pa.types.is_floating(a.type):
            x, y = a.as_py(), b.as_py()
            return x == y or (math.isnan(x) and math.isnan(y))
        return a.equals(b)

    def _template(self) -> list:
        if self._text is None:
            if isinstance(self.value, pa.Array):
                _set(self, "_text", f"Array[{self.value.type}]")
            else:
                _set(self, "_text", _scalar_text(self.value))
        return [_ArrowLayout(self._text)]  # a dictionary or list value prints over lines


class _ArrowLayout(str):
    """Text whose line breaks are Arrow's own layout (a value set or a list value over
    lines; Arrow escapes those inside strings)."""


class Parameter(Expression):
    """A field reference; after binding it also holds the field's type, path and nullability."""

    __slots__ = ("_hash", "field_type", "nullable", "path", "ref")
    kind = "field"

    def __init__(self, ref: FieldRef, field_type: pa.DataType | None = None,
                 path: FieldPath | None = None, nullable: bool = True):
        _set(self, "ref", ref if isinstance(ref, FieldRef) else FieldRef(ref))
        _set(self, "field_type", field_type)
        _set(self, "path", path)
        _set(self, "nullable", nullable)
        _set(self, "_hash", hash(("Parameter", self.ref)))

    def __reduce__(self):
        return (Parameter, (self.ref, self.field_type, self.path, self.nullable))

    @property
    def is_field(self) -> bool:
        return True

    @property
    def type(self) -> pa.DataType | None:
        return self.field_type

    def _all_bound(self) -> bool:
        return self.field_type is not None

    def _shallow_equals(self, other: Parameter) -> bool:
        return self.ref == other.ref  # Arrow compares only the ref

    def _template(self) -> list:
        impl = self.ref.impl
        if isinstance(impl, str):
            return [impl]
        if isinstance(impl, FieldPath):
            return [impl.to_string()]
        return [self.ref.to_string()]


class Call(Expression):
    """A call of a named function; binding adds the Function, its kernel and the type."""

    __slots__ = (
        "_args",
        "_hash",
        "_subtree_bound",
        "call_type",
        "function",
        "kernel",
        "name",
        "options",
    )
    kind = "call"

    def __init__(self, name: str, args: Sequence[Expression] = (), options=None, *,
                 function=None, kernel=None, call_type: pa.DataType | None = None):
        if options is not None and not isinstance(options, pc.FunctionOptions):
            raise BuildError(f"the options of {name!r} must be a pyarrow.compute "
                             f"FunctionOptions (or None), not {type(options).__name__}")
        if not isinstance(name, str):
            raise BuildError(f"a function name must be a string, not {type(name).__name__}")
        _set(self, "name", name)
        _set(self, "_args", tuple(as_expression(a) for a in args))
        _set(self, "options", options)
        _set(self, "function", function)
        _set(self, "kernel", kernel)
        _set(self, "call_type", call_type)
        h = hash(("Call", name))
        bound = call_type is not None and kernel is not None
        for a in self._args:
            h = hash((h, a._hash))
            bound = bound and a.is_bound
        _set(self, "_hash", h)
        _set(self, "_subtree_bound", bound)

    def __reduce__(self):
        return (_rebuild_call, (self.name, self._args, self.options, self.function, self.kernel,
                                self.call_type))

    @property
    def args(self) -> tuple[Expression, ...]:
        return self._args

    @property
    def is_call(self) -> bool:
        return True

    @property
    def type(self) -> pa.DataType | None:
        return self.call_type

    def _all_bound(self) -> bool:
        return self._subtree_bound

    def with_args(self, args: Sequence[Expression]) -> Call:
        """A copy with new arguments that keeps kernel and type, with no rebind (docs/semantics.md §6)."""
        return Call(self.name, args, self.options, function=self.function,
                    kernel=self.kernel, call_type=self.call_type)

    def unbound(self, args: Sequence[Expression] | None = None) -> Call:
        return Call(self.name, self._args if args is None else args, self.options)

    def _shallow_equals(self, other: Call) -> bool:
        return (
            self.name == other.name
            and self.kernel is other.kernel
            and len(self._args) == len(other._args)
            and options_equal(self.options, other.options)
        )

    def _template(self) -> list:
        name, n = self.name, len(self._args)
        if name in COMPARISON_SYMBOLS and n == 2:
            return ["(", 0, f" {COMPARISON_SYMBOLS[name]} ", 1, ")"]
        if name.endswith("_kleene") and n == 2:
            return ["(", 0, f" {name[: -len('_kleene')]} ", 1, ")"]
        if name == "make_struct" and isinstance(self.options, pc.MakeStructOptions):
            pieces: list = ["{"]
            for i, field_name in enumerate(field_names(self.options)[:n]):
                pieces += [", " if i else "", f"{field_name}=", i]
            return pieces + ["}"]
        pieces = [f"{name}("]
        for i in range(n):
            pieces += [", " if i else "", i]
        if self.options is not None:
            pieces.append(_ArrowLayout((", " if n else "") + options_to_string(self.options)))
        return pieces + [")"]

    def _short_template(self) -> list:
        """`_template` with the options as `options_short_text` writes them."""
        pieces = self._template()
        if self.options is None or pieces[-1] != ")" or not isinstance(pieces[-2], _ArrowLayout):
            return pieces
        short = options_short_text(self.options)
        return pieces[:-2] + ([(", " if self._args else "") + short] if short else []) + [")"]


def _rebuild_call(name, args, options, function, kernel, call_type) -> Call:
    return Call(name, args, options, function=function, kernel=kernel, call_type=call_type)


def as_expression(value: Any) -> Expression:
    """An Expression as it is, a pyarrow expression read as one; anything else a Literal."""
    if isinstance(value, Expression):
        return value
    if isinstance(value, FieldRef):
        return Parameter(value)
    if isinstance(value, pc.Expression):
        return from_pyarrow(value)
    return Literal(value)


def from_pyarrow(expr: pc.Expression) -> Expression:
    """exprscope's tree for a pyarrow expression, losslessly: `str()` of both agree."""
    if not isinstance(expr, pc.Expression):
        raise PyarrowConversionError(
            f"from_pyarrow takes a pyarrow.compute.Expression, got {type(expr).__name__}")
    open_args: list[list[Expression]] = [[]]  # the bottom list receives the root
    open_calls: list[list] = []  # [name, options] of each call not yet ended
    for kind, value in pyarrow_tokens(expr):
        if kind == "call":
            open_calls.append([value, None])
            open_args.append([])
        elif kind == "options":
            open_calls[-1][1] = value
        elif kind == "end":
            name, options = open_calls.pop()
            args = open_args.pop()
            open_args[-1].append(Call(name, args, options))
        else:
            open_args[-1].append(Parameter(value) if kind == "field" else Literal(value))
    (root,) = open_args[0]
    return root


def _pyarrow_field(ref: FieldRef) -> pc.Expression:
    parts: list = []
    for leaf in ref.leaves():
        path = leaf.field_path
        parts.extend(path.indices if path is not None else [leaf.name])
    return pc.field(*parts)


def postorder(root: Expression) -> Iterator[Expression]:
    """Every node after its arguments, iteratively; shared subtrees visited once."""
    seen: set[int] = set()
    stack: list[tuple[Expression, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            yield node
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for arg in reversed(node.args):
            if id(arg) not in seen:
                stack.append((arg, False))


def preorder(root: Expression) -> Iterator[Expression]:
    """Every node before its arguments, left to right, iteratively."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.args))


def _scalar_hash(value: pa.Scalar) -> int:
    try:
        py = python_value(value) if not _unhashable(value) else str(pc.scalar(value))
        if isinstance(py, float) and math.isnan(py):
            py = "nan"  # hash(nan) is per-object in Python; NaN literals are equal here
        return hash((str(value.type), py))
    except (TypeError, ValueError, OverflowError, pa.ArrowException):
        # no Python value or text (bytes that are not UTF-8 in a string or a nested
        # value): hashed by the value's Arrow IPC bytes, equal for equal values
        one_row = pa.record_batch([pa.array([value], value.type)], names=["v"])
        return hash((str(value.type), one_row.serialize().to_pybytes()))


def _scalar_text(value: pa.Scalar) -> str:
    """Arrow's text of a literal; where Arrow writes bytes that are not UTF-8 (binary
    values inside a list or struct, which it prints raw), the Python value's repr."""
    try:
        return str(pc.scalar(value))
    except UnicodeDecodeError:
        try:
            return f"{value.as_py()!r} ({value.type})"
        except UnicodeDecodeError:
            return f"<a {value.type} value holding text that is not UTF-8>"


def _unhashable(value: pa.Scalar) -> bool:
    t = value.type
    return pa.types.is_nested(t) or pa.types.is_dictionary(t)
