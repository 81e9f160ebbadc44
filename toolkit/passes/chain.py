"""Associative chains: `a + (b + 3) + 4` seen as the operator over the fringe [a, b, 3, 4].

Arrow's FlattenedAssociativeChain, without recursion: canonicalize reorders the
fringe, the guarantee code reads the members of an `and_kleene`, and the extra
identity rules look for repeated operands of `and`/`or`.
"""

from __future__ import annotations

from typing import NamedTuple

from ..model.expression import Call, Expression

__all__ = ["ASSOCIATIVE_COMMUTATIVE", "Chain", "ExprKey", "flatten_chain"]

# Arrow's IsBinaryAssociativeCommutative, and the bit-wise and/or/xor, which are too
# (on integers of any widths: sign extension distributes over each of them)
ASSOCIATIVE_COMMUTATIVE = frozenset({
    "and", "or", "and_kleene", "or_kleene", "xor", "add", "add_checked", "multiply",
    "multiply_checked", "bit_wise_and", "bit_wise_or", "bit_wise_xor",
})


class Chain(NamedTuple):
    fringe: list[Expression]  # the leaves, left to right
    exprs: list[Call]  # the chain's own calls, the root first
    was_left_folded: bool  # every expanded call was at the front: ((a op b) op c)


def flatten_chain(root: Call) -> Chain:
    """Expand same-name arguments depth-first, left to right, as Arrow does."""
    name = root.name
    fringe: list[Expression] = []
    exprs: list[Call] = [root]
    left_folded = True
    stack = list(reversed(root.args))
    while stack:
        node = stack.pop()
        if node.is_call and node.name == name:
            if fringe:
                left_folded = False
            exprs.append(node)
            stack.extend(reversed(node.args))
        else:
            fringe.append(node)
    return Chain(fringe, exprs, left_folded)


class ExprKey:
    """An Expression usable as a dict key by structural equality (`==` builds a call)."""

    __slots__ = ("_hash", "expr")

    def __init__(self, expr: Expression):
        self.expr = expr
        self._hash = hash(expr)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return isinstance(other, ExprKey) and self.expr.equals(other.expr)
