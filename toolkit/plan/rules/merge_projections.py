"""Two projections in a row become one, the inner expressions substituted into the outer.

Not when the inner projection has an impure expression, when an outer reference
reaches into a struct column, or when an inner computed expression is used more
than once above (merging would compute it twice), as DataFusion's rule also avoids.
"""

from __future__ import annotations

from collections import Counter

from ...functions.facts import is_pure
from ...model.expression import preorder
from ..logical_plan import Projection
from .base import Rule, substitute_columns

__all__ = ["MergeProjections"]


class MergeProjections(Rule):
    name = "merge_projections"
    order = "post"

    def rewrite(self, node, ctx):
        if not (isinstance(node, Projection) and isinstance(node.input, Projection)):
            return None
        inner = node.input
        if not all(is_pure(e) for e in inner.exprs):
            return None
        replacements = {f.qualified_name: e for f, e in zip(inner.schema, inner.exprs)}
        uses = Counter(ref.leaves()[0].name for e in node.exprs for ref in _all_refs(e))
        for name, expr in replacements.items():
            if expr.is_call and uses[name] > 1:
                return None
        merged = [substitute_columns(e, replacements) for e in node.exprs]
        if any(m is None for m in merged):
            return None
        return self.fired(Projection(inner.input, merged, node.names, node.relations),
                          f"merged a projection of {len(inner.exprs)} into one of "
                          f"{len(node.exprs)}")


def _all_refs(expr):
    """Every field reference, repeats included (field_refs() keeps each once)."""
    return [n.ref for n in preorder(expr) if n.is_field]
