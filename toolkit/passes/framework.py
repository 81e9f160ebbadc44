"""How a pass runs: a rewrite log, a timer, and one PassEvent for whoever listens.

Every pass is a function decorated with `@optimization_pass(name)`. The decorator
opens a `PassLog` in a context variable, runs the pass, and, when observers are
active, sends one `observe.PassEvent` with the rewrites the rules recorded. A pass
that runs inside another (simplify_with_guarantee calls canonicalize and
fold_constants) finds the outer log in the context variable and writes into it,
so the observer sees one event for the outer pass, holding every rewrite.

Rules run inside sweeps (`sweep_pre`, `sweep_post`, both on modify_expression): a
rule returns None for "no change" or a `Fired(after, rule, reason)`. When nobody
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
from typing import Callable, NamedTuple, Optional

from .. import observe
from ..expression import Expression
from ..visit import modify_expression

__all__ = ["Fired", "PassLog", "optimization_pass", "run_as_pass", "sweep_pre", "sweep_post",
           "current_log"]

Path = tuple[int, ...]


class Fired(NamedTuple):
    """What a rule returns when it changed a node: the new node, the rule, why.

    `before` is set only when a rule reports a step of its own on a node the sweep
    did not hand it (a second rule firing on the first one's result).
    """

    after: Expression
    rule: str
    reason: str
    before: Optional[Expression] = None


Rule = Callable[[Expression, Path], Optional[Fired]]


class PassLog:
    """The rewrites of one outermost pass run, plus what `resolve` needs to place them."""

    __slots__ = ("recording", "rewrites", "_sweep_of", "_successor", "_sweep")

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
        where: dict[int, list[Path]] = {}
        stack: list[tuple[Path, Expression]] = [((), result)]
        while stack:
            path, node = stack.pop()
            where.setdefault(id(node), []).append(path)
            args = node.args
            for i in range(len(args) - 1, -1, -1):
                stack.append((path + (i,), args[i]))
        resolved: list[Optional[Path]] = [None] * len(self.rewrites)
        for k in range(len(self.rewrites) - 1, -1, -1):
            rewrite = self.rewrites[k]
            paths = self._final_paths(rewrite.after, where)
            if paths:
                resolved[k] = _closest(paths, rewrite.path)
                continue
            resolved[k] = self._absorber(k, resolved) or _deepest_prefix(result, rewrite.path)
        return [observe.Rewrite(r.rule, r.reason, p, r.before, r.after)
                for r, p in zip(self.rewrites, resolved)]

    def _final_paths(self, node: Expression, where) -> list[Path] | None:
        seen = 0
        while True:
            paths = where.get(id(node))
            if paths:
                return paths
            step = self._successor.get(id(node))
            if step is None or step[0] is not node or seen > 10_000:
                return None
            node = step[1]
            seen += 1

    def _absorber(self, k: int, resolved) -> Path | None:
        """The resolved path of the first later rule, same sweep, at an ancestor of rewrite k."""
        path, sweep = self.rewrites[k].path, self._sweep_of[k]
        for j in range(k + 1, len(self.rewrites)):
            if self._sweep_of[j] != sweep:
                break
            other = self.rewrites[j].path
            if len(other) < len(path) and path[: len(other)] == other:
                return resolved[j]
        return None


def _closest(paths: list[Path], hint: Path) -> Path:
    if len(paths) == 1:
        return paths[0]

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


_CURRENT: contextvars.ContextVar[Optional[PassLog]] = contextvars.ContextVar(
    "exprscope_pass_log", default=None)
_QUIET = PassLog(recording=False)


def current_log() -> PassLog:
    """The log of the pass running now (a silent one outside any pass)."""
    return _CURRENT.get() or _QUIET


def run_as_pass(name: str, fn: Callable[..., Expression], expr: Expression, *args,
                observer=None, **kwargs) -> Expression:
    """Run `fn(expr, *args)` as the pass `name`: time it and report it to the observers.

    Inside another pass it just runs: its rewrites go to the outer pass's log.
    """
    if _CURRENT.get() is not None:
        return fn(expr, *args, **kwargs)
    observers = observe.active_observers(observer)
    log = PassLog(recording=bool(observers))
    token = _CURRENT.set(log)
    start = time.perf_counter()
    try:
        out = fn(expr, *args, **kwargs)
    finally:
        _CURRENT.reset(token)
    elapsed = time.perf_counter() - start
    if observers:
        event = observe.PassEvent(name, expr, out, out is not expr, log.resolve(out), elapsed)
        observe.notify("on_pass", event, observer)
    return out


def optimization_pass(name: str, *, expr_arg: int = 0, needs_guarantee: bool = False):
    """Make `fn` a pass named `name`; `expr_arg` says which argument is the expression."""

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
        return run

    return decorate


def sweep_post(expr: Expression, rule: Rule) -> Expression:
    """Apply `rule(call, path)` to every call after its arguments (Arrow's post_call)."""
    log = current_log()
    log.next_sweep()
    if log.recording:
        def post(new, old, path):
            if old is not None:
                log.rebuilt(old, new)
            fired = rule(new, path)
            return new if fired is None else log.fired(fired, path, new)
    else:
        def post(new, old, path):
            fired = rule(new, path)
            return new if fired is None else fired.after
    return modify_expression(expr, None, post, with_path=True)


def sweep_pre(expr: Expression, rule: Rule) -> Expression:
    """Apply `rule(node, path)` to every node before its arguments (Arrow's pre)."""
    log = current_log()
    log.next_sweep()
    if log.recording:
        def pre(node, path):
            fired = rule(node, path)
            return node if fired is None else log.fired(fired, path, node)

        def post(new, old, path):
            if old is not None:
                log.rebuilt(old, new)
            return new
        return modify_expression(expr, pre, post, with_path=True)

    def quiet_pre(node, path):
        fired = rule(node, path)
        return node if fired is None else fired.after
    return modify_expression(expr, quiet_pre, None, with_path=True)
