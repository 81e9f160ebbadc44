"""Which kernel a call gets, as the steps binding takes: recorded once, acted on and narrated.

Arrow's DispatchBest, as binding runs it (docs/semantics.md, binding): the exact
kernel for the argument types when there is one; otherwise scalar literals are
narrowed to the smallest type holding their value, the function's best-dispatch
rule picks the types it wants, and the arguments are cast to them. `resolve`
records each step in a `Resolution`; `bind_call` inserts the casts it names and
`explain_dispatch` tells the same steps as text, so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from ..errors import NoKernelError
from .dispatch import check_arity, dispatch, exact_kernel, no_kernel_error, smallest_type_for
from .function import Function, FunctionKind, Kernel
from .no_kernel import no_kernel_message
from .types import is_decimal, is_integer

__all__ = ["Resolution", "output_type", "resolve"]


@dataclass(frozen=True)
class Resolution:
    """The kernel for a call and the argument types it takes (`types`), with how it was found."""

    function: Function
    given: tuple  # the argument types as bound
    kernel: Kernel
    types: tuple  # the types the kernel takes: `given` when exact, else best dispatch's
    exact: bool
    narrowed: tuple | None = None  # literals at their smallest type (None when exact)


def resolve(function: Function, args: Sequence, implicit_casts: bool = True) -> Resolution:
    """The kernel for `function` over bound `args`; NoKernelError (short, readable) if none."""
    given = tuple(a.type for a in args)
    check_arity(function, len(given))
    kernel = exact_kernel(function, given)
    if kernel is not None:
        return Resolution(function, given, kernel, given, True)
    if not implicit_casts:
        raise no_kernel_error(function, given)
    keep_integers = _integers_meet_decimals(function, given)
    narrowed = tuple(smallest_type_for(a.value)
                     if a.is_literal and a.is_scalar and not (keep_integers and is_integer(a.type))
                     else a.type for a in args)
    try:
        kernel, best = dispatch(function, narrowed)
    except NoKernelError as err:
        raise NoKernelError(no_kernel_message(function, args, narrowed), err.function,
                            err.types, err.signatures, str(err)) from None
    return Resolution(function, given, kernel, tuple(best), False, narrowed)


def _integers_meet_decimals(function: Function, given: Sequence[pa.DataType]) -> bool:
    """A special form whose values mix decimals with integers takes each integer at its
    declared width: Arrow's CastDecimalArgs gives an int32 ten digits before the scale,
    so `coalesce(int32 null, decimal128(3, 2))` is decimal128(12, 2), as pyarrow types it
    (narrowing the literal to int8 first would give decimal128(5, 2), a type the int32
    value cannot be cast to)."""
    return function.kind is FunctionKind.SPECIAL_FORM and any(is_decimal(t) for t in given)


def output_type(name: str, given: Sequence[pa.DataType], resolution: Resolution,
                options) -> pa.DataType:
    """The call's output type: the kernel's, except where Acero types a call otherwise."""
    return (_decimal_divided_by_null(name, given)
            or resolution.kernel.output.resolve(list(resolution.types), options))


def _decimal_divided_by_null(name: str, given: Sequence[pa.DataType]) -> pa.DataType | None:
    """Acero's type for a decimal divided by (or dividing) a null: decimal(p, 0).

    Arrow gives the null the decimal's type and resolves the division without
    scaling the dividend up, so `divide(decimal128(10, 2), null)` is typed
    `decimal128(10, 0)` (the value is null either way); binding says the same.
    """
    if name not in ("divide", "divide_checked") or len(given) != 2:
        return None
    nulls = [pa.types.is_null(t) for t in given]
    decimals = [t for t in given if pa.types.is_decimal(t)]
    if sum(nulls) != 1 or len(decimals) != 1:
        return None
    d = decimals[0]
    return (pa.decimal256 if pa.types.is_decimal256(d) else pa.decimal128)(d.precision, 0)
