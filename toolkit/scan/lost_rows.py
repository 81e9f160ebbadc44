"""When Arrow's skip of a row group can lose rows that match: say so, and why.

exprscope's verdicts are Arrow's, right or wrong. Two kinds of Arrow skips are
wrong on some data, and a reader of the explanation should know:

- NaN. Parquet leaves NaN out of a float column's min and max, so a row group
  [1.0, NaN] has min = max = 1. A filter true for NaN (`x != 1`,
  `not (x <= 5)`, `is_nan(x)`) is judged against 1 alone, and the NaN row is
  lost. The warning is given when the filter, with the column set to NaN and
  the rest of the statistics kept, may still be true.
- Lossy casts. Arrow strips casts it deems order preserving (float64 to
  float32, int64 to float32) before comparing with the statistics, but such a
  cast rounds, or overflows to infinity: `cast(f, float32) == inf` is judged on
  f's min and max, finite, while every row casts to inf. The warning is given
  when casting a bound of the statistics changes it.
"""

from __future__ import annotations

import math

import pyarrow as pa

from ..functions.facts import conjuncts
from ..model.expression import Call, Expression, Literal, Parameter, postorder, preorder
from ..passes import is_satisfiable, simplify_with_guarantee
from ..passes.chain import ExprKey
from ..support.bounded_cache import BoundedCache

__all__ = ["lost_rows_warning"]

_NAN_ANSWERS = BoundedCache(4096)  # (filter, the NaN row's guarantee) -> may the filter hold


def lost_rows_warning(filter_expr: Expression, guarantee: Expression) -> str | None:
    """Why rows of a group skipped under `guarantee` may match `filter_expr`; None if none."""
    fields = {node.ref: node for node in preorder(filter_expr) if node.is_field}
    for ref, node in fields.items():
        if node.type is None or not pa.types.is_floating(node.type):
            continue
        if _bounds(guarantee, ref) and _nan_may_match(filter_expr, guarantee, ref, node.type):
            return (f"Parquet leaves NaN out of {node}'s min and max, and "
                    f"the filter is not false for NaN, so a NaN row here would match")
    for node in postorder(filter_expr):
        warning = _lossy_cast(node, guarantee)
        if warning is not None:
            return warning
    return None


def _bounds(guarantee: Expression, ref) -> list[pa.Scalar]:
    """The literal bounds the guarantee gives the field (min and max, or the one value)."""
    out = []
    for member in conjuncts(guarantee):
        for part in preorder(member):
            if (part.is_call and part.name in ("equal", "greater_equal", "less_equal")
                    and len(part.args) == 2 and part.args[0].is_field
                    and part.args[0].ref == ref and part.args[1].is_literal):
                out.append(part.args[1].value)
    return out


def _nan_may_match(filter_expr: Expression, guarantee: Expression, ref, field_type) -> bool:
    """Whether the filter may be true where the field is NaN and the other columns'
    statistics hold (the field's own statistics say nothing about NaN)."""
    nan_row: Expression = Call("equal", [Parameter(ref), Literal(pa.scalar(math.nan, field_type))])
    for member in conjuncts(guarantee):
        if not any(n.is_field and n.ref == ref for n in preorder(member)):
            nan_row = Call("and_kleene", [nan_row, member])
    key = (ExprKey(filter_expr), ExprKey(nan_row))
    known = _NAN_ANSWERS.get(key)
    if known is None:  # row groups of one file mostly share everything but the field's bounds
        known = _NAN_ANSWERS.put(key, is_satisfiable(simplify_with_guarantee(filter_expr, nan_row)))
    return known


def _lossy_cast(node: Expression, guarantee: Expression) -> str | None:
    if not (node.is_call and node.name == "cast" and node.args and node.args[0].is_field):
        return None
    source, target = node.args[0].type, node.type
    if source is None or target is None or not pa.types.is_floating(target):
        return None
    if not (pa.types.is_integer(source) or pa.types.is_floating(source)):
        return None
    for bound in _bounds(guarantee, node.args[0].ref):
        if not bound.is_valid or bound.type != source:
            continue
        try:
            cast = bound.cast(target, safe=False)
        except pa.ArrowException:
            continue
        back = cast.as_py()
        if isinstance(back, float) and math.isnan(back):
            continue
        if back != bound.as_py():
            return (f"{node.args[0]} = {bound} becomes {cast} as {target}, "
                    f"but Arrow compares the statistics as if the cast kept every value")
    return None
