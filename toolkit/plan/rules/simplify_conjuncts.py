"""Inside one filter, each conjunct simplified under the others: `x > 30 and x > 60` -> `x > 60`.

A filter keeps the rows where its predicate is true. On such rows every other
conjunct is true, so a conjunct may be simplified with the others (and the
filters beneath) as guarantee; on the other rows the predicate is false or null
whatever that conjunct says. Conjuncts are rewritten one at a time, each under
the current versions of the others, so two conjuncts never both vanish by
vouching for each other (`x > 5 and x > 5` keeps one).
"""

from __future__ import annotations

from ...functions.facts import conjuncts
from ...model.builders import and_
from ...passes import optimize as optimize_expression
from ..guarantees import MAX_GUARANTEES, guarantees_of
from ..logical_plan import Filter
from .base import Rule

__all__ = ["SimplifyConjuncts"]


class SimplifyConjuncts(Rule):
    name = "simplify_conjuncts"
    order = "post"

    def rewrite(self, node, ctx):
        if not isinstance(node, Filter):
            return None
        parts = conjuncts(node.predicate)
        if len(parts) < 2:
            return None
        below = guarantees_of(node.input, ctx.memo)
        reasons = []
        half = MAX_GUARANTEES // 2  # the neighbours of each conjunct: linear in their count
        for i, part in enumerate(parts):
            others = parts[max(0, i - half):i] + parts[i + 1:i + 1 + half]
            guarantee = and_((below + others)[:MAX_GUARANTEES])
            new = optimize_expression(part, None, guarantee=guarantee, observer=ctx.observer)
            if new is not part and not new.equals(part):
                reasons.append(f"{part} -> {new}")
                parts[i] = new
        if not reasons:
            return None
        schema = node.input.schema.binding_schema()
        predicate = optimize_expression(and_(parts), schema, observer=ctx.observer)
        return self.fired(Filter(node.input, predicate),
                          "; ".join(reasons) + " given the other conjuncts")
