"""scalar_subquery_to_join: a scalar subquery's value becomes a left-joined column.

As DataFusion's ScalarSubqueryToJoin: each input row gets the subquery's value, null
when the subquery has no row for it, which a left join of the input with the subquery
on its correlated keys (none: a join with its one row) computes. It runs first, with
decorrelate_predicate_subquery, so the other rules see the join.
"""

from __future__ import annotations

from ..logical_plan import ScalarSubquery
from .base import Rule

__all__ = ["ScalarSubqueryToJoin"]


class ScalarSubqueryToJoin(Rule):
    name = "scalar_subquery_to_join"
    order = "post"

    def rewrite(self, node, ctx):
        if not isinstance(node, ScalarSubquery):
            return None
        join = node.as_join
        ties = ", ".join(f"{lk} = {rk}" for lk, rk in join.on)
        how = f"on {ties}" if ties else "without keys (an uncorrelated subquery: one row)"
        return self.fired(join, f"the scalar subquery became a left join {how}")
