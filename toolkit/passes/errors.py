"""The errors the passes raise on purpose, so callers can tell them from bugs."""

from __future__ import annotations

from ..errors import ExprscopeError

__all__ = ["GuaranteeError", "PassError", "UnknownPassError"]


class PassError(ExprscopeError, ValueError):
    """A pass that cannot run on what it was given."""


class UnknownPassError(PassError, KeyError):
    """A pass name `optimize(passes=...)` does not know; the message lists the known ones."""

    def __init__(self, name, known):
        self.name = name
        self.known = tuple(known)
        self.message = (f"unknown pass {name!r}; known passes: " + ", ".join(self.known))
        super().__init__(self.message)

    def __str__(self):  # KeyError would quote the message
        return self.message


class GuaranteeError(PassError):
    """A guarantee that does not fit the expression (a value of the wrong type, say)."""
