"""The errors the passes raise on purpose, so callers can tell them from bugs."""

from __future__ import annotations

from ..errors import (  # defined with every other exprscope error
    GuaranteeError,
    PassError,
    UnknownPassError,
)

__all__ = ["GuaranteeError", "PassError", "UnknownPassError"]


