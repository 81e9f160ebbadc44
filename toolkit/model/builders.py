"""The builders users write expressions with, mirroring Arrow's helpers (docs/semantics.md §1)."""

from __future__ import annotations

from typing import Iterable, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import BuildError
from .expression import Call, Expression, Literal, Parameter, as_expression
from .field_ref import FieldRef
from .scalar_values import python_value

__all__ = [
    "and_",
    "call",
    "case_when",
    "cast",
    "coalesce",
    "equal",
    "field",
    "greater",
    "greater_equal",
    "if_else",
    "is_null",
    "is_valid",
    "less",
    "less_equal",
    "literal",
    "make_struct",
    "not_",
    "not_equal",
    "or_",
    "project",
]


def field(*parts) -> Parameter:
    """A field reference: `field("a")`, nested `field("a", "b")`, by index `field(0, 1)`."""
    if len(parts) == 1 and isinstance(parts[0], FieldRef):
        return Parameter(parts[0])
    if not parts:
        raise BuildError("field() needs a name, an index, or a path of them")
    return Parameter(FieldRef(*parts))


def literal(value, type: pa.DataType | str | None = None) -> Literal:
    """A constant. `literal(None, pa.int32())` is a typed null."""
    if isinstance(value, Literal):
        return value
    try:
        if type is not None:
            if isinstance(type, str):
                type = pa.type_for_alias(type)
            if isinstance(value, pa.Scalar):
                value = value.cast(type)
            else:
                value = pa.scalar(value, type=type)
        if isinstance(value, pa.Scalar):
            python_value(value)  # a value no picture could show fails here, not later
        return Literal(value)
    except (OverflowError, ValueError, TypeError, pa.ArrowException) as exc:
        target = f" of type {type}" if type is not None else ""
        shown = _safe_repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise BuildError(f"cannot make a literal{target} from {shown}: "
                         f"{str(exc).splitlines()[0][:160]}") from None


def _safe_repr(value) -> str:
    try:
        return repr(value) if not isinstance(value, pa.Scalar) else f"a {value.type} scalar"
    except (OverflowError, ValueError):
        return type(value).__name__


def call(name: str, args: Sequence = (), options: pc.FunctionOptions | None = None) -> Call:
    return Call(name, [as_expression(a) for a in args], options)


def cast(expr, target_type, safe: bool = True) -> Call:
    """A cast call; safe (no overflow, no truncation) unless `safe=False`."""
    return as_expression(expr).cast(target_type, safe=safe)


def _fold(name: str, operands: Iterable, empty: bool) -> Expression:
    operands = [as_expression(o) for o in operands]
    if not operands:
        return Literal(pa.scalar(empty))
    out = operands[0]
    for operand in operands[1:]:
        out = Call(name, (out, operand))
    return out


def _operands(args) -> list:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def and_(*args) -> Expression:
    """`and_kleene` of two operands, or of a list (folded left; empty gives true)."""
    return _fold("and_kleene", _operands(args), True)


def or_(*args) -> Expression:
    """`or_kleene` of two operands, or of a list (folded left; empty gives false)."""
    return _fold("or_kleene", _operands(args), False)


def not_(x) -> Call:
    return Call("invert", (as_expression(x),))


def _comparison(name):
    def build(lhs, rhs) -> Call:
        return Call(name, (as_expression(lhs), as_expression(rhs)))

    build.__name__ = name
    build.__doc__ = f"The `{name}` comparison."
    return build


equal = _comparison("equal")
not_equal = _comparison("not_equal")
less = _comparison("less")
less_equal = _comparison("less_equal")
greater = _comparison("greater")
greater_equal = _comparison("greater_equal")


def is_null(x, nan_is_null: bool = False) -> Call:
    """Always carries NullOptions, as Arrow's helper does."""
    return Call("is_null", (as_expression(x),), pc.NullOptions(nan_is_null=nan_is_null))


def is_valid(x) -> Call:
    return Call("is_valid", (as_expression(x),))


def if_else(cond, then, otherwise) -> Call:
    """Lazy: `then` runs only where `cond` is true, `otherwise` only where it is false."""
    return Call("if_else", (as_expression(cond), as_expression(then), as_expression(otherwise)))


def make_struct(values: Sequence, names: Sequence[str]) -> Call:
    values = [as_expression(v) for v in values]
    names = list(names)
    if len(values) != len(names):
        raise BuildError(f"make_struct got {len(values)} values but {len(names)} names")
    if not values:  # Arrow's make_struct has no kernel for none (pyarrow crashes on one)
        raise BuildError("make_struct (project) needs at least one value")
    if not all(isinstance(n, str) for n in names):
        raise BuildError("make_struct's names must be strings, got "
                         + ", ".join(sorted({type(n).__name__ for n in names})))
    return Call("make_struct", values, pc.MakeStructOptions(names))


def case_when(cases: Sequence[tuple], else_=None) -> Call:
    """Arrow's case_when: a make_struct of the conditions, then the values, then else."""
    cases = list(cases)
    if not cases:
        raise BuildError("case_when needs at least one (condition, value) pair")
    conds = [as_expression(c) for c, _ in cases]
    values = [as_expression(v) for _, v in cases]
    struct = make_struct(conds, [str(i) for i in range(len(conds))])
    args = [struct, *values]
    if else_ is not None:
        args.append(as_expression(else_))
    return Call("case_when", args)


def coalesce(*args) -> Call:
    """The first non-null argument, row by row; argument i runs only where all before are null."""
    operands = _operands(args)
    if not operands:
        raise BuildError("coalesce needs at least one argument")
    return Call("coalesce", [as_expression(a) for a in operands])


def project(values: Sequence, names: Sequence[str]) -> Call:
    """Arrow's project: a make_struct of the values under the names."""
    return make_struct(values, names)
