"""modify_expression, Arrow's tree visitor, with an explicit stack.

Contract (docs/semantics.md): `pre` sees each node before its arguments;
`post_call` sees each call after them, as `post_call(new, old)` where `old` is
the call before its arguments changed, or None when none did. Returning the
identical object means "no change", so nothing above it is rebuilt. A rebuilt
call keeps its kernel and type (no rebind). The walk itself is the rewrite
core's `modify_tree` over the expression shape below.
"""

from __future__ import annotations

from typing import Callable, Iterator

from ..rewrite.tree_shape import TreeShape, modify_tree
from .expression import Expression

__all__ = ["EXPRESSION_SHAPE", "modify_expression", "node_at", "walk"]

Path = tuple[int, ...]

EXPRESSION_SHAPE = TreeShape(children=lambda node: node.args,
                             rebuild=lambda node, args: node.with_args(args),
                             post_leaves=False, is_inner=lambda node: node.is_call)


def modify_expression(expr: Expression, pre: Callable | None = None,
                      post_call: Callable | None = None) -> Expression:
    return modify_tree(expr, EXPRESSION_SHAPE, pre, post_call)


def walk(expr: Expression) -> Iterator[tuple[Path, Expression]]:
    """(path, node) for every node, pre-order, left to right."""
    stack: list[tuple[Path, Expression]] = [((), expr)]
    while stack:
        path, node = stack.pop()
        yield path, node
        args = node.args
        for i in range(len(args) - 1, -1, -1):
            stack.append((path + (i,), args[i]))


def node_at(expr: Expression, path: Path) -> Expression:
    for i in path:
        expr = expr.args[i]
    return expr
