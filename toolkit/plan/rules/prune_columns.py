"""Only the columns something above needs are read and computed (DataFusion's OptimizeProjections).

Walking down from the root with the set of columns the parent needs: scans read
only those (plus the ones filters, sorts, joins and aggregates beneath use),
inner projections and aggregates drop outputs nobody reads. The root keeps its
whole schema. A scan keeps at least one column, so that counting rows still
has rows to count.
"""

from __future__ import annotations

from ..columns import columns_of
from ..logical_plan import (
    Aggregate,
    EmptyRelation,
    Filter,
    Join,
    Limit,
    Projection,
    Sort,
    TableScan,
)
from .base import Rule

__all__ = ["PruneColumns"]


def _needs(exprs) -> set[str]:
    out: set[str] = set()
    for e in exprs:
        out |= columns_of(e)
    return out


class PruneColumns(Rule):
    name = "prune_columns"

    def rewrite(self, plan, ctx):
        return self._prune(plan, None, ctx)

    def _prune(self, node, required, ctx):
        """`node` producing at least `required` (None: everything it produces now)."""
        if isinstance(node, TableScan):
            return self._scan(node, required, ctx)
        if isinstance(node, EmptyRelation):
            return node
        if isinstance(node, Projection):
            keep = [i for i, f in enumerate(node.schema)
                    if required is None or f.qualified_name in required] or [0]
            exprs = [node.exprs[i] for i in keep]
            child = self._prune(node.input, _needs(exprs), ctx)
            if len(keep) == len(node.exprs) and child is node.input:
                return node
            if len(keep) < len(node.exprs):
                ctx.note(f"projection computes {len(keep)} of {len(node.exprs)} columns")
            return Projection(child, exprs, [node.names[i] for i in keep],
                              [node.relations[i] for i in keep])
        if isinstance(node, Aggregate):
            n = len(node.group_exprs)
            keep = [a for a, f in zip(node.aggregates, list(node.schema)[n:])
                    if required is None or f.qualified_name in required]
            if not keep and not node.group_exprs:
                keep = [node.aggregates[0]]
            need = _needs(node.group_exprs) | _needs(a.arg for a in keep if a.arg is not None)
            child = self._prune(node.input, need, ctx)
            if len(keep) == len(node.aggregates) and child is node.input:
                return node
            if len(keep) < len(node.aggregates):
                ctx.note(f"aggregate computes {len(keep)} of {len(node.aggregates)} aggregates")
            return Aggregate(child, node.group_exprs, node.group_names, node.group_relations, keep)
        if isinstance(node, Join):
            left_names = set(node.left.schema.qualified_names)
            right_names = set(node.right.schema.qualified_names)
            need = None if required is None else set(required)
            left_need = None if need is None else (need & left_names) | {lk for lk, _ in node.on}
            right_need = None if need is None else (need & right_names) | {rk for _, rk in node.on}
            left = self._prune(node.left, left_need, ctx)
            right = self._prune(node.right, right_need, ctx)
            if left is node.left and right is node.right:
                return node
            return node.with_new_children([left, right])
        if isinstance(node, (Filter, Sort, Limit)):
            need = None if required is None else set(required) | _needs(node.expressions())
            child = self._prune(node.input, need, ctx)
            return node if child is node.input else node.with_new_children([child])
        return node

    def _scan(self, scan, required, ctx):
        if required is None:
            return scan
        keep = [f.name for f in scan.schema if f.qualified_name in required]
        if not keep:
            keep = [scan.schema[0].name]
        current = list(scan.schema.names)
        if keep == current:
            return scan
        ctx.note(f"scan of {scan.relation} reads {len(keep)} of {len(current)} columns")
        return scan.with_projection(keep)

