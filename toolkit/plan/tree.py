"""Plans as trees for the rewrite core: how to read and rebuild them, and two plain walks.

As with expression passes, "nothing changed" is the identical object: a parent
is rebuilt (and its expressions rebound) only when one of its inputs changed.
Logical and physical plans both have `children` and `with_new_children`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..rewrite import TreeShape, modify_tree

__all__ = ["PLAN_SHAPE", "depth", "transform_down", "transform_up"]

PLAN_SHAPE = TreeShape(children=lambda node: node.children,
                       rebuild=lambda node, children: node.with_new_children(children))


def transform_up(plan, fn: Callable):
    """Apply `fn` to every node after its inputs (post-order, iterative)."""
    return modify_tree(plan, PLAN_SHAPE, None, lambda new, old: fn(new))


def transform_down(plan, fn: Callable):
    """Apply `fn` to a node, then to the inputs of what it returned (pre-order, iterative)."""
    return modify_tree(plan, PLAN_SHAPE, fn, None)


def depth(plan) -> int:
    """The number of nodes on the longest path from `plan` down to a leaf, iteratively."""
    deepest, stack = 0, [(plan, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in node.children)
    return deepest
