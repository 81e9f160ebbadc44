"""How a pass runs: its rules through the rewrite core, a timer, one PassEvent per run.

Every pass is a function `(expr, **ctx)` decorated with `@optimization_pass(name)`.
The decorator opens a `RewriteLog` in a context variable, runs the pass, and,
when observers are active, sends one `observe.PassEvent` holding a
`RuleApplied` for every rule that fired, at the position of the node it changed
in the tree the pass was given. A pass
that runs inside another (simplify_with_guarantee calls canonicalize and
fold_constants) finds the outer log and writes into it, so the observer sees
one event for the outer pass, holding every rewrite.

Rules answer a node with a `Transformed` (or None for "no change") and run in
sweeps (`sweep_pre`, `sweep_post`) that `toolkit.rewrite.apply_rule` drives.
When nobody listens, nothing is recorded and a sweep costs little more than
modify_expression. Context a pass may use (`guarantee`, `known`) arrives as
keywords; a pass ignores the ones it does not need.
"""

from __future__ import annotations

import contextvars
import functools
import time
from collections.abc import Callable

import pyarrow.compute as pc

from .. import observe
from ..errors import UnboundError
from ..model.expression import Expression, from_pyarrow
from ..model.visit import EXPRESSION_SHAPE
from ..rewrite import RewriteLog, Transformed, apply_rule
from ..support.gc_pause import gc_paused
from .errors import PassError

__all__ = [
    "current_log",
    "optimization_pass",
    "require_bound",
    "run_as_pass",
    "sweep_post",
    "sweep_pre",
    "trusting_bound",
]

Rule = Callable[[Expression], Transformed | None]


_CURRENT: contextvars.ContextVar[RewriteLog | None] = contextvars.ContextVar(
    "exprscope_pass_log", default=None)
_QUIET = RewriteLog(EXPRESSION_SHAPE, recording=False)
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


def current_log() -> RewriteLog:
    """The log of the pass running now (a silent one outside any pass)."""
    return _CURRENT.get() or _QUIET


def run_as_pass(name: str, fn: Callable[..., Expression], expr: Expression, *,
                observer=None, report_unchanged: bool = True, **ctx) -> Expression:
    """Run `fn(expr, **ctx)` as the pass `name`: time it and report it to the observers.

    Inside another pass it just runs: its rewrites go to the outer pass's log.
    `report_unchanged=False`: observers hear of the pass only when it changed something.
    The cyclic garbage collector is paused while `fn` runs (not while observers do).
    A pyarrow expression is read as exprscope's first.
    """
    if isinstance(expr, pc.Expression):
        expr = from_pyarrow(expr)
    if _CURRENT.get() is not None:
        return fn(expr, **ctx)
    observers = observe.active_observers(observer)
    log = RewriteLog(EXPRESSION_SHAPE, recording=bool(observers), positions="given")
    token = _CURRENT.set(log)
    start = time.perf_counter()
    try:
        with gc_paused():  # see gc_pause.py: the pass stays linear in the tree's size
            out = fn(expr, **ctx)
    finally:
        _CURRENT.reset(token)
    elapsed = time.perf_counter() - start
    if observers and (report_unchanged or out is not expr):
        event = observe.PassEvent(name, expr, out, out is not expr, tuple(log.resolve(out, expr)),
                                  elapsed)
        observe.notify("on_pass", event, observer)
    return out


def optimization_pass(name: str, *, takes: tuple[str, ...] = (), needs: tuple[str, ...] = (),
                      idempotent: bool = False):
    """Make `fn(expr, **ctx)` a pass named `name`.

    `takes`: context keywords also accepted by position after the expression
    (`simplify_with_guarantee(expr, guarantee)`). `needs`: those the pass cannot
    run without; a call without them is refused with a PassError saying how.
    `idempotent`: running it on its own output changes nothing, so optimize() may skip it.
    Every pass takes the expression first and its context as keywords, so one
    driver can call any of them the same way (extra keywords are ignored).
    """

    def decorate(fn):
        @functools.wraps(fn)
        def run(expr, *args, observer=None, **ctx):
            if len(args) > len(takes):
                raise PassError(f"the pass {name} takes the expression"
                                + "".join(f", {k}" for k in takes) + f", not {1 + len(args)} "
                                "arguments")
            ctx.update(zip(takes, args))
            if not isinstance(expr, (Expression, pc.Expression)):
                raise PassError(f"the pass {name} takes the expression first, not "
                                f"{type(expr).__name__}: {name}(expr"
                                + "".join(f", {k}=..." for k in takes) + ")")
            for key in needs:
                if ctx.get(key) is None:
                    raise PassError(f"the pass {name} needs a {key}: {name}(expr, {key}=...)")
            return run_as_pass(name, fn, expr, observer=observer, **ctx)

        run.pass_name = name
        run.takes = takes
        run.needs = needs
        run.idempotent = idempotent
        return run

    return decorate


def sweep_post(expr: Expression, rule: Rule) -> Expression:
    """Apply `rule(call)` to every call after its arguments (Arrow's post_call)."""
    return apply_rule(expr, rule, "post", current_log())


def sweep_pre(expr: Expression, rule: Rule) -> Expression:
    """Apply `rule(node)` to every node before its arguments (Arrow's pre)."""
    return apply_rule(expr, rule, "pre", current_log())
