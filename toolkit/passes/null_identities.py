"""Identities that follow from the schema's nullability (beyond Arrow).

A field the schema declares non-nullable has no nulls, so `is_null(f)` is false,
`is_valid(f)` and `true_unless_null(f)` are true, and a comparison of f with
itself is decided, except where NaN makes floats differ from themselves:
`f == f` is false for NaN, so for floats only `f < f` and `f > f` (always false)
are folded. `is_null(f, nan_is_null=true)` on floats is left alone for the same
reason. exprscope trusts the schema: data that breaks it is the data's bug.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

from ..model.expression import Call, Expression, Literal
from ..model.options import option_values
from ..rewrite import Transformed
from .comparison import BITS, EQUAL

__all__ = ["non_nullable_validity", "self_comparison"]

_VALIDITY = {"is_null": False, "is_valid": True, "true_unless_null": True}


def _never_null(expr: Expression) -> bool:
    return expr.is_field and expr.field_type is not None and not expr.nullable


def non_nullable_validity(call: Call) -> Transformed | None:
    value = _VALIDITY.get(call.name)
    if value is None or len(call.args) != 1 or not _never_null(call.args[0]):
        return None
    field = call.args[0]
    if call.name == "is_null" and pat.is_floating(field.type) and call.options is not None \
            and option_values(call.options).get("nan_is_null"):
        return None
    return Transformed.fired(Literal(pa.scalar(value)), "identities/non-nullable-field",
                 f"{field.to_string()} is not nullable in the schema, so {call.name} is "
                 f"always {str(value).lower()}")


def self_comparison(call: Call) -> Transformed | None:
    bits = BITS.get(call.name)
    if bits is None or len(call.args) != 2:
        return None
    left, right = call.args
    if not _never_null(left) or not right.is_field or not left.equals(right):
        return None
    if pat.is_floating(left.type) and call.name not in ("less", "greater"):
        return None  # NaN == NaN is false and NaN != NaN is true: not constant
    value = bool(bits & EQUAL)
    return Transformed.fired(Literal(pa.scalar(value)), "identities/self-comparison",
                 f"{left.to_string()} is not nullable, so {call.to_string()} is always "
                 f"{str(value).lower()}")
