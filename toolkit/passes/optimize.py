"""optimize: bind, then run the passes until a round changes nothing.

The default round is simplify_with_guarantee (only with a guarantee),
canonicalize, fold_constants, simplify_identities. Each pass reports to the
observer on its own (one PassEvent per pass per round), so a tracer sees every
step. `passes=` picks other passes, by name or as functions (any callable from
expression to expression); a single name runs that pass alone.

Cheap rounds: the input is checked bound once, not by every pass; an idempotent
pass whose input is the very object it returned last round is not run again (its
observer still hears "unchanged").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .. import observe
from ..functions.bind import bind
from ..model.expression import Expression, as_expression
from .canonicalize import canonicalize
from .errors import PassError, UnknownPassError
from .fold_constants import fold_constants
from .framework import run_as_pass, trusting_bound
from .known_values import replace_fields_with_known_values
from .remove_named_refs import remove_named_refs
from .simplify_identities import simplify_identities
from .simplify_with_guarantee import simplify_with_guarantee

__all__ = ["DEFAULT_PASSES", "MAX_ROUNDS", "PASSES", "optimize"]

DEFAULT_PASSES: tuple[str, ...] = (
    "simplify_with_guarantee", "canonicalize", "fold_constants", "simplify_identities",
)
PASSES: dict[str, Callable] = {
    "simplify_with_guarantee": simplify_with_guarantee,
    "canonicalize": canonicalize,
    "fold_constants": fold_constants,
    "simplify_identities": simplify_identities,
    "replace_fields_with_known_values": replace_fields_with_known_values,
    "remove_named_refs": remove_named_refs,
}
MAX_ROUNDS = 8


def optimize(expr, schema=None, guarantee=None, passes: Sequence | str | Callable | None = None,
             observer=None, *, max_rounds: int = MAX_ROUNDS) -> Expression:
    """`expr` bound to `schema` and optimized to a fixed point (at most `max_rounds` rounds).

    `guarantee`: a predicate true on every row (unbound is fine). `observer`: a
    `toolkit.observe.Observer` or a callable `(name, before, after, changed, rewrites)`.
    """
    expr = as_expression(expr)
    if schema is not None:
        expr = bind(expr, schema)
    elif not expr.is_bound:
        raise PassError("optimize needs a schema to bind an unbound expression: "
                        "optimize(expr, schema)")
    steps = _steps(passes, guarantee)
    last_output: dict[int, Expression] = {}  # step -> what it returned last round
    with trusting_bound():
        for _ in range(max(1, max_rounds)):
            start = expr
            for k, (name, run, idempotent) in enumerate(steps):
                if idempotent and last_output.get(k) is expr:
                    _report_skipped(name, expr, observer)
                    continue
                expr = run(expr, observer)
                last_output[k] = expr
            if expr is start:
                break
    return expr


def _report_skipped(name: str, expr: Expression, observer) -> None:
    if observe.active_observers(observer):
        observe.notify("on_pass", observe.PassEvent(name, expr, expr, False, ()), observer)


def _steps(passes, guarantee) -> list[tuple[str, Callable, bool]]:
    if passes is None:
        chosen: Iterable = [p for p in DEFAULT_PASSES
                            if guarantee is not None or p != "simplify_with_guarantee"]
    elif isinstance(passes, str) or callable(passes):
        chosen = [passes]
    else:
        chosen = list(passes)
    return [_step(p, guarantee) for p in chosen]


def _step(spec, guarantee) -> tuple[str, Callable, bool]:
    """(name, run(expr, observer), idempotent): every pass called the one way, `(expr, **ctx)`."""
    if isinstance(spec, str):
        if spec not in PASSES:
            raise UnknownPassError(spec, PASSES)
        spec = PASSES[spec]
    if not callable(spec):
        raise PassError(f"a pass is a name or a function, not {type(spec).__name__}")
    name = getattr(spec, "pass_name", None)
    if name is None:  # a plain function from expression to expression
        custom = spec
        name = getattr(custom, "__name__", "custom pass")
        return name, lambda e, obs: run_as_pass(name, lambda x, **ctx: custom(x), e,
                                                observer=obs), False
    if "guarantee" in spec.needs and guarantee is None:
        raise PassError(f"the pass {name} needs a guarantee: optimize(..., guarantee=...)")
    return name, lambda e, obs: spec(e, observer=obs, guarantee=guarantee), spec.idempotent
