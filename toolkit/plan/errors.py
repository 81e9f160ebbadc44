"""The errors plans raise: unknown or ambiguous columns, bad plans, broken invariants.

Column errors list the candidates (a user who typed `dep_dely` or a bare `id`
after a join sees at once what exists); an invariant violation names the
invariant, the plan node and what was expected against what was found.
"""

from __future__ import annotations

from ..errors import (  # defined with every other exprscope error
    AmbiguousColumnError,
    ColumnNotFoundError,
    DuplicateFieldError,
    InvariantViolation,
    PlanError,
)

__all__ = [
    "AmbiguousColumnError",
    "ColumnNotFoundError",
    "DuplicateFieldError",
    "InvariantViolation",
    "PlanError",
]


