"""What one pass changed: each node of the tree after it, paired with the tree before by identity.

Shared by every renderer, so DOT, text and HTML agree. A pass returns the
identical object for what it did not touch, and each recorded rewrite says
which node became which (`before` -> `after`, the node standing in the result),
so the diff follows those identities instead of guessing from positions:

- `same`: the node is the one that was there (or an ancestor rebuilt around a
  change, with the same function and options);
- `changed`: the root of a rewrite; `was` is what stood there before the pass's
  first rewrite at that place, and `rules` the rules that fired there;
- `kept`: a node of the old tree that a rewrite lifted into its parents' place
  (`not(not(x))` -> `x`): `removed_above` holds the calls dropped around it;
- `moved`: a node of the old tree now at another argument position of a
  rewritten call (a reordered `add`, a flipped comparison);
- `added`: new inside a change;
- `removed`: old subtrees that left, each hung on the node whose rewrite dropped it.

A tree without rewrites (an event made by hand, a pass that records none) is
still diffed: where the shapes part, the node is `changed` and what is below is
compared by structure. Results are keyed by node identity in the tree after the
pass, not by path (paths of a 10,000-deep tree cost quadratic time); all walks
use explicit stacks.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ..model.expression import Expression, postorder
from ..model.options import options_equal
from ..rewrite.positions import TreePath
from .labels import bounded_text, node_title, shorten

__all__ = ["PassDiff", "diff_pass", "diff_trees"]


@dataclass
class PassDiff:
    after: Expression | None
    status: dict[int, str] = field(default_factory=dict)  # id(node) -> status other than same
    rules: dict[int, list[str]] = field(default_factory=dict)  # id(node) -> rules fired there
    was: dict[int, Expression] = field(default_factory=dict)  # id(changed node) -> what it was
    removed: list[tuple[int, Expression]] = field(default_factory=list)  # (id(anchor), subtree)
    removed_above: dict[int, list[Expression]] = field(default_factory=dict)  # outermost first
    rule_counts: dict[str, int] = field(default_factory=dict)  # each rule once, first fired first

    def status_of(self, node: Expression) -> str:
        return self.status.get(id(node), "same")

    def rules_of(self, node: Expression) -> list[str]:
        return self.rules.get(id(node), [])

    def was_of(self, node: Expression) -> Expression | None:
        return self.was.get(id(node))

    def removed_above_of(self, node: Expression) -> list[Expression]:
        return self.removed_above.get(id(node), [])

    def removed_under(self, node: Expression) -> list[Expression]:
        index = self.__dict__.get("_removed_index")
        if index is None or index[0] != len(self.removed):
            grouped: dict[int, list[Expression]] = {}
            for key, gone in self.removed:
                grouped.setdefault(key, []).append(gone)
            index = self.__dict__["_removed_index"] = (len(self.removed), grouped)
        return index[1].get(id(node), [])

    def was_text(self, node: Expression, width: int = 40) -> str | None:
        """What a changed node was: its function, or its text when the function is the same."""
        was = self.was.get(id(node))
        if was is None:
            return None
        if node_title(was) != node_title(node):
            return shorten(node_title(was), width)
        return bounded_text(was, width, short=True)

    def count(self, status: str) -> int:
        return sum(1 for s in self.status.values() if s == status)

    def statuses(self) -> set[str]:
        """Every status the picture uses (for its legend)."""
        out = set(self.status.values())
        if self.removed or self.removed_above:
            out.add("removed")
        return out

    def rules_summary(self) -> str:
        """Each rule that fired once, with how often: `fold/x ×3, canonicalize/y`."""
        return ", ".join(rule if n == 1 else f"{rule} ×{n:,}"
                         for rule, n in self.rule_counts.items())


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


def _shell_of(node: Expression) -> Expression:
    return node.unbound(args=[]) if node.is_call else node


def _ids(root: Expression) -> set[int]:
    return {id(n) for n in postorder(root)}


def diff_trees(before: Expression | None, after: Expression | None,
               origins: dict[int, Expression] | None = None) -> PassDiff:
    """Pair `after` with `before`; `origins`: id(rewrite result in after) -> what it replaced."""
    diff = PassDiff(after)
    if after is None:
        return diff
    if before is None:
        for node in postorder(after):
            diff.status[id(node)] = "added"
        return diff
    origins = origins or {}
    old_ids = _ids(before)
    stack: list[tuple[Expression, Expression]] = [(before, after)]
    while stack:
        b, a = stack.pop()
        if a is b:
            continue
        if id(a) in old_ids:
            _mark_kept(diff, b, a, origins)
            continue
        origin = origins.get(id(a))
        if origin is not None and id(origin) not in old_ids:
            origin = b  # the rewrite saw a rebuilt copy of the node that stood here
        if origin is None:
            if _same_shell(a, b):
                stack.extend(zip(b.args, a.args))  # a rebuilt ancestor: look below
                continue
            if a.equals(b):
                continue  # rebuilt with the same content
            origin = b
        _mark_change(diff, origin, a, old_ids, origins)
    return diff


def _mark_kept(diff: PassDiff, b: Expression, a: Expression, origins) -> None:
    """`a`, a node of the old tree, stands where `b` stood: what was around it was removed."""
    chain = _chain_to(b, a)
    if chain is None:
        diff.status[id(a)] = "moved"
        diff.was[id(a)] = b
        return
    if id(a) in origins or chain:
        diff.status[id(a)] = "kept"
    keep = _Presence(a)
    diff.removed_above[id(a)] = [_shell_of(n) for n in chain]
    for parent in chain:
        for arg in parent.args:
            if arg in keep or any(arg is c for c in chain):
                continue
            diff.removed.append((id(a), arg))


def _chain_to(root: Expression, target: Expression, limit: int = 1_000_000) -> list | None:
    """The calls from `root` down to `target`'s parent ([] when root is target; None if absent)."""
    if root is target:
        return []
    parent_of: dict[int, Expression] = {}
    queue = deque([root])
    seen = 0
    while queue and seen < limit:
        node = queue.popleft()
        seen += 1
        for arg in node.args:
            if id(arg) in parent_of:
                continue
            parent_of[id(arg)] = node
            if arg is target:
                chain = [node]
                while chain[-1] is not root:
                    chain.append(parent_of[id(chain[-1])])
                return chain[::-1]
            queue.append(arg)
    return None


