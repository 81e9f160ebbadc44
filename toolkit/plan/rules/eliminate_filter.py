"""Filters whose predicate is a constant: true goes away, false or null empties the relation.

DataFusion's EliminateFilter. The constant usually comes from
`simplify_expressions` (a predicate implied, or contradicted, by a filter below).
"""

from __future__ import annotations

from ..logical_plan import EmptyRelation, Filter
from .base import Rule

__all__ = ["EliminateFilter"]


class EliminateFilter(Rule):
    name = "eliminate_filter"
    order = "post"

    def rewrite(self, node, ctx):
        if not isinstance(node, Filter) or not node.predicate.is_literal:
            return None
        value = node.predicate.value
        if value.is_valid and value.as_py() is True:
            return self.fired(node.input, "dropped an always-true filter")
        return self.fired(EmptyRelation(node.schema, reason=f"filter {node.predicate}"),
                          f"filter {node.predicate} keeps no row")
