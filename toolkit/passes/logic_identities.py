"""Boolean identities Arrow does not apply: double negation and repeated operands.

`invert(invert(x))` is x, also where x is null (invert keeps nulls). In a chain of
`and`/`or` (Kleene or not) an operand that appears twice can go: both are
idempotent, commutative and associative, with or without nulls. Only operands
made of pure functions are merged: two `random()` calls are not the same value.
"""

from __future__ import annotations

from ..functions.facts import is_pure
from ..model.expression import Call, Expression
from ..rewrite import Transformed
from .chain import ExprKey, flatten_chain
from .rebind import with_args_rebound

__all__ = ["IDEMPOTENT_CHAINS", "double_negation", "duplicate_operands"]

IDEMPOTENT_CHAINS = frozenset({"and", "or", "and_kleene", "or_kleene"})


def double_negation(call: Call) -> Transformed | None:
    if call.name != "invert" or len(call.args) != 1:
        return None
    inner = call.args[0]
    if not inner.is_call or inner.name != "invert" or len(inner.args) != 1:
        return None
    return Transformed.fired(inner.args[0], "identities/double-negation",
                 "invert(invert(x)) is x, nulls included")


def duplicate_operands(call: Call, done: dict[int, Expression]) -> Transformed | None:
    """Drop repeated operands of an and/or chain (pre-order; `done` skips inner chain calls)."""
    chain = flatten_chain(call)
    for inner in chain.exprs:
        done[id(inner)] = inner
    seen: set[ExprKey] = set()
    kept: list[Expression] = []
    for operand in chain.fringe:
        key = ExprKey(operand)
        if key in seen and is_pure(operand):
            continue
        seen.add(key)
        kept.append(operand)
    if len(kept) == len(chain.fringe):
        return None
    folded = kept[0]
    for operand in kept[1:]:
        folded = with_args_rebound(call, (folded, operand))
        done[id(folded)] = folded
    dropped = len(chain.fringe) - len(kept)
    word = call.name.replace("_kleene", "")
    return Transformed.fired(folded, "identities/duplicate-operand",
                 f"x {word} x is x: {dropped} repeated operand{'s' if dropped > 1 else ''} "
                 f"of {call.name} dropped")
