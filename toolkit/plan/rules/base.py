"""What an optimizer rule is, and the facts about expressions the rules rely on.

A rule has a `name` and an `order` and answers one plan node at a time with a
`Transformed` (or None when it does not apply); the optimizer's one driver
(`toolkit.rewrite.apply_rule`) walks the plan, records a `RuleApplied` (with
the rule's reason and the node's path) for every firing and knows from them
whether the rule changed anything. `order` is "pre" (a node before its inputs,
for rules that move things down), "post" (after its inputs), or "plan": the
rule needs the whole plan at once (column pruning carries what the parents need
downwards) and returns a `Transformed` whose firings name each node they changed.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

from ...model.expression import Expression
from ...model.visit import EXPRESSION_SHAPE
from ...rewrite import Firing, Transformed, modify_tree

__all__ = ["Rule", "RuleContext", "substitute_columns"]


@dataclass
class RuleContext:
    """What a rule may use during one run: the observer, and a memo for that run only."""

    observer: object = None
    memo: dict = field(default_factory=dict)


class Rule(abc.ABC):
    name: str = "rule"
    order: str = "post"

    @abc.abstractmethod
    def rewrite(self, node, ctx: RuleContext) -> Transformed | None:
        """The node's replacement and why, or None when the rule does not apply here."""

    def fired(self, after, reason: str) -> Transformed:
        return Transformed.fired(after, self.name, reason)

    def firing(self, before, after, reason: str) -> Firing:
        """One change inside a whole-plan rule: `before` became `after`."""
        return Firing(self.name, reason, after, before)

    def __repr__(self) -> str:
        return f"<plan rule {self.name}>"


def substitute_columns(expr: Expression, replacements: dict[str, Expression]) -> Expression | None:
    """`expr` with column refs replaced by expressions; None when a ref reaches into a struct.

    The substitution is simultaneous: each ref of `expr` is replaced once, after the
    walk has reached it as a leaf, and a replacement is never walked again. (Replacing
    in pre-order would walk into `b + 1` put in for `b`, find `b` again, and never end.)
    """
    blocked = []

    def replace_leaf(new, old):
        if new.is_field:
            leaves = new.ref.leaves()
            name = leaves[0].name
            if name in replacements:
                if len(leaves) > 1:
                    blocked.append(new)
                    return new
                return replacements[name]
        return new

    out = modify_tree(expr, _LEAVES_TOO, post=replace_leaf)
    return None if blocked else out


# expressions as modify_tree reads them, with `post` seeing leaves (field refs) too
_LEAVES_TOO = EXPRESSION_SHAPE._replace(post_leaves=True)
