"""apply_rule: one sweep of a rule over a tree, and the log that places every firing.

A rule is a function from a node to a `Transformed` (or None for "no change").
`apply_rule` runs it before each node's children (`order="pre"`) or after them
(`"post"`) with `modify_tree`, and, when the log records, keeps a `RuleApplied`
for every firing. Several sweeps (one pass runs several, a pass may run
inside another) can share one `RewriteLog`.

Paths: a firing is first known in the coordinates of the sweep it ran in.
`RewriteLog.resolve` follows each result through later rebuilds (a parent
rebuilt because a child changed) to the final tree, and its `after` becomes the
node that stands there. A result that a later firing replaced wholesale (an
inner fold absorbed by an outer one) keeps its own `after`.

Which position a firing names depends on the log's `positions`: "given" (the
passes) names the node the rule changed in the tree the pass was given, the
path a person types to open it; a node an earlier rewrite built is not there,
so its firing names where the rule found it, in the tree as it stood then.
"result" (plan rules) names where the firing's result stands in the returned
tree, an absorbed result the node that absorbed it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import RuleError
from .rule_applied import RuleApplied
from .transformed import Transformed
from .tree_shape import PathCell, TreeShape, modify_tree

__all__ = ["RewriteLog", "apply_rule"]

Path = tuple[int, ...]
Rule = Callable[[object], Transformed | None]
_MAX_SUCCESSION = 10_000
_MAX_PATHS_PER_NODE = 16


class RewriteLog:
    """The firings of one run (a pass, a plan rule), placed in its result by `resolve`."""

    __slots__ = ("_cells", "_successor", "_sweep", "_sweep_of", "firings", "positions",
                 "recording", "shape")

    def __init__(self, shape: TreeShape, recording: bool = True, positions: str = "result"):
        if positions not in ("given", "result"):
            raise RuleError(f"a rewrite log places firings in the 'given' or the 'result' "
                            f"tree, not {positions!r}")
        self.shape = shape
        self.recording = recording
        self.positions = positions
        self.firings: list[RuleApplied] = []  # paths still in the sweep's coordinates
        self._cells: list[PathCell] = []
        self._sweep_of: list[int] = []
        self._successor: dict[int, tuple[object, object]] = {}
        self._sweep = 0

    @property
    def changed(self) -> bool:
        return bool(self.firings)

    def record(self, result: Transformed, cell: PathCell, node) -> object:
        """Log every firing of `result` (given `node` at `cell`); return the node now there."""
        if self.recording:
            for firing in result.firings:
                before = firing.before if firing.before is not None else node
                self.firings.append(RuleApplied(firing.rule, firing.reason, (), before,
                                                firing.after))
                self._cells.append(cell)
                self._sweep_of.append(self._sweep)
                self._successor[id(before)] = (before, firing.after)
        return result.node

    def rebuilt(self, old, new) -> None:
        self._successor[id(old)] = (old, new)

    def next_sweep(self) -> None:
        self._sweep += 1

    def resolve(self, result, given=None) -> list[RuleApplied]:
        """The firings with their paths placed (see the module docstring); `given`: the
        tree the run started from, needed when the log's positions are "given"."""
        if not self.firings:
            return []
        parents = _parent_links(result, self.shape.children)
        if self.positions == "given":
            given_parents = _parent_links(given, self.shape.children)
        resolved: list[Path | None] = [None] * len(self.firings)
        standing = [f.after for f in self.firings]
        for k in range(len(self.firings) - 1, -1, -1):
            node = self._final_node(self.firings[k].after, parents)
            if self.positions == "given":
                before = self.firings[k].before
                resolved[k] = (_closest(_paths_to(before, given_parents), self._cells[k])
                               if id(before) in given_parents else self._cells[k].to_tuple())
                if node is not None:
                    standing[k] = node
                continue
            if node is not None:
                resolved[k] = _closest(_paths_to(node, parents), self._cells[k])
                standing[k] = node  # rebuilt since (a child changed later): the node now there
                continue
            absorber = self._absorber(k, resolved)
            resolved[k] = (absorber if absorber is not None
                           else _deepest_prefix(result, self._cells[k].to_tuple(),
                                                self.shape.children))
        return [RuleApplied(f.rule, f.reason, p, f.before, after)
                for f, p, after in zip(self.firings, resolved, standing)]

    def _final_node(self, node, parents):
        """`node`, or what later rebuilt or replaced it, as it stands in the result."""
        for _ in range(_MAX_SUCCESSION):
            if id(node) in parents:
                return node
            step = self._successor.get(id(node))
            if step is None or step[0] is not node:
                return None
            node = step[1]
        return None

    def _absorber(self, k: int, resolved) -> Path | None:
        """The resolved path of the first later firing, same sweep, at an ancestor of k."""
        cell, sweep = self._cells[k], self._sweep_of[k]
        for j in range(k + 1, len(self.firings)):
            if self._sweep_of[j] != sweep:
                break
            if cell.is_below(self._cells[j]):
                return resolved[j]
        return None


