"""Two filters in a row become one: `Filter(Filter(x, p), q)` -> `Filter(x, p and q)`.

With Kleene `and` evaluated lazily, `q` still runs only where `p` is not false.
Where `p` is null the merged filter would evaluate `q` while the original did
not, so a `q` that can fail on some row (a division, a cast) is not merged.
"""

from __future__ import annotations

from ...builders import and_
from ..logical_plan import Filter
from ..tree import transform_up
from .base import Rule, can_fail, is_pure

__all__ = ["MergeFilters"]


class MergeFilters(Rule):
    name = "merge_filters"

    def rewrite(self, plan, ctx):
        def visit(node):
            if not (isinstance(node, Filter) and isinstance(node.input, Filter)):
                return node
            inner = node.input
            if can_fail(node.predicate) or not is_pure(node.predicate) or \
                    not is_pure(inner.predicate):
                return node
            ctx.note(f"merged {node.predicate} into {inner.predicate}")
            return Filter(inner.input, and_(inner.predicate, node.predicate))

        return transform_up(plan, visit)
