"""Reading a Catalyst node through py4j: its class's simple name and its children."""

from __future__ import annotations

__all__ = ["children", "class_name"]


def class_name(node) -> str:
    return str(node.getClass().getSimpleName())


def children(node) -> list:
    seq = node.children()
    return [seq.apply(i) for i in range(seq.size())]
