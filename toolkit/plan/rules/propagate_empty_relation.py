"""An empty input makes most nodes empty: DataFusion's PropagateEmptyRelation.

A projection, filter, sort or limit of nothing is nothing; so is an inner join
with an empty side, a left join with an empty left side, and an aggregate with
group keys over no rows. A global aggregate is not: it still yields one row
(count 0, sum null).
"""

from __future__ import annotations

from ..logical_plan import JOIN_NODES, Aggregate, EmptyRelation, Filter, Limit, Projection, Sort
from .base import Rule

__all__ = ["PropagateEmptyRelation"]


def _empty(node) -> bool:
    return isinstance(node, EmptyRelation)


# the joins whose output is empty when their left (right) input is
_EMPTY_WITH_LEFT = {"inner", "cross", "left", "semi", "anti"}
_EMPTY_WITH_RIGHT = {"inner", "cross", "right", "semi"}


class PropagateEmptyRelation(Rule):
    name = "propagate_empty_relation"
    order = "post"

    def rewrite(self, node, ctx):
        if isinstance(node, (Projection, Filter, Sort, Limit)) and _empty(node.input):
            empties = True
        elif isinstance(node, Aggregate):
            empties = _empty(node.input) and bool(node.group_exprs)
        elif isinstance(node, JOIN_NODES):
            empties = ((_empty(node.left) and node.how in _EMPTY_WITH_LEFT)
                       or (_empty(node.right) and node.how in _EMPTY_WITH_RIGHT))
        else:
            empties = False
        if not empties:
            return None
        return self.fired(EmptyRelation(node.schema, reason="empty input"),
                          f"{node.label().split(':')[0]} over an empty input is empty")
