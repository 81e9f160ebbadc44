"""How a pass runs: a rewrite log, a timer, and one PassEvent for whoever listens.

Every pass is a function decorated with `@optimization_pass(name)`. The decorator
opens a `PassLog` in a context variable, runs the pass, and, when observers are
active, sends one `observe.PassEvent` with the rewrites the rules recorded. A pass
that runs inside another (simplify_with_guarantee calls canonicalize and
fold_constants) finds the outer log in the context variable and writes into it,
so the observer sees one event for the outer pass, holding every rewrite.

Rules run inside sweeps (`sweep_pre`, `sweep_post`, both on modify_expression): a
rule takes a node and returns None for "no change" or a `Fired(after, rule, reason)`. When nobody
listens, nothing is recorded and a sweep costs little more than modify_expression.

Paths: a Rewrite's path is where the rule's result sits in the tree the *pass*
returns. Rules fire in the coordinates of the sweep they run in; `PassLog.resolve`
follows each result through later rebuilds (a parent rebuilt because a child
changed) to the final tree. A result that a later rule replaced wholesale (an
inner fold absorbed by an outer one) points at the node that absorbed it.
"""

from __future__ import annotations

import contextvars
import functools
import time
from collections.abc import Callable
from typing import NamedTuple

import pyarrow.compute as pc

from .. import observe
from ..errors import UnboundError
from ..expression import Expression, from_pyarrow
from ..visit import modify_expression
from .gc_pause import gc_paused

__all__ = [
    "Fired",
    "PassLog",
    "current_log",
    "optimization_pass",
    "require_bound",
    "run_as_pass",
    "sweep_post",
    "sweep_pre",
    "trusting_bound",
]

Path = tuple[int, ...]


class Fired(NamedTuple):
    """What a rule returns when it changed a node: the new node, the rule, why.

    `before` is set only when a rule reports a step of its own on a node the sweep
    did not hand it (a second rule firing on the first one's result).
    """

    after: Expression
    rule: str
    reason: str
    before: Expression | None = None
    earlier: tuple = ()  # firings at the same place just before this one, oldest first


Rule = Callable[[Expression], Fired | None]


class PassLog:
    """The rewrites of one outermost pass run, plus what `resolve` needs to place them."""

    __slots__ = ("_successor", "_sweep", "_sweep_of", "recording", "rewrites")

    def __init__(self, recording: bool):
        self.recording = recording
        self.rewrites: list[observe.Rewrite] = []
        self._sweep_of: list[int] = []
        self._successor: dict[int, tuple[Expression, Expression]] = {}
        self._sweep = 0

    def fired(self, fired: Fired, path: Path, before: Expression) -> Expression:
        if self.recording:
            if fired.before is not None:
                before = fired.before
            self.rewrites.append(observe.Rewrite(fired.rule, fired.reason, path, before,
                                                 fired.after))
            self._sweep_of.append(self._sweep)
            self._successor[id(before)] = (before, fired.after)
        return fired.after

    def rebuilt(self, old: Expression, new: Expression) -> None:
        self._successor[id(old)] = (old, new)

    def next_sweep(self) -> None:
        self._sweep += 1

    def resolve(self, result: Expression) -> list[observe.Rewrite]:
        """The rewrites with their paths placed in `result` (see the module docstring)."""
        if not self.rewrites:
            return []
        parents = _parent_links(result)
        resolved: list[Path | None] = [None] * len(self.rewrites)
        for k in range(len(self.rewrites) - 1, -1, -1):
            rewrite = self.rewrites[k]
            node = self._final_node(rewrite.after, parents)
            if node is not None:
                resolved[k] = _closest(_paths_to(node, parents), rewrite.path)
                continue
            absorber = self._absorber(k, resolved)
            resolved[k] = (absorber if absorber is not None
                           else _deepest_prefix(result, rewrite.path.to_tuple()))
        return [observe.Rewrite(r.rule, r.reason, p, r.before, r.after)
                for r, p in zip(self.rewrites, resolved)]

    def _final_node(self, node: Expression, parents) -> Expression | None:
        """`node`, or what later rebuilt or replaced it, as it stands in the result."""
        for _ in range(10_000):
            if id(node) in parents:
                return node
            step = self._successor.get(id(node))
            if step is None or step[0] is not node:
                return None
            node = step[1]
        return None

    def _absorber(self, k: int, resolved) -> Path | None:
        """The resolved path of the first later rule, same sweep, at an ancestor of rewrite k."""
        cell, sweep = self.rewrites[k].path, self._sweep_of[k]
        for j in range(k + 1, len(self.rewrites)):
            if self._sweep_of[j] != sweep:
                break
            if cell.is_below(self.rewrites[j].path):
                return resolved[j]
        return None


