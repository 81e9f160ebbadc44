"""fold_constants: compute now what does not depend on the data (docs/semantics.md §5).

Post-order over calls; the first rule that applies wins:
1. an impure call is kept (its arguments are still folded);
2. a call whose arguments are all literals is evaluated now, with pyarrow;
3. a scalar call with INTERSECTION null handling and a null literal argument is null;
4. `and_kleene`: `true and x` is x, `false and x` is false, `x and x` is x;
5. `or_kleene`: `false or x` is x, `true or x` is true, `x or x` is x.
`null and b` is not folded: it is false or null depending on b.

Two differences from Arrow, on purpose. `x and x` is kept when x calls an impure
function (two coin tosses are not one). And a call that fails when evaluated on its
literals (`1 / 0`, a cast that overflows) is left as it is instead of failing the
pass. Evaluation then reports the error with its row, and only if a row needs the
value: inside a lazy `if_else` branch that no row takes, it never runs. A value
larger than folding's budget (`fold_budget.py`) is left to evaluation too.
"""

from __future__ import annotations

import pyarrow as pa

from ..functions import FunctionKind, NullHandling
from ..functions.facts import is_pure
from ..model.expression import Call, Expression, Literal
from ..rewrite import Transformed
from .fold_budget import affordable, fits_budget
from .framework import optimization_pass, require_bound, sweep_post

__all__ = ["evaluate_literal_call", "fold_constants", "literal_text"]



@optimization_pass("fold_constants", idempotent=True)
def fold_constants(expr: Expression, **ctx) -> Expression:
    """Fold what can be folded; the very same object when nothing could."""
    require_bound(expr, "Cannot fold constants in unbound expression.")
    return sweep_post(expr, fold_rule)


def fold_rule(call: Call) -> Transformed | None:
    function = call.function
    if not function.pure:
        return None
    args = call.args
    if all(a.is_literal for a in args):
        value = evaluate_literal_call(call)
        if value is None:
            return None
        return Transformed.fired(Literal(value), "fold_constants/evaluate-literals",
                     f"{call.name} of literals evaluated to {literal_text(value)}")
    if function.kind is FunctionKind.SCALAR and function.null_handling is NullHandling.INTERSECTION:
        for i, arg in enumerate(args):
            if arg.is_literal and arg.is_null_literal:
                after = arg if arg.type == call.type else Literal(pa.scalar(None, call.type))
                return Transformed.fired(after, "fold_constants/null-intersection",
                             f"argument {i} is a null literal and {call.name} is null "
                             "wherever an input is null")
    if call.name == "and_kleene" and len(args) == 2:
        return _fold_and(args)
    if call.name == "or_kleene" and len(args) == 2:
        return _fold_or(args)
    return None


def _is_bool_literal(expr: Expression, value: bool) -> bool:
    """A valid boolean literal equal to `value` (compared as a Python bool: building a
    pyarrow scalar at import time would load pandas)."""
    if not (expr.is_literal and expr.is_scalar):
        return False
    v = expr.value
    return pa.types.is_boolean(v.type) and v.is_valid and v.as_py() is value


def _fold_and(args) -> Transformed | None:
    for x, y in (args, args[::-1]):
        if _is_bool_literal(x, True):
            return Transformed.fired(y, "fold_constants/and-true", "true and x is x")
        if _is_bool_literal(x, False):
            return Transformed.fired(x, "fold_constants/and-false",
                                     "false and x is false, even where x is null")
        if x.equals(y) and is_pure(x):
            return Transformed.fired(x, "fold_constants/and-same", "x and x is x")
    return None


def _fold_or(args) -> Transformed | None:
    for x, y in (args, args[::-1]):
        if _is_bool_literal(x, False):
            return Transformed.fired(y, "fold_constants/or-false", "false or x is x")
        if _is_bool_literal(x, True):
            return Transformed.fired(x, "fold_constants/or-true",
                                     "true or x is true, even where x is null")
        if x.equals(y) and is_pure(x):
            return Transformed.fired(x, "fold_constants/or-same", "x or x is x")
    return None


def evaluate_literal_call(call: Call) -> pa.Scalar | None:
    """The call's value on its literal arguments, or None when it cannot be computed now."""
    values = []
    for arg in call.args:
        value = arg.value
        if isinstance(value, pa.Array):
            if len(value) != 1:
                return None  # an array literal is not a constant row
            value = value[0]
        values.append(value)
    if not affordable(call.name, values, call.options):
        return None  # a value too large for a literal: evaluation computes it if a row needs it
    try:
        out = call.function(values, call.options, call.kernel)
    except (pa.ArrowException, ArithmeticError, ValueError, TypeError):
        return None  # left for evaluation, which names the failing row (see module docstring)
    if isinstance(out, pa.ChunkedArray):
        out = out.combine_chunks()
    if isinstance(out, pa.Array):
        if len(out) != 1:
            return None
        out = out[0]
    if not isinstance(out, pa.Scalar) or not fits_budget(out):
        return None
    if call.type is not None and out.type != call.type:
        try:
            out = out.cast(call.type)
        except (pa.ArrowException, ValueError, TypeError):
            return None
    return out


def literal_text(value: pa.Scalar, limit: int = 60) -> str:
    text = Literal(value).to_string()
    return text if len(text) <= limit else text[: limit - 3] + "..."
