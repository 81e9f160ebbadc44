"""Facts about an expression that passes, plan rules and scans all ask: its conjuncts, purity,
whether it can fail on a row.

One place for each, so a filter split for pushdown, a guarantee read for known
values and a predicate read for scan pruning agree on what "the conjuncts" are.
"""

from __future__ import annotations

from ..model.expression import Expression, preorder
from .function import call_can_fail

__all__ = ["can_fail", "conjuncts", "is_pure"]

def conjuncts(expr: Expression, *, plain_and: bool = False) -> list[Expression]:
    """The members of a chain of `and_kleene`, left to right (`[expr]` otherwise).

    Guarantees are read this way, as Arrow's ExtractKnownFieldValues reads them
    (an `and` is one opaque member). A filter's predicate may also be split at
    the non-Kleene `and` (`plain_and=True`): a row passes either `and` exactly
    when every member is true.
    """
    names = ("and_kleene", "and") if plain_and else ("and_kleene",)
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        if node.is_call and node.name in names and node.args:
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


def is_pure(expr: Expression) -> bool:
    """Whether every call in `expr` is pure (the same inputs always give the same result)."""
    return all(not node.is_call or node.function is None or node.function.pure
               for node in preorder(expr))


def can_fail(expr: Expression) -> bool:
    """Some function may raise on some row (divide, checked arithmetic, casts)."""
    return any(n.is_call and call_can_fail(n) for n in preorder(expr))
