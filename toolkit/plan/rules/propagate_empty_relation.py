"""An empty input makes most nodes empty: DataFusion's PropagateEmptyRelation.

A projection, filter, sort or limit of nothing is nothing; so is an inner join
with an empty side, a left join with an empty left side, and an aggregate with
group keys over no rows. A global aggregate is not: it still yields one row
(count 0, sum null).
"""

from __future__ import annotations

from ..logical_plan import Aggregate, EmptyRelation, Filter, Join, Limit, Projection, Sort
from .base import Rule

__all__ = ["PropagateEmptyRelation"]


def _empty(node) -> bool:
    return isinstance(node, EmptyRelation)


class PropagateEmptyRelation(Rule):
    name = "propagate_empty_relation"
    order = "post"

    def rewrite(self, node, ctx):
        if isinstance(node, (Projection, Filter, Sort, Limit)) and _empty(node.input):
            empties = True
        elif isinstance(node, Aggregate):
            empties = _empty(node.input) and bool(node.group_exprs)
        elif isinstance(node, Join):
            empties = _empty(node.left) or (node.how == "inner" and _empty(node.right))
        else:
            empties = False
        if not empties:
            return None
        return self.fired(EmptyRelation(node.schema, reason="empty input"),
                          f"{node.label().split(':')[0]} over an empty input is empty")
