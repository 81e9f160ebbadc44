"""Filters whose predicate is a constant: true goes away, false or null empties the relation.

DataFusion's EliminateFilter. The constant usually comes from
`simplify_expressions` (a predicate implied, or contradicted, by a filter below).
"""

from __future__ import annotations

from ..logical_plan import EmptyRelation, Filter
from ..tree import transform_up
from .base import Rule

__all__ = ["EliminateFilter"]


class EliminateFilter(Rule):
    name = "eliminate_filter"

    def rewrite(self, plan, ctx):
        def visit(node):
            if not isinstance(node, Filter) or not node.predicate.is_literal:
                return node
            value = node.predicate.value
            if value.is_valid and value.as_py() is True:
                ctx.note("dropped an always-true filter")
                return node.input
            ctx.note(f"filter {node.predicate} keeps no row")
            return EmptyRelation(node.schema, reason=f"filter {node.predicate}")

        return transform_up(plan, visit)
