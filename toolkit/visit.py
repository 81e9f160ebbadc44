"""modify_expression, Arrow's tree visitor, with an explicit stack.

Contract (ARROW_SEMANTICS.md §5): `pre` sees each node before its arguments;
`post_call` sees each call after them, as `post_call(new, old)` where `old` is
the call before its arguments changed, or None when none did. Returning the
identical object means "no change", so nothing above it is rebuilt. A rebuilt
call keeps its kernel and type (no rebind).

The passes also want to know *where* they are, to say which node a rule changed:
with `with_path=True` both callbacks get the node's path (argument indices from
the root) as a last argument.
"""

from __future__ import annotations

from typing import Callable, Iterator

from .expression import Expression

__all__ = ["modify_expression", "walk", "node_at", "replace_at"]

Path = tuple[int, ...]


def _identity(expr, *rest):
    return expr


def _post_identity(new, old, *rest):
    return new


def modify_expression(
    expr: Expression,
    pre: Callable | None = None,
    post_call: Callable | None = None,
    *,
    with_path: bool = False,
) -> Expression:
    pre = pre or _identity
    post_call = post_call or _post_identity
    if with_path:
        visit_pre, visit_post = pre, post_call
    else:
        def visit_pre(e, path):
            return pre(e)

        def visit_post(new, old, path):
            return post_call(new, old)

    root = visit_pre(expr, ())
    if not root.is_call:
        return root
    # frame: [call after pre, its path, results for its arguments so far]
    stack: list[list] = [[root, (), []]]
    while True:
        frame = stack[-1]
        node, path, results = frame
        args = node.args
        i = len(results)
        if i < len(args):
            # paths only when asked: on a 10,000-deep tree they cost O(depth) each
            child_path = path + (i,) if with_path else ()
            child = visit_pre(args[i], child_path)
            if child.is_call:
                stack.append([child, child_path, []])
            else:
                results.append(child)
            continue
        stack.pop()
        if any(r is not a for r, a in zip(results, args)):
            out = visit_post(node.with_args(results), node, path)
        else:
            out = visit_post(node, None, path)
        if not stack:
            return out
        stack[-1][2].append(out)


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


def replace_at(expr: Expression, path: Path, new: Expression) -> Expression:
    """A copy of `expr` with the node at `path` replaced (ancestors keep kernels)."""
    if not path:
        return new
    chain = [expr]
    for i in path[:-1]:
        chain.append(chain[-1].args[i])
    for parent, i in zip(reversed(chain), reversed(path)):
        args = list(parent.args)
        args[i] = new
        new = parent.with_args(args)
    return new
