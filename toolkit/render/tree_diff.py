"""What one pass changed: each node of the tree after it, compared with the tree before.

Shared by every renderer, so DOT, text and HTML agree on which nodes are
`same`, `changed` (the root of a rewrite, with the rules that fired there and
what it was) or `added` (new inside a change), and which subtrees of the tree
before were `removed`. Passes return the identical object for what they did
not touch, so identity finds most of it cheaply; structure finds the rest.

Results are keyed by node identity in the tree after the pass, not by path:
paths of a 10,000-deep tree would cost quadratic time and memory. Only
changed and added nodes are recorded; everything else is `same`. All walks
use explicit stacks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..expression import Expression, postorder
from ..options import options_equal
from ..visit import node_at

__all__ = ["PassDiff", "diff_pass", "diff_trees"]


@dataclass
class PassDiff:
    after: Expression | None
    status: dict[int, str] = field(default_factory=dict)  # id(node) -> "changed" / "added"
    rules: dict[int, list[str]] = field(default_factory=dict)  # id(node) -> rules fired there
    was: dict[int, Expression] = field(default_factory=dict)  # id(changed node) -> what it was
    removed: list[tuple[int, Expression]] = field(default_factory=list)  # (id(changed), subtree)
    unplaced: list = field(default_factory=list)  # rewrites whose node a later rule replaced

    def status_of(self, node: Expression) -> str:
        return self.status.get(id(node), "same")

    def rules_of(self, node: Expression) -> list[str]:
        return self.rules.get(id(node), [])

    def was_of(self, node: Expression) -> Expression | None:
        return self.was.get(id(node))

    def removed_under(self, node: Expression) -> list[Expression]:
        index = self.__dict__.get("_removed_index")
        if index is None or index[0] != len(self.removed):
            grouped: dict[int, list[Expression]] = {}
            for key, gone in self.removed:
                grouped.setdefault(key, []).append(gone)
            index = self.__dict__["_removed_index"] = (len(self.removed), grouped)
        return index[1].get(id(node), [])

    def count(self, status: str) -> int:
        return sum(1 for s in self.status.values() if s == status)


class _Presence:
    """Answers "does this subtree occur in that tree?" by identity, then by structure."""

    def __init__(self, root: Expression):
        self.ids: set[int] = set()
        self.by_hash: dict[int, list[Expression]] = {}
        for node in postorder(root):
            self.ids.add(id(node))
            self.by_hash.setdefault(hash(node), []).append(node)

    def __contains__(self, node: Expression) -> bool:
        if id(node) in self.ids:
            return True
        return any(other.equals(node) for other in self.by_hash.get(hash(node), ()))


def _same_shell(a: Expression, b: Expression) -> bool:
    """Both calls of the same function, arity and options: a rebuilt ancestor, not a change."""
    return (a.is_call and b.is_call and a.name == b.name and len(a.args) == len(b.args)
            and options_equal(a.options, b.options))


def _is_permutation(new_args, old_args) -> bool:
    """The same arguments in another order (and not simply the same order)."""
    if all(x is y or x.equals(y) for x, y in zip(new_args, old_args)):
        return False
    unused = list(old_args)
    for arg in new_args:
        match = next((i for i, o in enumerate(unused) if o is arg or o.equals(arg)), None)
        if match is None:
            return False
        unused.pop(match)
    return True


def diff_trees(before: Expression | None, after: Expression | None) -> PassDiff:
    diff = PassDiff(after)
    if after is None:
        return diff
    if before is None:
        for node in postorder(after):
            diff.status[id(node)] = "added"
        return diff
    stack: list[tuple[Expression, Expression]] = [(before, after)]
    while stack:
        b, a = stack.pop()
        if a is b or a.equals(b):
            continue  # the same subtree
        if _same_shell(a, b) and _is_permutation(a.args, b.args):
            diff.status[id(a)] = "changed"  # the same arguments, reordered
            diff.was[id(a)] = b
        elif _same_shell(a, b):
            stack.extend(zip(b.args, a.args))  # a rebuilt ancestor: look below
        else:
            _mark_change(diff, b, a)
    return diff


def _mark_change(diff: PassDiff, b: Expression, a: Expression) -> None:
    """A rewritten subtree: new nodes are added, or changed when they pair with an old call
    of the same function (a reordered `add`), and old subtrees that left are removed."""
    diff.status[id(a)] = "changed"
    diff.was[id(a)] = b
    old = _Presence(b)
    new = _Presence(a)
    pool = [n for n in postorder(b) if n is not b and n.is_call and n not in new]
    paired: set[int] = set()
    stack = list(a.args)
    while stack:
        node = stack.pop()
        if node in old:
            continue
        partner = next((m for m in pool if id(m) not in paired and _same_shell(node, m)), None)
        if partner is not None:
            paired.add(id(partner))
            diff.status[id(node)] = "changed"
            diff.was[id(node)] = partner
        else:
            diff.status[id(node)] = "added"
        stack.extend(node.args)
    gone = list(b.args)
    while gone:
        node = gone.pop()
        if node in new:
            continue
        if id(node) in paired:
            gone.extend(node.args)
        elif any(arg in new for arg in node.args):
            # a node dropped around children that survived: only the node itself went
            diff.removed.append((id(a), _shell_of(node)))
            gone.extend(node.args)
        else:
            diff.removed.append((id(a), node))


def _shell_of(node: Expression) -> Expression:
    return node.unbound(args=[]) if node.is_call else node


def _placed(found, produced) -> bool:
    """Is `found` (the node at a rewrite's path in the result) what the rewrite produced?"""
    if found is None or not isinstance(produced, Expression):
        return found is not None and produced is None
    return found is produced or found.equals(produced) or _same_shell(found, produced)


def diff_pass(event) -> PassDiff:
    """The diff of a PassEvent, with its rewrites' rules placed on the nodes they changed."""
    diff = diff_trees(event.before, event.after)
    for rewrite in event.rewrites:
        try:
            found = node_at(event.after, tuple(rewrite.path))
        except (IndexError, AttributeError):
            found = None
        if not _placed(found, rewrite.after):
            # a later rule in the same pass moved or replaced what this one produced
            diff.unplaced.append(rewrite)
            continue
        diff.rules.setdefault(id(found), []).append(rewrite.rule)
        if diff.status_of(found) == "same":
            diff.status[id(found)] = "changed"
            if isinstance(rewrite.before, Expression):
                diff.was.setdefault(id(found), rewrite.before)
    return diff
