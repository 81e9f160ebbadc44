"""Filters in a row become one: `Filter(Filter(x, p), q)` -> `Filter(x, p and q)`.

With Kleene `and` evaluated lazily, `q` still runs only where `p` is not false.
Where `p` is null the merged filter would evaluate `q` while the original did
not, so a `q` that can fail on some row (a division, a cast) is not merged.
A whole run of filters is merged in one step (innermost predicate first), so a
chain of a thousand filters costs one conjunction, not a thousand growing ones.
"""

from __future__ import annotations

from ...functions.facts import can_fail, is_pure
from ...model.builders import and_
from ..logical_plan import Filter
from .base import Rule

__all__ = ["MergeFilters"]


class MergeFilters(Rule):
    name = "merge_filters"
    order = "pre"

    def rewrite(self, node, ctx):
        if not (isinstance(node, Filter) and isinstance(node.input, Filter)):
            return None
        run = [node]  # outermost first
        while isinstance(run[-1].input, Filter) and _mergeable(run[-1], run[-1].input):
            run.append(run[-1].input)
        if len(run) == 1:
            return None
        predicate = and_(*[f.predicate for f in reversed(run)])
        return self.fired(Filter(run[-1].input, predicate),
                          f"merged {len(run)} filters in a row into one")


def _mergeable(outer: Filter, inner: Filter) -> bool:
    return (not can_fail(outer.predicate) and is_pure(outer.predicate)
            and is_pure(inner.predicate))
