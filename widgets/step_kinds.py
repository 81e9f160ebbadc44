"""What kind of step a trace recorded, told by the shape of the record.

The explorer shows a pass, an evaluation, an invariant check and a plan rule
differently. It recognises them by their attributes (duck typing) rather than
by class, so it works on the engine's `toolkit.observe` events, on a tracer's
wrappers around them (anything with an `.event`), and on steps read back from
JSON, without importing the tracer.
"""

from __future__ import annotations

__all__ = [
    "EVAL",
    "INVARIANT",
    "OTHER",
    "PASS",
    "PLAN_RULE",
    "event_of",
    "is_change",
    "step_kind",
    "step_title",
]

PASS = "pass"
EVAL = "eval"
INVARIANT = "invariant"
PLAN_RULE = "plan rule"
OTHER = "other"


def event_of(step):
    """The event record behind a step (a tracer may wrap it in `.event`)."""
    inner = getattr(step, "event", None)
    return inner if inner is not None else step


def step_kind(step) -> str:
    event = event_of(step)
    has = lambda name: hasattr(event, name)
    if has("rewrites") and has("before") and has("after"):
        return PASS
    if has("branches") and has("nodes") and has("num_rows"):
        return EVAL
    if has("passed") and has("subject"):
        return INVARIANT
    if has("rule") and has("before") and has("after"):
        return PLAN_RULE
    return OTHER


def is_change(step) -> bool:
    """A step that changed a tree or a plan: where "jump to next change" stops."""
    if step_kind(step) not in (PASS, PLAN_RULE):
        return False
    return bool(getattr(event_of(step), "changed", False))


def step_title(step) -> str:
    """One line that names the step, as the explorer's header shows it."""
    event = event_of(step)
    kind = step_kind(step)
    if kind == PASS:
        n = len(event.rewrites)
        what = f"{n} rewrite{'s' if n != 1 else ''}" if event.changed else "no change"
        return f"pass {event.name}: {what}"
    if kind == PLAN_RULE:
        return f"plan rule {event.rule}: {'changed the plan' if event.changed else 'no change'}"
    if kind == EVAL:
        failed = " (failed)" if getattr(event, "error", None) is not None else ""
        return f"evaluation ({event.mode}) on {event.num_rows} rows{failed}"
    if kind == INVARIANT:
        verdict = "pass" if event.passed else "FAIL"
        return f"invariant {event.name} [{event.level}] on {event.subject}: {verdict}"
    return type(event).__name__