def _parent_links(root: Expression) -> dict[int, list[tuple[Expression | None, int]]]:
    """id(node) -> [(parent, argument index)] for every node of `root` (O(n), no paths)."""
    parents: dict[int, list] = {id(root): [(None, -1)]}
    stack = [root]
    while stack:
        node = stack.pop()
        for i, arg in enumerate(node.args):
            links = parents.get(id(arg))
            if links is None:
                parents[id(arg)] = [(node, i)]
                stack.append(arg)
            else:
                links.append((node, i))
    return parents


def _paths_to(node: Expression, parents, limit: int = 16) -> list[Path]:
    """The paths from the root to `node` (a shared node has several; at most `limit`).

    Walks up the parent links; a list grows per walk and is copied only where a
    shared node branches, so one path costs O(depth).
    """
    out: list[Path] = []
    walks: list[tuple[Expression, list[int]]] = [(node, [])]
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


def _closest(paths: list[Path], cell: _PathCell) -> Path:
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


def _deepest_prefix(root: Expression, path: Path) -> Path:
    node, out = root, []
    for i in path:
        if i >= len(node.args):
            break
        node = node.args[i]
        out.append(i)
    return tuple(out)


_CURRENT: contextvars.ContextVar[PassLog | None] = contextvars.ContextVar(
    "exprscope_pass_log", default=None)
_QUIET = PassLog(recording=False)
# set by optimize() once it has bound the input: the passes' own checks walk the whole tree
_TRUSTED: contextvars.ContextVar[bool] = contextvars.ContextVar("exprscope_bound_checked",
                                                               default=False)


def require_bound(expr: Expression, message: str) -> None:
    """Raise UnboundError(message) unless `expr` is bound (skipped inside optimize())."""
    if not _TRUSTED.get() and not expr.is_bound:
        raise UnboundError(message)


class trusting_bound:
    """A block in which the input is known bound, so passes skip their O(n) check."""

    def __enter__(self):
        self._token = _TRUSTED.set(True)
        return self

    def __exit__(self, *exc):
        _TRUSTED.reset(self._token)
        return False


def current_log() -> PassLog:
    """The log of the pass running now (a silent one outside any pass)."""
    return _CURRENT.get() or _QUIET


def run_as_pass(name: str, fn: Callable[..., Expression], expr: Expression, *args,
                observer=None, report_unchanged: bool = True, **kwargs) -> Expression:
    """Run `fn(expr, *args)` as the pass `name`: time it and report it to the observers.

    Inside another pass it just runs: its rewrites go to the outer pass's log.
    `report_unchanged=False`: observers hear of the pass only when it changed something.
    The cyclic garbage collector is paused while `fn` runs (not while observers do).
    A pyarrow expression is read as exprscope's first.
    """
    if isinstance(expr, pc.Expression):
        expr = from_pyarrow(expr)
    if _CURRENT.get() is not None:
        return fn(expr, *args, **kwargs)
    observers = observe.active_observers(observer)
    log = PassLog(recording=bool(observers))
    token = _CURRENT.set(log)
    start = time.perf_counter()
    try:
        with gc_paused():  # see gc_pause.py: the pass stays linear in the tree's size
            out = fn(expr, *args, **kwargs)
    finally:
        _CURRENT.reset(token)
    elapsed = time.perf_counter() - start
    if observers and (report_unchanged or out is not expr):
        event = observe.PassEvent(name, expr, out, out is not expr, log.resolve(out), elapsed)
        observe.notify("on_pass", event, observer)
    return out


