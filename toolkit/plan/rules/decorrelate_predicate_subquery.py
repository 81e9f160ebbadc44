"""decorrelate_predicate_subquery: `[NOT] EXISTS` / `[NOT] IN (subquery)` becomes a join.

As DataFusion's DecorrelatePredicateSubquery: a SubqueryFilter keeps the input rows
with a matching subquery row (EXISTS, IN) or without one (NOT EXISTS, NOT IN), which
is what a semi (anti) join of the input with the subquery on the same keys and
condition computes. The rule runs first, so the other rules see the join.
"""

from __future__ import annotations

from ..logical_plan import SubqueryFilter
from .base import Rule

__all__ = ["DecorrelatePredicateSubquery"]


class DecorrelatePredicateSubquery(Rule):
    name = "decorrelate_predicate_subquery"
    order = "post"

    def rewrite(self, node, ctx):
        if not isinstance(node, SubqueryFilter):
            return None
        join = node.as_join
        word = ("NOT " if node.negated else "") + node.kind.upper()
        ties = [f"{lk} = {rk}" for lk, rk in join.on]
        how = (f"on {', '.join(ties)}" if ties else "without keys") + (
            f" with condition {join.condition}" if join.condition is not None else "")
        return self.fired(join, f"the {word} subquery became {'an anti' if node.negated else 'a semi'} join {how}")
