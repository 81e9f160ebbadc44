"""Filters move toward the scans, so fewer rows reach the work above them.

DataFusion's PushDownFilter, for the nodes exprscope has:

- below a Projection: the predicate's references to projected columns are
  replaced by their expressions (`Filter(Projection(x, [a+1 AS b]), b > 3)` ->
  `Projection(Filter(x, (a+1) > 3), ...)`); not when an expression is impure or a
  reference reaches into a struct column;
- below a Sort (sorting fewer rows gives the same order);
- below an Aggregate, the conjuncts that read only plain group-key columns;
- into a join: conjuncts that read one side only go to that side, when the join
  emits that side's rows unchanged or not at all (a left, semi or anti join only
  to the left, a right join only to the right, a full join nowhere: filtering the
  other side would change which rows get null-extended). A predicate that can fail on some row is moved whole or not at
  all, and never into an inner join (whose unmatched rows it never saw), so no
  part of it runs on rows the original never evaluated.

Never below a Limit (that changes which rows are kept).
"""

from __future__ import annotations

from ...functions.facts import can_fail, conjuncts, is_pure
from ...model.builders import and_
from ..columns import columns_of
from ..guarantees import passthrough_columns
from ..logical_plan import JOIN_NODES, Aggregate, Filter, Projection, Sort
from .base import Rule, substitute_columns

__all__ = ["PushDownFilter"]


def _filter(input, parts):
    return input if not parts else Filter(input, and_(parts))


def _split(predicate):
    """Conjuncts that may move separately (all of them, or the whole when one can fail)."""
    return [predicate] if can_fail(predicate) else conjuncts(predicate)


# the joins that emit each row of their left (right) input unchanged or not at all, never
# null-extended: a filter on that side's columns may run before the join
_KEEPS_LEFT_ROWS = {"inner", "cross", "left", "semi", "anti"}
_KEEPS_RIGHT_ROWS = {"inner", "cross", "right"}


class PushDownFilter(Rule):
    name = "push_down_filter"
    order = "pre"

    def rewrite(self, node, ctx):
        if not isinstance(node, Filter) or not is_pure(node.predicate):
            return None
        child = node.input
        if isinstance(child, Projection):
            return self._below_projection(node, child)
        if isinstance(child, Sort):
            return self.fired(child.with_new_children([Filter(child.input, node.predicate)]),
                              f"pushed {node.predicate} below a sort")
        if isinstance(child, Aggregate):
            return self._below_aggregate(node, child)
        if isinstance(child, JOIN_NODES):
            return self._into_join(node, child)
        return None

    def _below_projection(self, node, projection):
        if not all(is_pure(e) for e in projection.exprs):
            return None
        replacements = {f.qualified_name: e for f, e in zip(projection.schema, projection.exprs)}
        moved = substitute_columns(node.predicate, replacements)
        if moved is None:
            return None
        return self.fired(projection.with_new_children([Filter(projection.input, moved)]),
                          f"pushed {node.predicate} below a projection as {moved}")

    def _below_aggregate(self, node, aggregate):
        keys = passthrough_columns(aggregate.group_exprs, aggregate.schema)
        parts = _split(node.predicate)
        down = [p for p in parts if columns_of(p) and columns_of(p) <= keys]
        if not down:
            return None
        stay = [p for p in parts if not any(p is d for d in down)]
        return self.fired(
            _filter(aggregate.with_new_children([_filter(aggregate.input, down)]), stay),
            f"pushed {', '.join(str(p) for p in down)} below an aggregate")

    def _into_join(self, node, join):
        if can_fail(node.predicate) and join.how != "left":
            return None  # rows without a match would now be evaluated too
        left_cols = set(join.left.schema.qualified_names)
        right_cols = set(join.right.schema.qualified_names)
        left, right, stay = [], [], []
        for part in _split(node.predicate):
            cols = columns_of(part)
            if cols and cols <= left_cols and join.how in _KEEPS_LEFT_ROWS:
                left.append(part)
            elif cols and cols <= right_cols and join.how in _KEEPS_RIGHT_ROWS:
                right.append(part)
            else:
                stay.append(part)
        if not left and not right:
            return None
        moved = [f"{p} to the left input" for p in left] + [f"{p} to the right input"
                                                             for p in right]
        new_join = join.with_new_children([_filter(join.left, left), _filter(join.right, right)])
        return self.fired(_filter(new_join, stay), "pushed " + ", ".join(moved))
