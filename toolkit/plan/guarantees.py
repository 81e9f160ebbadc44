"""What is known to hold for every row a node outputs: the filters beneath it.

A Filter's predicate is true on every row it passes. That knowledge survives
nodes that keep the columns it mentions: sorts, limits, projections that pass
those columns through unchanged, an aggregate's plain group keys, both sides of
an inner join and the left side of a left join (the right side of a left join
is null-extended, so its filters no longer hold there). The expression passes
use these guarantees to simplify (`simplify_with_guarantee`).
"""

from __future__ import annotations

from ..expression import Expression
from .columns import columns_of

__all__ = ["conjuncts", "guarantees_of", "passthrough_columns"]


def conjuncts(expr: Expression) -> list[Expression]:
    """The members of a chain of `and_kleene` (the expression itself otherwise)."""
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        if node.is_call and node.name == "and_kleene":
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


def passthrough_columns(exprs, fields) -> set[str]:
    """Qualified names an output keeps unchanged: a plain column ref under its own name."""
    kept = set()
    for expr, field in zip(exprs, fields):
        if expr.is_field and len(expr.ref.leaves()) == 1 and expr.ref.name == field.qualified_name:
            kept.add(field.qualified_name)
    return kept


def guarantees_of(plan) -> list[Expression]:
    """Predicates true on every row `plan` outputs (column refs by qualified name)."""
    from .logical_plan import Aggregate, Filter, Join, Limit, Projection, Sort

    if isinstance(plan, Filter):
        return conjuncts(plan.predicate) + guarantees_of(plan.input)
    if isinstance(plan, (Sort, Limit)):
        return guarantees_of(plan.input)
    if isinstance(plan, Projection):
        kept = passthrough_columns(plan.exprs, plan.schema)
        return [g for g in guarantees_of(plan.input) if columns_of(g) <= kept]
    if isinstance(plan, Aggregate):
        kept = passthrough_columns(plan.group_exprs, plan.schema)
        return [g for g in guarantees_of(plan.input) if columns_of(g) <= kept]
    if isinstance(plan, Join):
        left = guarantees_of(plan.left)
        return left + guarantees_of(plan.right) if plan.how == "inner" else left
    return []
