"""Float keys as joins and groups compare them.

Two ways a join may compare float keys (a join's `float_keys`):

- `IEEE` (exprscope's own, the default): keys are equal when Arrow's `equal` says so,
  so -0.0 matches 0.0 and a NaN key matches nothing, as the same join written as a
  filter over a cross product gives (IEEE 754: NaN = NaN is false).
- `NORMALIZED` (Spark's, set by the Spark import): Spark's optimizer wraps float join
  keys in NormalizeNaNAndZero (NormalizeFloatingNumbers), so -0.0 matches 0.0 and
  every NaN, whatever its payload bits, matches every other NaN. DuckDB does the same.

Either way -0.0 and 0.0 are one key, though their bits differ and pyarrow's hash join
and group-by compare bits. A group-by puts every NaN in one group whatever its payload
bits, and -0.0 with 0.0, as every engine (Spark included) does.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..model.builders import and_, call, or_
from .errors import PlanError

__all__ = ["FLOAT_KEY_MODES", "IEEE", "NORMALIZED", "checked_float_keys", "group_key",
           "has_float_key", "join_key", "nan_equal", "nan_equality"]

IEEE = "ieee"
NORMALIZED = "normalized"
FLOAT_KEY_MODES = {IEEE: "NaN matches nothing, -0.0 matches 0.0",
                   NORMALIZED: "NaN matches NaN, -0.0 matches 0.0 (Spark)"}


def checked_float_keys(mode) -> str:
    """`mode` when it is one of FLOAT_KEY_MODES, else a PlanError naming them."""
    if mode not in FLOAT_KEY_MODES:
        raise PlanError(f"float_keys must be one of {sorted(FLOAT_KEY_MODES)}, got {mode!r}")
    return mode


def has_float_key(types) -> bool:
    """Whether any of the key types is a float (the only keys `float_keys` changes)."""
    return any(pa.types.is_floating(t) for t in types)


def _without_negative_zero(column):
    zero = pa.scalar(0, column.type)
    return pc.if_else(pc.equal(column, zero), zero, column)


def join_key(column, mode: str = IEEE):
    """The column as a hash join should compare it: floats with -0.0 as 0.0 and NaN as
    null (no partner) under IEEE, as the one canonical NaN under NORMALIZED; any other
    type as it is."""
    if not pa.types.is_floating(column.type):
        return column
    if mode == NORMALIZED:
        return group_key(column)
    column = _without_negative_zero(column)
    return pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)


def group_key(column):
    """The column as a group-by should compare it: floats with -0.0 as 0.0 and every NaN
    as the one canonical NaN; any other type as it is."""
    if not pa.types.is_floating(column.type):
        return column
    column = _without_negative_zero(column)
    return pc.if_else(pc.is_nan(column), pa.scalar(float("nan"), column.type), column)


def nan_equality(expr):
    """The `l == r` inside `l == r OR (is_nan(l) AND is_nan(r))` (operands in any order):
    Spark's equality of floats as exprscope writes it, a key of a join that compares
    float keys as Spark does; None for any other expression."""
    if not (expr.is_call and expr.name == "or_kleene" and len(expr.args) == 2):
        return None
    for equal, both in (expr.args, expr.args[::-1]):
        if not (equal.is_call and equal.name == "equal" and len(equal.args) == 2
                and both.is_call and both.name == "and_kleene" and len(both.args) == 2
                and all(t.is_call and t.name == "is_nan" and len(t.args) == 1
                        for t in both.args)):
            continue
        (l, r), (x, y) = equal.args, [t.args[0] for t in both.args]
        if (l.equals(x) and r.equals(y)) or (l.equals(y) and r.equals(x)):
            return equal
    return None


def nan_equal(left, right):
    """`left == right OR (is_nan(left) AND is_nan(right))`: NaN equal to NaN."""
    return or_(call("equal", [left, right]),
               and_(call("is_nan", [left]), call("is_nan", [right])))