def apply_rule(root, rule: Rule, order: str, log: RewriteLog):
    """One sweep of `rule` over `root` in `order` ("pre" or "post"), firings into `log`."""
    if order not in ("pre", "post"):
        raise RuleError(f"a rule runs in order 'pre' or 'post', not {order!r}")
    shape = log.shape
    log.next_sweep()
    rule = _checked(rule)
    if not log.recording:
        if order == "pre":
            def quiet_pre(node):
                out = rule(node)
                return node if out is None else out.node
            return modify_tree(root, shape, quiet_pre, None)

        def quiet_post(new, old):
            out = rule(new)
            return new if out is None else out.node
        return modify_tree(root, shape, None, quiet_post)

    if order == "pre":
        def pre(node, cell):
            out = rule(node)
            return node if out is None or not out.firings else log.record(out, cell, node)

        def post_rebuilt(new, old, cell):
            if old is not None:
                log.rebuilt(old, new)
            return new
        return modify_tree(root, shape, pre, post_rebuilt, with_cells=True)

    def post(new, old, cell):
        if old is not None:
            log.rebuilt(old, new)
        out = rule(new)
        return new if out is None or not out.firings else log.record(out, cell, new)
    return modify_tree(root, shape, None, post, with_cells=True)


def _checked(rule: Rule) -> Rule:
    """`rule`, refusing any answer that is not a Transformed or None, with the rule's name."""
    name = getattr(rule, "rule_name", None) or getattr(rule, "__name__", "rule")

    def checked(node):
        out = rule(node)
        if out is None or isinstance(out, Transformed):
            return out
        raise RuleError(f"rule {name} returned a {type(out).__name__}; a rule returns "
                        "Transformed(node, changed, firings) (Transformed.fired(after, rule, "
                        "reason) for one change) or None when it does not apply")
    return checked


def _parent_links(root, children_of) -> dict[int, list]:
    """id(node) -> [(parent, child index)] for every node of `root` (O(n), no paths)."""
    parents: dict[int, list] = {id(root): [(None, -1)]}
    stack = [root]
    while stack:
        node = stack.pop()
        for i, child in enumerate(children_of(node)):
            links = parents.get(id(child))
            if links is None:
                parents[id(child)] = [(node, i)]
                stack.append(child)
            else:
                links.append((node, i))
    return parents


def _paths_to(node, parents, limit: int = _MAX_PATHS_PER_NODE) -> list[Path]:
    """The paths from the root to `node` (a shared node has several; at most `limit`).

    Walks up the parent links; a list grows per walk and is copied only where a
    shared node branches, so one path costs O(depth).
    """
    out: list[Path] = []
    walks: list[tuple[object, list[int]]] = [(node, [])]
    while walks and len(out) < limit:
        current, indices = walks.pop()
        while True:
            links = parents[id(current)]
            for parent, index in links[1:]:
                if parent is None:
                    out.append(tuple(reversed(indices)))
                else:
                    walks.append((parent, indices + [index]))
            parent, index = links[0]
            if parent is None:
                out.append(tuple(reversed(indices)))
                break
            indices.append(index)
            current = parent
    return out


def _closest(paths: list[Path], cell: PathCell) -> Path:
    if len(paths) == 1:
        return paths[0]
    hint = cell.to_tuple()

    def shared(p: Path) -> int:
        n = 0
        for a, b in zip(p, hint):
            if a != b:
                break
            n += 1
        return n

    return max(paths, key=shared)


def _deepest_prefix(root, path: Path, children_of) -> Path:
    node, out = root, []
    for i in path:
        children = children_of(node)
        if i >= len(children):
            break
        node = children[i]
        out.append(i)
    return tuple(out)
