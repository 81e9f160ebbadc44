"""The errors plans raise: unknown or ambiguous columns, bad plans, broken invariants.

Column errors list the candidates (a user who typed `dep_dely` or a bare `id`
after a join sees at once what exists); an invariant violation names the
invariant, the plan node and what was expected against what was found.
"""

from __future__ import annotations

from ..errors import ExprscopeError, FieldRefError

__all__ = [
    "AmbiguousColumnError",
    "ColumnNotFoundError",
    "DuplicateFieldError",
    "InvariantViolation",
    "PlanError",
]


class PlanError(ExprscopeError, ValueError):
    """A plan that cannot be built as asked (wrong argument, unsupported shape)."""


class ColumnNotFoundError(FieldRefError):
    """A column reference that matches no field of the input schema."""

    def __init__(self, message: str, ref=None, candidates=()):
        super().__init__(message, ref=ref)
        self.candidates = tuple(candidates)


class AmbiguousColumnError(FieldRefError):
    """A bare column name that more than one relation provides."""

    def __init__(self, message: str, ref=None, candidates=()):
        super().__init__(message, ref=ref)
        self.candidates = tuple(candidates)


class InvariantViolation(ExprscopeError, AssertionError):
    """A DataFusion invariant did not hold: which one, where, expected against actual."""

    def __init__(self, invariant: str, level: str, subject: str, details: str,
                 expected=None, actual=None):
        self.invariant = invariant
        self.level = level
        self.subject = subject
        self.details = details
        self.expected = expected
        self.actual = actual
        text = f"invariant '{invariant}' ({level}) violated at {subject}: {details}"
        if expected is not None or actual is not None:
            text += f"\n  expected: {expected}\n  actual:   {actual}"
        super().__init__(text)


class DuplicateFieldError(InvariantViolation):
    """Two fields of one logical schema share (relation, name)."""
