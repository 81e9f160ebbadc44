"""Only the columns something above needs are read and computed (DataFusion's OptimizeProjections).

Walking down from the root with the set of columns the parent needs: scans read
only those (plus the ones filters, sorts, joins and aggregates beneath use),
inner projections and aggregates drop outputs nobody reads. The root keeps its
whole schema. A scan keeps at least one column, so that counting rows still
has rows to count.
"""

from __future__ import annotations

from ...rewrite import Transformed
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
    order = "plan"  # what a node needs comes from all its ancestors

    def rewrite(self, plan, ctx):
        firings: list = []
        out = self._prune(plan, None, firings)
        return Transformed(out, bool(firings), tuple(firings)) if firings else None

    def _prune(self, node, required, firings):
        """`node` producing at least `required` (None: everything it produces now)."""
        if isinstance(node, TableScan):
            return self._scan(node, required, firings)
        if isinstance(node, EmptyRelation):
            return node
        if isinstance(node, Projection):
            keep = [i for i, f in enumerate(node.schema)
                    if required is None or f.qualified_name in required] or [0]
            exprs = [node.exprs[i] for i in keep]
            child = self._prune(node.input, _needs(exprs), firings)
            if len(keep) == len(node.exprs) and child is node.input:
                return node
            out = Projection(child, exprs, [node.names[i] for i in keep],
                             [node.relations[i] for i in keep])
            if len(keep) < len(node.exprs):
                firings.append(self.firing(node, out, f"projection computes {len(keep)} of "
                                                      f"{len(node.exprs)} columns"))
            return out
        if isinstance(node, Aggregate):
            n = len(node.group_exprs)
            keep = [a for a, f in zip(node.aggregates, list(node.schema)[n:])
                    if required is None or f.qualified_name in required]
            if not keep and not node.group_exprs:
                keep = [node.aggregates[0]]
            need = _needs(node.group_exprs) | _needs(a.arg for a in keep if a.arg is not None)
            child = self._prune(node.input, need, firings)
            if len(keep) == len(node.aggregates) and child is node.input:
                return node
            out = Aggregate(child, node.group_exprs, node.group_names, node.group_relations, keep)
            if len(keep) < len(node.aggregates):
                firings.append(self.firing(node, out, f"aggregate computes {len(keep)} of "
                                                      f"{len(node.aggregates)} aggregates"))
            return out
        if isinstance(node, Join):
            left_names = set(node.left.schema.qualified_names)
            right_names = set(node.right.schema.qualified_names)
            need = None if required is None else set(required)
            left_need = None if need is None else (need & left_names) | {lk for lk, _ in node.on}
            right_need = None if need is None else (need & right_names) | {rk for _, rk in node.on}
            left = self._prune(node.left, left_need, firings)
            right = self._prune(node.right, right_need, firings)
            if left is node.left and right is node.right:
                return node
            return node.with_new_children([left, right])
        if isinstance(node, (Filter, Sort, Limit)):
            need = None if required is None else set(required) | _needs(node.expressions())
            child = self._prune(node.input, need, firings)
            return node if child is node.input else node.with_new_children([child])
        return node

    def _scan(self, scan, required, firings):
        if required is None:
            return scan
        keep = [f.name for f in scan.schema if f.qualified_name in required]
        if not keep:
            keep = [scan.schema[0].name]
        current = list(scan.schema.names)
        if keep == current:
            return scan
        out = scan.with_projection(keep)
        firings.append(self.firing(scan, out, f"scan of {scan.relation} reads {len(keep)} of "
                                              f"{len(current)} columns"))
        return out

