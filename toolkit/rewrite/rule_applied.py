"""RuleApplied: one rule firing on one node, as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["RuleApplied"]

Path = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RuleApplied:
    """Which rule fired, why, where, and the node before and after.

    `path` (child indices from the root): for a pass, the position of the node
    the rule changed in the tree the pass was given (a rule that fired on a
    node an earlier rewrite of the pass built: the position in the tree as it
    stood then); for a plan rule, the position of its result in the plan the
    rule returned. `after` is the node standing in the result (the rule's
    result, or its rebuild when a child changed later); a result that a later
    rewrite absorbed keeps its own `after`. `before` and `after` are the
    nodes themselves (expressions or plan nodes), shared with the trees they
    come from, so a renderer pairs old and new by identity.

    A placed `path` is a `TreePath`: equal to, and hashed like, the tuple of its
    indices, and the firings of one run share one table of positions, so a
    firing at every level of a deep tree holds constant memory each; iterating,
    indexing or `tuple(path)` costs its depth.
    """

    rule: str
    reason: str
    path: Path  # a TreePath once placed (see above)
    before: Any
    after: Any
