"""DataFusion's invariants (docs/semantics.md §8), each a named, visible check.

Each invariant carries the validation level DataFusion gives it: MUST (the
component has to check and error), SHOULD (users of the component should
check), CAN (expensive; an execution context may check). Every check that runs
reports an `observe.InvariantCheck`, passed or failed; a failure raises
`InvariantViolation` naming the invariant, the node, expected and actual.

Validation modes decide which checks run:

- ``"always"`` (the default): every check; CAN checks on every batch.
- ``"debug"``: MUST and SHOULD checks; CAN checks only on the first batch each
  physical node emits, so their cost does not grow with the data.
- ``"off"``: only MUST checks. DataFusion makes those an obligation of the
  builder, optimizer and planner themselves, so they cannot be switched off.

Set the mode per call (`create_physical_plan(p, validation="debug")`,
`phys.execute(validation=...)`, `optimize(p, validation=...)`) or for a block
with `with plan.validation("off"): ...`.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass

from .. import observe
from .errors import DuplicateFieldError, InvariantViolation, PlanError

__all__ = [
    "BATCH_SCHEMA_IS_PLAN_SCHEMA",
    "DATA_MATCHES_SCHEMA",
    "FUNCTION_RETURNS_DECLARED",
    "INVARIANTS",
    "LOGICAL_OPTIMIZATION_KEEPS_SCHEMA",
    "MODES",
    "PHYSICAL_OPTIMIZATION_KEEPS_SCHEMA",
    "PLANNING_KEEPS_SCHEMA",
    "UNIQUE_NAMES",
    "Invariant",
    "current_mode",
    "report",
    "runs",
    "validation",
]

MODES = ("always", "debug", "off")


@dataclass(frozen=True)
class Invariant:
    """One invariant: what it says, who guarantees it, who checks it how hard."""

    name: str
    statement: str
    level: str  # "MUST", "SHOULD" or "CAN": how strongly DataFusion asks for validation
    responsibility: str
    validated_by: str


UNIQUE_NAMES = Invariant(
    "unique (relation, name)",
    "Every logical field's (relation, name) in a logical schema is unique.",
    "MUST", "the logical builder and optimizer",
    "the builder and optimizer, on every node that creates a schema")
DATA_MATCHES_SCHEMA = Invariant(
    "physical schema consistent with data",
    "Every array of every batch has the type its schema declares, and no nulls where the "
    "field is not nullable.",
    "CAN", "physical functions and nodes", "the execution context, per batch")
FUNCTION_RETURNS_DECLARED = Invariant(
    "physical functions return what they declare",
    "The array a physical function returns has the type (and nullability) it reports.",
    "CAN", "whoever writes the physical function", "the execution context, per batch")
PLANNING_KEEPS_SCHEMA = Invariant(
    "physical schema invariant under planning",
    "plan(logical_plan).schema == logical_plan.schema with relation qualifiers stripped.",
    "MUST", "developers of logical and physical plans and the planner", "the planner")
BATCH_SCHEMA_IS_PLAN_SCHEMA = Invariant(
    "output batch schema equals plan schema",
    "The schema of every batch a physical plan outputs equals the plan's schema.",
    "CAN", "physical nodes", "the execution context, per batch")
LOGICAL_OPTIMIZATION_KEEPS_SCHEMA = Invariant(
    "logical schema invariant under logical optimization",
    "optimize(logical_plan).schema == logical_plan.schema",
    "SHOULD", "logical optimizer rules", "users of the optimizer (its driver, after each rule)")
PHYSICAL_OPTIMIZATION_KEEPS_SCHEMA = Invariant(
    "physical schema invariant under physical optimization",
    "optimize(physical_plan).schema == physical_plan.schema",
    "SHOULD", "physical optimizer rules", "users of the optimizer (its driver, after each rule)")

INVARIANTS: dict[str, Invariant] = {
    inv.name: inv for inv in (
        UNIQUE_NAMES, DATA_MATCHES_SCHEMA, FUNCTION_RETURNS_DECLARED, PLANNING_KEEPS_SCHEMA,
        BATCH_SCHEMA_IS_PLAN_SCHEMA, LOGICAL_OPTIMIZATION_KEEPS_SCHEMA,
        PHYSICAL_OPTIMIZATION_KEEPS_SCHEMA)
}

_MODE: contextvars.ContextVar[str] = contextvars.ContextVar("exprscope_plan_validation",
                                                           default="always")


def _checked_mode(mode: str) -> str:
    if mode not in MODES:
        raise PlanError(f"validation mode must be one of {MODES}, got {mode!r}")
    return mode


@contextlib.contextmanager
def validation(mode: str) -> Iterator[str]:
    """Run the block's planning, optimization and execution under this validation mode."""
    token = _MODE.set(_checked_mode(mode))
    try:
        yield mode
    finally:
        _MODE.reset(token)


def current_mode(explicit: str | None = None) -> str:
    """The explicit mode when given, else the block's (`validation(...)`), else "always"."""
    return _checked_mode(explicit) if explicit is not None else _MODE.get()


def runs(invariant: Invariant, mode: str, first_batch: bool = True) -> bool:
    """Whether `invariant` is checked under `mode` (CAN checks: see the module doc)."""
    if invariant.level == "MUST":
        return True
    if mode == "off":
        return False
    if invariant.level == "SHOULD" or mode == "always":
        return True
    return first_batch  # "debug": CAN checks sample each node's first batch


def report(invariant: Invariant, subject, passed: bool, details: str = "",
           expected=None, actual=None, observer=None) -> None:
    """Tell the observers about one check, then raise if it failed.

    `subject` is the node's text, or a function giving it (built only when needed).
    """
    if not passed or observe.active_observers(observer):
        subject = subject() if callable(subject) else subject
    if observe.active_observers(observer):
        observe.notify("on_invariant", observe.InvariantCheck(
            name=invariant.name, level=invariant.level, subject=subject, passed=passed,
            details=details, expected=expected, actual=actual), observer)
    if not passed:
        cls = DuplicateFieldError if invariant is UNIQUE_NAMES else InvariantViolation
        raise cls(invariant.name, invariant.level, subject, details, expected, actual)
