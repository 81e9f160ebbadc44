"""What is known to hold for every row a node outputs: the filters beneath it.

A Filter's predicate is true on every row it passes. That knowledge survives
nodes that keep the columns it mentions: sorts, limits, projections that pass
those columns through unchanged, an aggregate's plain group keys, both sides of
an inner join and the left side of a left join (the right side of a left join
is null-extended, so its filters no longer hold there). The expression passes
use these guarantees to simplify (`simplify_with_guarantee`).
"""

from __future__ import annotations

from ..functions.facts import conjuncts
from ..model.expression import Expression
from .columns import columns_of
from .logical_plan import JOIN_NODES, Aggregate, Filter, Limit, Projection, Sort

__all__ = ["guarantees_of", "passthrough_columns"]


def passthrough_columns(exprs, fields) -> set[str]:
    """Qualified names an output keeps unchanged: a plain column ref under its own name."""
    kept = set()
    for expr, field in zip(exprs, fields):
        if expr.is_field and len(expr.ref.leaves()) == 1 and expr.ref.name == field.qualified_name:
            kept.add(field.qualified_name)
    return kept


MAX_GUARANTEES = 64  # the nearest conjuncts beneath a node that simplify its expressions


def guarantees_of(plan, memo: dict | None = None) -> list[Expression]:
    """Predicates true on every row `plan` outputs (column refs by qualified name).

    The nearest `MAX_GUARANTEES` of them: a thousand filters stacked on each other
    would otherwise hand each one a thousand-member guarantee, quadratic in the
    plan's depth. Iterative; `memo` (id -> (node, list)) shares the answers of a
    whole rewrite, so each node is looked at once.
    """
    memo = {} if memo is None else memo
    stack = [(plan, False)]
    while stack:
        node, expanded = stack.pop()
        hit = memo.get(id(node))
        if hit is not None and hit[0] is node:
            continue
        inputs = node.children if isinstance(
            node, (Filter, Sort, Limit, Projection, Aggregate, *JOIN_NODES)) else ()
        if not expanded and any(memo.get(id(c), (None,))[0] is not c for c in inputs):
            stack.append((node, True))
            stack.extend((c, False) for c in inputs)
            continue
        below = [memo[id(c)][1] for c in inputs]
        if isinstance(node, Filter):
            out = conjuncts(node.predicate) + below[0]
        elif isinstance(node, (Sort, Limit)):
            out = below[0]
        elif isinstance(node, (Projection, Aggregate)):
            exprs = node.exprs if isinstance(node, Projection) else node.group_exprs
            kept = passthrough_columns(exprs, node.schema)
            out = [g for g in below[0] if columns_of(g) <= kept]
        elif isinstance(node, JOIN_NODES):
            # what holds of every row a side emits unchanged (not null-extended)
            out = {"inner": below[0] + below[1], "cross": below[0] + below[1],
                   "left": below[0], "semi": below[0], "anti": below[0],
                   "right": below[1]}.get(node.how, [])
        else:
            out = []
        memo[id(node)] = (node, out[:MAX_GUARANTEES])
    return memo[id(plan)][1]