def _mark_change(diff: PassDiff, b: Expression, a: Expression, old_ids: set[int],
                 origins) -> None:
    """`a` replaced `b`: inside it, old nodes are same or moved, nested rewrite results
    changed, the rest added; old subtrees that left hang under `a` as removed."""
    diff.status[id(a)] = "changed"
    diff.was[id(a)] = b
    old = _Presence(b)
    new = _Presence(a)
    positions = {id(arg): i for i, arg in enumerate(b.args)}
    stack = [(arg, i, a) for i, arg in enumerate(a.args)]
    while stack:
        node, index, parent = stack.pop()
        if id(node) in old_ids or node in old:
            if parent is a and positions.get(id(node), index) != index:
                diff.status[id(node)] = "moved"
            continue
        origin = origins.get(id(node))
        if origin is not None:
            diff.status[id(node)] = "changed"
            diff.was[id(node)] = origin
        else:
            diff.status[id(node)] = "added"
        stack.extend((arg, i, node) for i, arg in enumerate(node.args))
    gone = list(b.args)
    while gone:
        node = gone.pop()
        if node in new:
            continue
        if any(arg in new for arg in node.args):
            # a call dropped around arguments that stayed: only the call itself went
            diff.removed.append((id(a), _shell_of(node)))
            gone.extend(node.args)
        else:
            diff.removed.append((id(a), node))


def _origins(event) -> tuple[dict[int, Expression], dict[int, list[str]], dict[str, int]]:
    """Where each rewrite's result stands in the tree after the pass, and what it replaced.

    Rewrites at one place chain (`x` -> `y` by one rule, `y` -> `z` by the next):
    the place's origin is the oldest `before`. A rewrite's `after` is the node
    standing in the result; one whose result a later rewrite absorbed (an inner
    fold inside an outer one) is placed on the node of the nearest later rewrite
    at a position above its own.
    """
    first_before: dict[int, Expression] = {}
    produced: set[int] = set()
    counts: dict[str, int] = {}
    for rewrite in event.rewrites:
        counts[rewrite.rule] = counts.get(rewrite.rule, 0) + 1
        if isinstance(rewrite.before, Expression) and isinstance(rewrite.after, Expression):
            first_before[id(rewrite.after)] = first_before.get(id(rewrite.before), rewrite.before)
            produced.add(id(rewrite.after))
    standing = _ids(event.after) if isinstance(event.after, Expression) else set()
    placed: list[tuple[Expression, object]] = []
    later: dict[tuple, Expression] = {}  # position -> node of the latest-seen rewrite there
    for rewrite in reversed(event.rewrites):
        path = rewrite.path if isinstance(rewrite.path, TreePath) else tuple(rewrite.path)
        found = rewrite.after if id(rewrite.after) in standing else _absorber(later, path)
        if found is None:
            continue
        later[path] = found
        placed.append((found, rewrite))
    placed.reverse()
    origins: dict[int, Expression] = {}
    rules: dict[int, list[str]] = {}
    for found, rewrite in placed:
        names = rules.setdefault(id(found), [])
        if rewrite.rule not in names:
            names.append(rewrite.rule)
        if id(found) in produced and id(found) in first_before:
            origins[id(found)] = first_before[id(found)]
    return origins, rules, counts


_ABSORBER_LEVELS = 64  # how far up an absorbed rewrite looks for the one that absorbed it


def _absorber(later: dict, path) -> Expression | None:
    """The node of the nearest later rewrite strictly above `path`, looking a bounded way up.

    A shared `TreePath` steps to its parent in constant time; it is never copied whole,
    so placing a firing at every level of a deep tree costs its depth, not its square."""
    above = path.parent if isinstance(path, TreePath) else None
    for depth in range(len(path) - 1, max(-1, len(path) - 1 - _ABSORBER_LEVELS), -1):
        found = later.get(above if above is not None else path[:depth])
        if found is not None:
            return found
        if above is not None:
            above = above.parent
    return None


def diff_pass(event) -> PassDiff:
    """The diff of a PassEvent, read from its rewrites (identity), with each rule placed."""
    if not isinstance(event.after, Expression):
        return PassDiff(None)
    origins, rules, counts = _origins(event)
    diff = diff_trees(event.before, event.after, origins)
    diff.rules = rules
    diff.rule_counts = counts
    unmarked = [key for key in rules if key not in diff.status and key in origins]
    if unmarked:
        old = _ids(event.before) if isinstance(event.before, Expression) else set()
        for key in unmarked:
            if key in old:
                diff.status[key] = "kept"  # an old node a rule lifted inside a larger change
            else:
                diff.status[key] = "changed"
                diff.was[key] = origins[key]
    return diff
