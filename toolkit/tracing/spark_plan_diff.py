"""What a Catalyst rule did to a plan: each node of the plan after it marked against before.

Nodes are Spark's plan lines (`tracing.spark_plan_text.plan_tree`) and a node's
identity is its position and its text: a node at the same position with the
same text is the same node, and so is the same text elsewhere over the same
children (a subtree that shifted because a node was put above it); the same
text over other children is a moved node (a filter pushed below a join, a join
whose input got a projection); the same operator at the same position with other
text was changed; anything else was added, and every node of the plan before
that matched nothing was removed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .spark_plan_text import PlanNode, plan_tree

__all__ = ["PlanDiff", "plan_diff"]

_ORDER = {"changed": 0, "added": 1, "removed": 2, "moved": 3}


@dataclass(frozen=True)
class PlanDiff:
    after: PlanNode
    status: dict  # path -> "same", "moved", "changed" or "added"
    was: dict  # path of a changed node -> its text before
    removed: tuple[str, ...]  # the texts of the nodes before that are gone

    @property
    def counts(self) -> dict[str, int]:
        out = defaultdict(int)
        for s in self.status.values():
            out[s] += 1
        out["removed"] = len(self.removed)
        return dict(out)

    @property
    def touched(self) -> list[tuple[str, str]]:
        """(status, text) of the nodes that are not the same, the removed ones too: changed,
        added and removed first, then moved, each in plan order."""
        nodes = [(self.status[p], n.text) for p, n in self.after.walk()]
        nodes += [("removed", t) for t in self.removed]
        return sorted(((s, t) for s, t in nodes if s != "same"),
                      key=lambda st: _ORDER[st[0]])


def plan_diff(before: str, after: str) -> PlanDiff:
    old = dict(plan_tree(before).walk())
    new_root = plan_tree(after)
    new = dict(new_root.walk())
    status, was, used = {}, {}, set()
    for p, n in new.items():  # the same text at the same position
        if p in old and old[p].text == n.text:
            status[p] = "same"
            used.add(p)
    free = defaultdict(list)  # the unmatched nodes before, by text
    for p, n in old.items():
        if p not in used:
            free[n.text].append(p)
    for p, n in new.items():  # the same text elsewhere
        if p not in status and free.get(n.text):
            match = free[n.text].pop(0)
            used.add(match)
            same_children = [c.text for c in old[match].children] == [c.text for c in n.children]
            status[p] = "same" if same_children else "moved"
    for p, n in new.items():  # the same operator at the same position, other text
        if p not in status:
            if p in old and p not in used and old[p].name == n.name:
                status[p] = "changed"
                was[p] = old[p].text
                used.add(p)
            else:
                status[p] = "added"
    removed = tuple(n.text for p, n in old.items() if p not in used)
    return PlanDiff(new_root, status, was, removed)
