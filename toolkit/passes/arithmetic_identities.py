"""Exact arithmetic identities on integers (beyond Arrow): `x * 1`, `x + 0`, `x - 0`, `x / 1`.

Only for integer types, where they are exact: for floats `-0.0 + 0` is `+0.0`,
so `x + 0` is not x. Only when the call's type is x's type, so nothing widens.
Nulls stay nulls either way; the `_checked` variants cannot overflow here.
"""

from __future__ import annotations

import pyarrow.types as pat

from ..model.expression import Call, Expression
from ..rewrite import Transformed

__all__ = ["NEUTRAL_OPERANDS", "arithmetic_identity"]

# function -> (neutral value, positions where the neutral operand may stand)
NEUTRAL_OPERANDS = {
    "add": (0, (0, 1)), "add_checked": (0, (0, 1)),
    "subtract": (0, (1,)), "subtract_checked": (0, (1,)),
    "multiply": (1, (0, 1)), "multiply_checked": (1, (0, 1)),
    "divide": (1, (1,)), "divide_checked": (1, (1,)),
}


def _is_int_literal(expr: Expression, value: int) -> bool:
    return (expr.is_literal and expr.is_scalar and pat.is_integer(expr.type)
            and expr.value.is_valid and expr.value.as_py() == value)


def arithmetic_identity(call: Call) -> Transformed | None:
    spec = NEUTRAL_OPERANDS.get(call.name)
    if spec is None or len(call.args) != 2 or call.type is None or not pat.is_integer(call.type):
        return None
    neutral, positions = spec
    for i in positions:
        if _is_int_literal(call.args[i], neutral):
            other = call.args[1 - i]
            if other.type != call.type:
                return None
            return Transformed.fired(other, f"identities/{call.name.split('_')[0]}-{neutral}",
                         f"{call.name} with {neutral} leaves an integer unchanged")
    return None
