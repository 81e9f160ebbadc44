"""Every expression of the plan through the expression passes, with the filters beneath as guarantee.

`toolkit.passes.optimize(expr, guarantee=...)` canonicalizes, folds constants
and simplifies with what the filters below the node guarantee (`guarantees`).
A filter `dep_delay > 60` above `dep_delay > 30` becomes `true` here, and
`eliminate_filter` then drops it. A rewrite that would change a projected or
aggregated column's type or nullability is not taken: the node's schema must
stay what it was (the optimizer's schema invariant).
"""

from __future__ import annotations

from ...model.builders import and_
from ...passes import optimize as optimize_expression
from ..guarantees import guarantees_of
from ..logical_fields import nullable
from ..logical_plan import Aggregate, Filter, Projection
from ..plan_text import expression_text
from .base import Rule

__all__ = ["SimplifyExpressions"]


def _keeps_field(node, before, after) -> bool:
    if isinstance(node, Filter):
        return True
    if isinstance(node, (Projection, Aggregate)):
        return before.type == after.type and nullable(before) == nullable(after)
    return before.type == after.type


class SimplifyExpressions(Rule):
    name = "simplify_expressions"
    order = "post"

    def rewrite(self, node, ctx):
        exprs = node.expressions()
        if not exprs:
            return None
        known = guarantees_of(node.input, ctx.memo)  # each node's guarantees computed once
        guarantee = and_(known) if known else None
        reasons = []
        out = []
        for expr in exprs:
            new = optimize_expression(expr, None, guarantee=guarantee, observer=ctx.observer)
            if new is not expr and not new.equals(expr) and _keeps_field(node, expr, new):
                reasons.append(f"{expression_text(expr)} -> {expression_text(new)}")
                out.append(new)
            else:
                out.append(expr)
        if not reasons:
            return None
        return self.fired(node.with_expressions(out), "; ".join(reasons))
