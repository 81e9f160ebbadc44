"""simplify_identities: the rules exprscope adds to Arrow's, as one pass.

Each rule keeps the result on every row, nulls and NaN included (see the rule
modules for why each one is exact). Repeated and/or operands are found per
chain in a pre-order sweep (a chain is read once, not once per link); the local
rules run post-order, again on a node while one of them fires.
"""

from __future__ import annotations

from ..model.expression import Call, Expression
from ..rewrite import Transformed
from .arithmetic_identities import NEUTRAL_OPERANDS, arithmetic_identity
from .common_conjuncts import CONJUNCTION_OF, common_conjuncts
from .comparison import BITS
from .conditional_identities import coalesce_truncation, constant_case_when, constant_if_else
from .equalities_to_set import SET_CHAINS, equalities_to_set_lookup
from .framework import optimization_pass, require_bound, sweep_post, sweep_pre
from .logic_identities import IDEMPOTENT_CHAINS, double_negation, duplicate_operands
from .null_identities import non_nullable_validity, self_comparison

__all__ = ["LOCAL_RULES", "simplify_identities"]

LOCAL_RULES = {
    "invert": double_negation,
    "is_null": non_nullable_validity,
    "is_valid": non_nullable_validity,
    "true_unless_null": non_nullable_validity,
    "if_else": constant_if_else,
    "case_when": constant_case_when,
    "coalesce": coalesce_truncation,
    **{name: self_comparison for name in BITS},
    **{name: arithmetic_identity for name in NEUTRAL_OPERANDS},
}
_MAX_STEPS_PER_NODE = 8


@optimization_pass("simplify_identities")
def simplify_identities(expr: Expression, **ctx) -> Expression:
    """Apply the extra identities; the very same object when none applies."""
    require_bound(expr, "Cannot simplify identities in an unbound expression.")
    done: dict[int, Expression] = {}

    def chain_rule(node: Expression) -> Transformed | None:
        if not node.is_call or node.name not in IDEMPOTENT_CHAINS or id(node) in done:
            return None
        fired = duplicate_operands(node, done)
        if node.name in SET_CHAINS:
            merged = equalities_to_set_lookup(fired.node if fired else node, done)
            fired = fired.then(merged) if fired else merged
        current = fired.node if fired else node
        if current.is_call and current.name in CONJUNCTION_OF:
            factored = common_conjuncts(current, done)
            fired = fired.then(factored) if fired else factored
        return fired

    expr = sweep_pre(expr, chain_rule)
    return sweep_post(expr, _local_rule)


def _local_rule(call: Call) -> Transformed | None:
    rule = LOCAL_RULES.get(call.name)
    if rule is None:
        return None
    fired = rule(call)
    if fired is None:
        return None
    # one rule's result may enable another at the same place (coalesce -> one argument, ...)
    for _ in range(_MAX_STEPS_PER_NODE):
        after = fired.node
        follow = LOCAL_RULES.get(after.name) if after.is_call else None
        more = follow(after) if follow is not None else None
        if more is None:
            break
        fired = fired.then(more)
    return fired
