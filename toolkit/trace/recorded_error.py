"""Errors inside traces: the facts a renderer shows, live or read back from JSON.

A saved trace cannot hold the exception object, only what it said: its kind,
its message, the path of the failing node and the first failing row.
`RecordedError` is a KernelError rebuilt from those facts, so code that catches
or inspects kernel errors treats a loaded one like the original.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import KernelError

__all__ = ["RecordedError", "ErrorFacts", "error_facts"]


class RecordedError(KernelError):
    def __init__(self, message: str, kind: str = "KernelError", path=(), row=None, node=None):
        Exception.__init__(self, message)
        self.kind = kind
        self.node = node
        self.path = tuple(path)
        self.row = row
        self.cause = None


@dataclass(frozen=True)
class ErrorFacts:
    kind: str
    message: str
    path: tuple | None  # None: the error names no node
    row: int | None


def error_facts(error) -> ErrorFacts | None:
    if error is None:
        return None
    kind = getattr(error, "kind", None) or type(error).__name__
    path = getattr(error, "path", None)
    has_node = getattr(error, "node", None) is not None or bool(path)
    return ErrorFacts(kind, str(error), tuple(path) if has_node and path is not None else
                      (() if has_node else None), getattr(error, "row", None))
