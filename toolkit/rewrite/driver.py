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

The placed paths are `TreePath`s of one table of positions per `resolve`
(`_Places`): each position is found once, so placing a firing at every level
of an n-deep tree costs O(n) time and memory in all, not O(n) per firing.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import RuleError
from .positions import TreePath, TreePositions
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
        tree the run started from, needed when the log's positions are "given".

        Paths are `TreePath`s of one table: firings share their common prefixes, and
        each position is found once, so placing every firing of a deep run costs time
        and memory linear in the tree (a tuple per firing would cost its depth each).
        """
        if not self.firings:
            return []
        parents = _parent_links(result, self.shape.children)
        by_given = self.positions == "given"
        if by_given:
            given_parents = _parent_links(given, self.shape.children)
            places = _Places(given, given_parents, self.shape.children)
        else:
            places = _Places(result, parents, self.shape.children)
        resolved: list[TreePath | None] = [None] * len(self.firings)
        standing = [f.after for f in self.firings]
        for k in range(len(self.firings) - 1, -1, -1):
            node = self._final_node(self.firings[k].after, parents)
            if by_given:
                before = self.firings[k].before
                resolved[k] = (places.place(before, self._cells[k])
                               if id(before) in given_parents else places.cell(self._cells[k]))
                if node is not None:
                    standing[k] = node
                continue
            if node is not None:
                resolved[k] = places.place(node, self._cells[k])
                standing[k] = node  # rebuilt since (a child changed later): the node now there
                continue
            absorber = self._absorber(k, resolved)
            resolved[k] = (absorber if absorber is not None
                           else places.deepest_standing(self._cells[k]))
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


class _Places:
    """Positions in one tree (`root`, with its parent links) as rows of one `TreePositions`.

    Every position is found once and remembered: a firing's cell by the cell, a
    node's paths by the node, the node at a position by the position. A firing
    at every level of a deep tree then costs a constant each, not its depth.
    Cells stay alive while the log holds them, so their ids are stable here.
    """

    __slots__ = ("_at", "_cells", "_children", "_parents", "_paths", "table")

    def __init__(self, root, parents: dict[int, list], children_of):
        self.table = TreePositions()
        self._parents = parents
        self._children = children_of
        self._cells: dict[int, int] = {}  # id(cell) -> position
        self._at: dict[int, object] = {0: root}  # position -> node there (None: no node)
        self._paths: dict[int, list[int]] = {}  # id(node) -> its positions (at most 16)

    def cell(self, cell: PathCell) -> TreePath:
        """The position `cell` names (in the coordinates of its sweep)."""
        return TreePath(self.table, self._cell_pos(cell))

    def place(self, node, cell: PathCell) -> TreePath:
        """The path to `node` (in this tree) closest to `cell`, where the rule found it."""
        hint = self._cell_pos(cell)
        if self._node_at(hint) is node:
            return TreePath(self.table, hint)
        found = self._node_positions(node)
        if len(found) == 1:
            return TreePath(self.table, found[0])
        return TreePath(self.table, max(found, key=lambda pos: self._shared(pos, hint)))

    def deepest_standing(self, cell: PathCell) -> TreePath:
        """The deepest position on the way to `cell` that holds a node in this tree."""
        pos, parent_of = self._cell_pos(cell), self.table._parent
        while self._node_at(pos) is None:
            pos = parent_of[pos]
        return TreePath(self.table, pos)

    def _cell_pos(self, cell: PathCell) -> int:
        known, chain = self._cells, []
        while cell.parent is not None and id(cell) not in known:
            chain.append(cell)
            cell = cell.parent
        pos = 0 if cell.parent is None else known[id(cell)]
        step = self.table._step
        for c in reversed(chain):
            pos = step(pos, c.index)
            known[id(c)] = pos
        return pos

    def _node_at(self, pos: int):
        at, chain, parent_of = self._at, [], self.table._parent
        while pos not in at:
            chain.append(pos)
            pos = parent_of[pos]
        node, index_of = at[pos], self.table._index
        for p in reversed(chain):
            if node is not None:
                children = self._children(node)
                i = index_of[p]
                node = children[i] if 0 <= i < len(children) else None
            at[p] = node
        return node

    def _node_positions(self, node, limit: int = _MAX_PATHS_PER_NODE) -> list[int]:
        """The positions of `node` (a shared node has several; at most `limit`).

        In the order a walk up the parent links meets them: through the first
        link, then the others last to second, each parent's own positions in
        that order. Each node's positions are found once (an explicit stack:
        a 10,000-deep tree is 10,000 parents up).
        """
        memo, parents, step = self._paths, self._parents, self.table._step
        stack = [node]
        while stack:
            current = stack[-1]
            if id(current) in memo:
                stack.pop()
                continue
            links = parents[id(current)]
            out: list[int] = []
            missing = None
            for n in range(len(links)):
                parent, index = links[-n] if n else links[0]
                if parent is None:
                    out.append(0)
                else:
                    above = memo.get(id(parent))
                    if above is None:
                        missing = parent
                        break
                    out.extend(step(pos, index) for pos in above[:limit - len(out)])
                if len(out) >= limit:
                    break
            if missing is not None:
                stack.append(missing)
                continue
            memo[id(current)] = out
            stack.pop()
        return memo[id(node)]

    def _shared(self, a: int, b: int) -> int:
        """How many leading indices positions `a` and `b` have in common."""
        depth, parent_of = self.table._depth, self.table._parent
        while depth[a] > depth[b]:
            a = parent_of[a]
        while depth[b] > depth[a]:
            b = parent_of[b]
        while a != b:
            a, b = parent_of[a], parent_of[b]
        return depth[a]
