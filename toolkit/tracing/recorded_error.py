"""Errors inside traces: the facts a renderer shows, live or read back from JSON."""

from __future__ import annotations

from ..observe import ErrorFacts

__all__ = ["ErrorFacts", "error_facts"]


def error_facts(error) -> ErrorFacts | None:
    """The plain facts of an evaluation's error (an ErrorFacts, or an exception's)."""
    return ErrorFacts.of(error)
