"""Evaluating a physical node's expression, checking that its function returns what it declares.

`toolkit.evaluate` conforms a result to the bound type, which would hide a
kernel that lies about its output. So when the check runs, the root call of a
scalar function is run here: its arguments through `toolkit.evaluate`, then the
function's kernel itself, and the raw array is compared with the declared type
and nullability (the seed's "physical functions return what they declare").
A kernel error falls back to `toolkit.evaluate`, which reports the failing row.
Special forms, fields and literals are evaluated by `toolkit.evaluate` and
their results checked the same way.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import KernelError
from ..execution import evaluate
from ..expression import Expression
from ..functions import FunctionKind
from .invariants import FUNCTION_RETURNS_DECLARED, report

__all__ = ["evaluate_expression"]


def _as_array(value, num_rows: int) -> pa.Array:
    if isinstance(value, pa.Scalar):
        return pa.repeat(value, num_rows)
    if isinstance(value, pa.ChunkedArray):
        return value.combine_chunks()
    return value


def _raw_root(expr: Expression, batch: pa.RecordBatch):
    """The root kernel's own output, or None when the kernel raised (evaluate reports it)."""
    args = [evaluate(arg, batch) for arg in expr.args]
    try:
        return expr.function(args, expr.options, expr.kernel)
    except (pa.ArrowException, KernelError, ArithmeticError, ValueError, TypeError):
        return None


def evaluate_expression(expr: Expression, declared_nullable: bool, batch: pa.RecordBatch,
                        subject: str, check: bool, observer=None) -> pa.Array:
    """The expression's array over `batch`; with `check`, verified against its declaration."""
    if not check:
        return _as_array(evaluate(expr, batch), batch.num_rows)
    raw = None
    if expr.is_call and expr.function is not None and expr.function.kind is FunctionKind.SCALAR:
        raw = _raw_root(expr, batch)
    value = _as_array(raw if raw is not None else evaluate(expr, batch), batch.num_rows)
    problems = []
    if value.type != expr.type:
        problems.append(f"declared {expr.type}, returned {value.type}")
    if not declared_nullable and value.null_count:
        problems.append(f"declared NOT NULL, returned {value.null_count} nulls")
    label = expr.name if expr.is_call else expr.kind
    report(FUNCTION_RETURNS_DECLARED, subject, not problems,
           details=(f"{label}: " + "; ".join(problems)) if problems else
           f"{expr}: {expr.type}{'' if declared_nullable else ' NOT NULL'} over {len(value)} rows",
           expected=f"{expr.type}{'' if declared_nullable else ' NOT NULL'}" if problems else None,
           actual=f"{value.type} with {value.null_count} nulls" if problems else None,
           observer=observer)
    return value
