"""What an optimizer rule is, and the facts about expressions the rules rely on.

A rule rewrites a whole plan and returns the identical plan when it changes
nothing; it says why it changed something with `ctx.note(...)` (the reason shown
by EXPLAIN VERBOSE and in the PlanRuleEvent).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field

from ...expression import Expression, postorder
from ...functions.function import call_can_fail

__all__ = ["Rule", "RuleContext", "can_fail", "is_pure", "substitute_columns"]


@dataclass
class RuleContext:
    observer: object = None
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        self.notes.append(text)


class Rule(abc.ABC):
    name: str = "rule"

    @abc.abstractmethod
    def rewrite(self, plan, ctx: RuleContext):
        """The rewritten plan, or `plan` itself when the rule does not apply."""

    def __repr__(self) -> str:
        return f"<plan rule {self.name}>"


def is_pure(expr: Expression) -> bool:
    """No impure function (one that may give another value on another run)."""
    return all(not n.is_call or n.function is None or n.function.pure for n in postorder(expr))


def can_fail(expr: Expression) -> bool:
    """Some function may raise on some row (divide, checked arithmetic, casts)."""
    return any(n.is_call and call_can_fail(n) for n in postorder(expr))


def substitute_columns(expr: Expression, replacements: dict[str, Expression]) -> Expression | None:
    """`expr` with column refs replaced by expressions; None when a ref reaches into a struct."""
    from ...visit import modify_expression

    blocked = []

    def pre(node):
        if node.is_field:
            leaves = node.ref.leaves()
            name = leaves[0].name
            if name in replacements:
                if len(leaves) > 1:
                    blocked.append(node)
                    return node
                return replacements[name]
        return node

    out = modify_expression(expr, pre=pre)
    return None if blocked else out
