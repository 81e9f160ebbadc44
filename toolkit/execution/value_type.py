"""A value (array or scalar) of the type a node promised: the one cast helper of the engine."""

from __future__ import annotations

__all__ = ["as_type"]


def as_type(value, out_type):
    """`value` cast to `out_type` when it differs (None: any type is the right one)."""
    if out_type is None or value.type == out_type:
        return value
    return value.cast(out_type)
