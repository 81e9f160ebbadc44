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
    JOIN_NODES,
    Aggregate,
    Filter,
    Limit,
    Projection,
    Sort,
    TableScan,
    Union,
    Window,
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
        out = self._prune(plan, firings)
        return Transformed(out, bool(firings), tuple(firings)) if firings else None

    def _prune(self, root, firings):
        """`root` pruned: requirements go down, rebuilt nodes come up, on an explicit stack.

        Post-order like a recursive walk (a node's firings after its inputs'), at any depth.
        """
        done: list = []  # rebuilt nodes whose parent is not finished yet
        stack: list = [(root, None, None)]  # (node, required, its split once its inputs run)
        while stack:
            node, required, split = stack.pop()
            if split is None:
                split = self._split(node, required, firings)
                stack.append((node, required, split))
                needs = split[0]
                stack.extend((c, n) + (None,) for c, n in zip(reversed(node.children),
                                                              reversed(needs)))
                continue
            needs, finish = split
            inputs = done[len(done) - len(needs):]
            del done[len(done) - len(needs):]
            done.append(finish(inputs))
        return done[0]

    def _split(self, node, required, firings):
        """(what each input must produce, a function from the pruned inputs to the node).

        `required` is the set of columns the parent reads (None: everything `node`
        produces now).
        """
        if isinstance(node, TableScan):
            return [], lambda _: self._scan(node, required, firings)
        if isinstance(node, Projection):
            return self._split_projection(node, required, firings)
        if isinstance(node, Aggregate):
            return self._split_aggregate(node, required, firings)
        if isinstance(node, JOIN_NODES):
            if required is None:
                return [None, None], lambda inputs: _with_inputs(node, inputs)
            need = set(required) | _needs(node.expressions())
            left = set(node.left.schema.qualified_names)
            right = set(node.right.schema.qualified_names)
            return ([(need & left) | {lk for lk, _ in node.on},
                     (need & right) | {rk for _, rk in node.on}],
                    lambda inputs: _with_inputs(node, inputs))
        if isinstance(node, Union):  # columns match by position: each input keeps them all
            return [None] * len(node.children), lambda inputs: _with_inputs(node, inputs)
        if isinstance(node, Window):  # its input's columns it passes, plus what it reads
            if required is None:
                return [None], lambda inputs: _with_inputs(node, inputs)
            need = (set(required) & set(node.input.schema.qualified_names)) | _needs(
                e for w in node.functions for e in w.expressions())
            return [need], lambda inputs: _with_inputs(node, inputs)
        if isinstance(node, (Filter, Sort, Limit)):
            need = None if required is None else set(required) | _needs(node.expressions())
            return [need], lambda inputs: _with_inputs(node, inputs)
        return [], lambda _: node  # EmptyRelation, and any node this rule does not know

    def _split_projection(self, node, required, firings):
        keep = [i for i, f in enumerate(node.schema)
                if required is None or f.qualified_name in required] or [0]
        exprs = [node.exprs[i] for i in keep]

        def finish(inputs):
            child = inputs[0]
            if len(keep) == len(node.exprs) and child is node.input:
                return node
            out = Projection(child, exprs, [node.names[i] for i in keep],
                             [node.relations[i] for i in keep])
            if len(keep) < len(node.exprs):
                firings.append(self.firing(node, out, f"projection computes {len(keep)} of "
                                                      f"{len(node.exprs)} columns"))
            return out
        return [_needs(exprs)], finish

    def _split_aggregate(self, node, required, firings):
        n = len(node.group_exprs)
        keep = [a for a, f in zip(node.aggregates, list(node.schema)[n:])
                if required is None or f.qualified_name in required]
        if not keep and not node.group_exprs:
            keep = [node.aggregates[0]]
        need = _needs(node.group_exprs) | _needs(a.arg for a in keep if a.arg is not None)

        def finish(inputs):
            child = inputs[0]
            if len(keep) == len(node.aggregates) and child is node.input:
                return node
            out = Aggregate(child, node.group_exprs, node.group_names, node.group_relations,
                            keep)
            if len(keep) < len(node.aggregates):
                firings.append(self.firing(node, out, f"aggregate computes {len(keep)} of "
                                                      f"{len(node.aggregates)} aggregates"))
            return out
        return [need], finish

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



def _with_inputs(node, inputs):
    """`node` over its pruned inputs (the node itself when none changed)."""
    if all(new is old for new, old in zip(inputs, node.children)):
        return node
    return node.with_new_children(list(inputs))
