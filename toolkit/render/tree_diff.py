"""What one pass changed: each node of the tree after it, compared with the tree before.

Shared by every renderer, so DOT, text and HTML agree on which nodes are
`same`, `changed` (the root of a rewrite, with the rules that fired there and
what it was) or `added` (new inside a change), and which subtrees of the tree
before were `removed`. Passes return the identical object for what they did
not touch, so identity finds most of it cheaply; structure finds the rest.
All walks use explicit stacks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..expression import Expression
from ..options import options_equal
from ..visit import node_at, walk

__all__ = ["PassDiff", "diff_pass", "diff_trees"]

Path = tuple[int, ...]


@dataclass
class PassDiff:
    after: Expression | None
    status: dict[Path, str] = field(default_factory=dict)  # path in `after` -> same/changed/added
    rules: dict[Path, list[str]] = field(default_factory=dict)  # path -> rules that fired there
    was: dict[Path, Expression] = field(default_factory=dict)  # changed path -> node it replaced
    removed: list[tuple[Path, Expression]] = field(default_factory=list)  # (changed path, subtree)
    unplaced: list = field(default_factory=list)  # rewrites whose path is not in `after`

    def paths(self, status: str) -> list[Path]:
        return [p for p, s in self.status.items() if s == status]


class _Presence:
    """Answers "does this subtree occur in that tree?" by identity, then by structure."""

    def __init__(self, root: Expression):
        self.ids: set[int] = set()
        self.by_hash: dict[int, list[Expression]] = {}
        for _, node in walk(root):
            if id(node) not in self.ids:
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


def _mark_subtree(diff: PassDiff, root: Expression, path: Path, status: str) -> None:
    for rel, _ in walk(root):
        diff.status[path + rel] = status


def diff_trees(before: Expression | None, after: Expression | None) -> PassDiff:
    diff = PassDiff(after)
    if after is None:
        return diff
    if before is None:
        _mark_subtree(diff, after, (), "added")
        return diff
    stack: list[tuple[Path, Expression, Expression]] = [((), before, after)]
    while stack:
        path, b, a = stack.pop()
        if a is b or a.equals(b):
            _mark_subtree(diff, a, path, "same")
        elif _same_shell(a, b) and _is_permutation(a.args, b.args):
            diff.status[path] = "changed"  # the same arguments, reordered
            diff.was[path] = b
            for i, arg in enumerate(a.args):
                _mark_subtree(diff, arg, path + (i,), "same")
        elif _same_shell(a, b):
            diff.status[path] = "same"
            for i in range(len(a.args) - 1, -1, -1):
                stack.append((path + (i,), b.args[i], a.args[i]))
        else:
            _mark_change(diff, path, b, a)
    return diff


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


def _mark_change(diff: PassDiff, path: Path, b: Expression, a: Expression) -> None:
    """A rewritten subtree: new nodes are added, or changed when they pair with an old call
    of the same function (a reordered `add`), and old subtrees that left are removed."""
    diff.status[path] = "changed"
    diff.was[path] = b
    old = _Presence(b)
    new = _Presence(a)
    pool = [n for _, n in walk(b) if n is not b and n.is_call and n not in new]
    paired: set[int] = set()
    stack = [(path + (i,), arg) for i, arg in enumerate(a.args)]
    while stack:
        p, node = stack.pop()
        if node in old:
            _mark_subtree(diff, node, p, "same")
            continue
        partner = next((m for m in pool if id(m) not in paired and _same_shell(node, m)), None)
        if partner is not None:
            paired.add(id(partner))
            diff.status[p] = "changed"
            diff.was[p] = partner
        else:
            diff.status[p] = "added"
        stack.extend((p + (i,), arg) for i, arg in enumerate(node.args))
    gone = list(b.args)
    while gone:
        node = gone.pop()
        if node in new:
            continue
        if id(node) in paired:
            gone.extend(node.args)
        elif any(arg in new for arg in node.args):
            # a node dropped around children that survived: only the node itself went
            diff.removed.append((path, _shell_of(node)))
            gone.extend(node.args)
        else:
            diff.removed.append((path, node))


def _shell_of(node: Expression) -> Expression:
    return node.unbound(args=[]) if node.is_call else node


def _placed(found, produced) -> bool:
    """Is `found` (the node at a rewrite's path in the result) what the rewrite produced?"""
    if found is None or not isinstance(produced, Expression):
        return found is not None and produced is None
    return found is produced or found.equals(produced) or _same_shell(found, produced)


def diff_pass(event) -> PassDiff:
    """The diff of a PassEvent, with its rewrites' rules placed on the nodes they changed."""
    diff = diff_trees(event.before, event.after) if event.changed or \
        event.after is not event.before else diff_trees(event.after, event.after)
    for rewrite in event.rewrites:
        path = tuple(rewrite.path)
        try:
            found = node_at(event.after, path)
        except (IndexError, AttributeError):
            found = None
        if not _placed(found, rewrite.after):
            # a later rule in the same pass moved or replaced what this one produced
            diff.unplaced.append(rewrite)
            continue
        diff.rules.setdefault(path, []).append(rewrite.rule)
        if diff.status.get(path) == "same":
            diff.status[path] = "changed"
            if isinstance(rewrite.before, Expression):
                diff.was.setdefault(path, rewrite.before)
    return diff
