"""What a rule answers for one node: the node now, whether it changed, what fired."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Firing", "Transformed"]


@dataclass(frozen=True, slots=True)
class Firing:
    """One rule at one place. `before` is set when a rule fired on another rule's result
    at the same place (a chain of local rewrites); otherwise the walk knows the node."""

    rule: str
    reason: str
    after: Any
    before: Any = None


@dataclass(frozen=True, slots=True)
class Transformed:
    """`node` stands where the rule was given a node; `firings` are oldest first.

    Change is what the rule says it is: the driver never compares trees to find
    out (a rebuilt-but-equal node is not a change unless a rule says so).
    """

    node: Any
    changed: bool = False
    firings: tuple[Firing, ...] = ()

    @staticmethod
    def unchanged(node) -> Transformed:
        return Transformed(node)

    @staticmethod
    def fired(after, rule: str, reason: str) -> Transformed:
        return Transformed(after, True, (Firing(rule, reason, after),))

    def then(self, more: Transformed | None) -> Transformed:
        """This change followed by `more`, a rule's answer for this change's result."""
        if more is None or not more.changed:
            return self
        follow = tuple(Firing(f.rule, f.reason, f.after, f.before if f.before is not None
                              else self.node) for f in more.firings)
        return Transformed(more.node, True, self.firings + follow)

    @property
    def rule(self) -> str:
        """The last rule that fired (the one whose result stands)."""
        return self.firings[-1].rule if self.firings else ""

    @property
    def reason(self) -> str:
        return self.firings[-1].reason if self.firings else ""

    @property
    def after(self):
        return self.node