def optimization_pass(name: str, *, expr_arg: int = 0, needs_guarantee: bool = False,
                      idempotent: bool = False):
    """Make `fn` a pass named `name`; `expr_arg` says which argument is the expression.

    `idempotent`: running it on its own output changes nothing, so optimize() may skip it.
    """

    def decorate(fn):
        @functools.wraps(fn)
        def run(*args, observer=None, **kwargs):
            if expr_arg == 0:
                return run_as_pass(name, fn, *args, observer=observer, **kwargs)
            before, expr, after = args[:expr_arg], args[expr_arg], args[expr_arg + 1:]
            return run_as_pass(name, lambda e, *rest: fn(*before, e, *rest), expr, *after,
                               observer=observer, **kwargs)

        run.pass_name = name
        run.needs_guarantee = needs_guarantee
        run.idempotent = idempotent
        return run

    return decorate


class _PathCell:
    """A path as a linked cell (parent, index): O(1) to extend, a tuple only on demand."""

    __slots__ = ("depth", "index", "parent")

    def __init__(self, parent: _PathCell | None, index: int):
        self.parent = parent
        self.index = index
        self.depth = 0 if parent is None else parent.depth + 1

    def to_tuple(self) -> Path:
        out = []
        cell = self
        while cell.parent is not None:
            out.append(cell.index)
            cell = cell.parent
        return tuple(reversed(out))

    def is_below(self, other: _PathCell) -> bool:
        """Whether `other` is a strict ancestor of this cell (same sweep)."""
        cell = self
        while cell.depth > other.depth:
            cell = cell.parent
        return cell is other and self is not other


_ROOT = _PathCell(None, -1)


class _Trail:
    """Where a sweep is, for recording runs only.

    modify_expression visits in a fixed order (pre on a node, then its arguments
    left to right, then post_call on a call), so mirroring it costs O(1) per node.
    """

    __slots__ = ("frames",)

    def __init__(self):
        self.frames: list[list] = []  # [path cell of a call, arguments seen so far]

    def next_cell(self) -> _PathCell:
        """The path of the node `pre` is about to see."""
        if not self.frames:
            return _ROOT
        top = self.frames[-1]
        top[1] += 1
        return _PathCell(top[0], top[1] - 1)

    def push(self, cell: _PathCell) -> None:
        self.frames.append([cell, 0])

    def pop(self) -> None:
        self.frames.pop()

    def top(self) -> _PathCell:
        return self.frames[-1][0]


def _log_all(log: PassLog, fired: Fired, path, before: Expression) -> Expression:
    for step in fired.earlier:
        log.fired(step, path, before)
    return log.fired(fired, path, before)


def sweep_post(expr: Expression, rule: Rule) -> Expression:
    """Apply `rule(call)` to every call after its arguments (Arrow's post_call)."""
    log = current_log()
    log.next_sweep()
    if not log.recording:
        def quiet_post(new, old):
            fired = rule(new)
            return new if fired is None else fired.after
        return modify_expression(expr, None, quiet_post)

    trail = _Trail()

    def pre(node):
        cell = trail.next_cell()
        if node.is_call:
            trail.push(cell)
        return node

    def post(new, old):
        if old is not None:
            log.rebuilt(old, new)
        fired = rule(new)
        if fired is not None:
            new = _log_all(log, fired, trail.top(), new)
        trail.pop()
        return new
    return modify_expression(expr, pre, post)


def sweep_pre(expr: Expression, rule: Rule) -> Expression:
    """Apply `rule(node)` to every node before its arguments (Arrow's pre)."""
    log = current_log()
    log.next_sweep()
    if not log.recording:
        def quiet_pre(node):
            fired = rule(node)
            return node if fired is None else fired.after
        return modify_expression(expr, quiet_pre, None)

    trail = _Trail()

    def pre(node):
        cell = trail.next_cell()
        fired = rule(node)
        out = node if fired is None else _log_all(log, fired, cell, node)
        if out.is_call:
            trail.push(cell)
        return out

    def post(new, old):
        if old is not None:
            log.rebuilt(old, new)
        trail.pop()
        return new
    return modify_expression(expr, pre, post)
