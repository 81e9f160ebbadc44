"""canonicalize: one spelling for equivalent expressions, so later rules match.

Arrow's Canonicalize (docs/semantics.md §5).

Chains of associative-commutative calls are flattened and refolded left with
null literals first, then literals, then the rest (`b and (true and c)` becomes
`((true and b) and c)`), and comparisons get their literal on the right (`1 < a`
becomes `a > 1`). Nothing is evaluated. Pre-order; impure calls are skipped.
"""

from __future__ import annotations

import itertools

from ..model.expression import Expression
from ..rewrite import Transformed
from .chain import ASSOCIATIVE_COMMUTATIVE, flatten_chain
from .comparison import BITS, NAMES, flipped
from .framework import optimization_pass, require_bound, sweep_pre
from .rebind import bind_new_call, with_args_rebound

__all__ = ["canonical_order", "canonical_priority", "canonicalize", "flipped_name",
           "is_chain_call"]


def canonical_priority(operand: Expression) -> int:
    """Arrow's canonical order: null literals, then literals, then everything else."""
    if operand.is_literal:
        return 0 if operand.is_null_literal else 1
    return 2


def canonical_order(fringe: list[Expression]) -> list[Expression]:
    """A chain's operands in canonical order (a stable sort: equals keep their order)."""
    priorities = [canonical_priority(f) for f in fringe]
    return [f for _, f in sorted(zip(priorities, fringe), key=lambda pf: pf[0])]


def is_chain_call(node: Expression) -> bool:
    """A call canonicalize regroups with the calls of its name below it."""
    return node.is_call and node.name in ASSOCIATIVE_COMMUTATIVE and node.function.pure


def flipped_name(node: Expression) -> str | None:
    """The comparison `node` becomes with its sides swapped, when canonicalize swaps
    them (a literal on the left of anything else); None when it keeps `node`."""
    bits = BITS.get(node.name) if node.is_call else None
    if bits is None or len(node.args) != 2 or not node.function.pure:
        return None
    left, right = node.args
    if left.is_literal and not right.is_literal:
        return NAMES[flipped(bits)]
    return None


@optimization_pass("canonicalize", idempotent=True)
def canonicalize(expr: Expression, **ctx) -> Expression:
    """Canonical form of a bound expression; the very same object when it already is."""
    require_bound(expr, "Cannot canonicalize an unbound expression.")
    done: dict[int, Expression] = {}  # chain calls known canonical: skip re-flattening

    def rule(node: Expression) -> Transformed | None:
        if not node.is_call or id(node) in done or not node.function.pure:
            return None
        if is_chain_call(node):
            return _reorder_chain(node, done)
        name = flipped_name(node)
        if name is not None:
            left, right = node.args
            after = bind_new_call(name, (right, left), node.options)
            how = "stays" if name == node.name else "became"
            return Transformed.fired(after, "canonicalize/flip-comparison",
                         f"literal moved to the right, {node.name} {how} {name}")
        return None

    return sweep_pre(expr, rule)


def _reorder_chain(node, done) -> Transformed | None:
    chain = flatten_chain(node)
    priorities = [canonical_priority(f) for f in chain.fringe]
    in_order = all(a <= b for a, b in itertools.pairwise(priorities))
    if chain.was_left_folded and in_order:
        for call in chain.exprs:
            done[id(call)] = call
        return None
    fringe = canonical_order(chain.fringe)
    folded = fringe[0]
    for operand in fringe[1:]:
        folded = with_args_rebound(node, (folded, operand))
        done[id(folded)] = folded
    n = len(fringe)
    if in_order:
        return Transformed.fired(folded, "canonicalize/refold-left",
                     f"chain of {n} {node.name} operands regrouped as a left fold")
    return Transformed.fired(folded, "canonicalize/reorder-commutative",
                 f"literals moved to the front of a chain of {n} {node.name} operands "
                 "(null literals first)")
