"""Evaluating a physical node's expression, checking that its function returns what it declares.

`toolkit.evaluate` conforms a result to the bound type, which would hide a
kernel that lies about its output. So, when the check runs, the expression is
evaluated as usual (observers see that evaluation), and the root function's
kernel is run once more on its arguments, unobserved, to compare its raw output
with the declared type and nullability (DataFusion's "physical functions return
what they declare", docs/semantics.md §8). For special forms, fields and literals the evaluated value
itself is compared. Nested functions feed their parents directly; a lie there
shows up at the root or in the node's output data check.
"""

from __future__ import annotations

import pyarrow as pa

from .. import observe
from ..errors import KernelError
from ..execution import evaluate
from ..functions import FunctionKind
from ..model.expression import Expression
from .invariants import FUNCTION_RETURNS_DECLARED, report

__all__ = ["evaluate_expression"]


def _as_array(value, num_rows: int) -> pa.Array:
    if isinstance(value, pa.Scalar):
        return pa.repeat(value, num_rows)
    if isinstance(value, pa.ChunkedArray):
        return value.combine_chunks()
    return value


def _raw_root(expr: Expression, batch: pa.RecordBatch):
    """The root kernel's own output on its evaluated arguments (None if it raises)."""
    with observe.silenced():
        args = [evaluate(arg, batch) for arg in expr.args]
    try:
        return expr.function(args, expr.options, expr.kernel)
    except (pa.ArrowException, KernelError, ArithmeticError, ValueError, TypeError):
        return None


def evaluate_expression(expr: Expression, declared_nullable: bool, batch: pa.RecordBatch,
                        subject, check: bool, observer=None) -> pa.Array:
    """The expression's array over `batch`; with `check`, verified against its declaration."""
    value = _as_array(evaluate(expr, batch), batch.num_rows)
    if not check:
        return value
    raw = value
    if expr.is_call and expr.function is not None and expr.function.kind is FunctionKind.SCALAR:
        root = _raw_root(expr, batch)
        if root is not None:
            raw = _as_array(root, batch.num_rows)
    problems = []
    if raw.type != expr.type:
        problems.append(f"declared {expr.type}, returned {raw.type}")
    if not declared_nullable and raw.null_count:
        problems.append(f"declared NOT NULL, returned {raw.null_count} nulls")
    label = expr.name if expr.is_call else expr.kind
    declared = f"{expr.type}{'' if declared_nullable else ' NOT NULL'}"
    report(FUNCTION_RETURNS_DECLARED, subject, not problems,
           details=(f"{label}: " + "; ".join(problems)) if problems else
           f"{expr}: {declared} over {len(raw)} rows",
           expected=declared if problems else None,
           actual=f"{raw.type} with {raw.null_count} nulls" if problems else None,
           observer=observer)
    return value
