"""Rewriting logical plans: bottom-up and top-down transforms that keep unchanged nodes.

As with expression passes, "nothing changed" is the identical object: a parent
is rebuilt (and its expressions rebound) only when one of its inputs changed,
so the optimizer can tell whether a rule did anything by identity.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["transform_down", "transform_up"]


def transform_up(plan, fn: Callable):
    """Apply `fn` to every node after its inputs (post-order, iterative)."""
    done: dict[int, object] = {}
    stack = [(plan, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children if id(c) not in done)
            continue
        children = [done[id(c)] for c in node.children]
        if any(new is not old for new, old in zip(children, node.children)):
            node_now = node.with_new_children(children)
        else:
            node_now = node
        done[id(node)] = fn(node_now)
    return done[id(plan)]


def transform_down(plan, fn: Callable):
    """Apply `fn` to a node, then to the inputs of what it returned (pre-order, iterative)."""
    root = fn(plan)
    # frames: [node after fn, its children as rewritten so far]
    stack: list[list] = [[root, []]]
    while True:
        node, done = stack[-1]
        if len(done) < len(node.children):
            child = fn(node.children[len(done)])
            stack.append([child, []])
            continue
        stack.pop()
        if any(new is not old for new, old in zip(done, node.children)):
            node = node.with_new_children(done)
        if not stack:
            return node
        stack[-1][1].append(node)
