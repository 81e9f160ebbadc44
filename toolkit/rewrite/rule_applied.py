"""RuleApplied: one rule firing on one node, as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["RuleApplied"]

Path = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RuleApplied:
    """Which rule fired, why, where, and the node before and after.

    `path` is the position (child indices from the root) of the rule's result in
    the tree the pass or plan rule returned, and `after` the node standing there
    (the rule's result, or its rebuild when a child changed later); a result
    that a later rewrite absorbed keeps its own `after` and points at the node
    that absorbed it. `before` and `after` are the
    nodes themselves (expressions or plan nodes), shared with the trees they
    come from, so a renderer pairs old and new by identity.
    """

    rule: str
    reason: str
    path: Path
    before: Any
    after: Any
