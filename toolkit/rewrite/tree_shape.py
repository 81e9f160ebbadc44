"""modify_tree: Arrow's modify_expression contract over any tree, with an explicit stack.

`pre(node)` sees each node before its children; `post(new, old)` sees each node
after its children (leaves too, unless the shape says otherwise), where `old` is the node before its children changed,
or None when none did. Returning the identical object means "no change", so
nothing above it is rebuilt. With `with_cells`, both callbacks get the node's
position as a last argument: a `PathCell` (parent cell, index), O(1) to make,
turned into a tuple only when someone asks (tuples of a 10,000-deep tree would
cost quadratic time).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

__all__ = ["ROOT", "PathCell", "TreeShape", "modify_tree"]


class TreeShape(NamedTuple):
    """How to read and rebuild one kind of tree (expressions, plans)."""

    children: Callable[[Any], Sequence]
    rebuild: Callable[[Any, list], Any]  # the node with these children instead
    post_leaves: bool = True  # False: `post` sees only inner nodes (Arrow's post_call)
    is_inner: Callable[[Any], bool] | None = None  # default: has children


class PathCell:
    """A position as a linked cell (parent, index)."""

    __slots__ = ("depth", "index", "parent")

    def __init__(self, parent: PathCell | None, index: int):
        self.parent = parent
        self.index = index
        self.depth = 0 if parent is None else parent.depth + 1

    def to_tuple(self) -> tuple[int, ...]:
        out = []
        cell = self
        while cell.parent is not None:
            out.append(cell.index)
            cell = cell.parent
        return tuple(reversed(out))

    def is_below(self, other: PathCell) -> bool:
        """Whether `other` is a strict ancestor of this cell (cells of one walk)."""
        cell = self
        while cell.depth > other.depth:
            cell = cell.parent
        return cell is other and self is not other


ROOT = PathCell(None, -1)


def _identity(node, *rest):
    return node


def _post_identity(new, old, *rest):
    return new


def modify_tree(root, shape: TreeShape, pre: Callable | None = None,
                post: Callable | None = None, *, with_cells: bool = False):
    """`root` with `pre` and `post` applied (see the module docstring)."""
    pre = pre or _identity
    post = post or _post_identity
    children_of, rebuild = shape.children, shape.rebuild
    if with_cells:
        def visit_pre(node, cell):
            return pre(node, cell)

        def visit_post(new, old, cell):
            return post(new, old, cell)

        def child_cell(cell, i):
            return PathCell(cell, i)
    else:
        def visit_pre(node, cell):
            return pre(node)

        def visit_post(new, old, cell):
            return post(new, old)

        def child_cell(cell, i):
            return None

    post_leaves = shape.post_leaves
    is_inner = shape.is_inner or (lambda node: bool(children_of(node)))
    top = visit_pre(root, ROOT if with_cells else None)
    if not is_inner(top):
        return visit_post(top, None, ROOT if with_cells else None) if post_leaves else top
    # frame: [node after pre, its cell, results for its children so far]
    stack: list[list] = [[top, ROOT if with_cells else None, []]]
    while True:
        frame = stack[-1]
        node, cell, results = frame
        children = children_of(node)
        i = len(results)
        if i < len(children):
            cell_i = child_cell(cell, i)
            child = visit_pre(children[i], cell_i)
            if is_inner(child):
                stack.append([child, cell_i, []])
            else:
                results.append(visit_post(child, None, cell_i) if post_leaves else child)
            continue
        stack.pop()
        if any(r is not c for r, c in zip(results, children)):
            out = visit_post(rebuild(node, results), node, cell)
        else:
            out = visit_post(node, None, cell)
        if not stack:
            return out
        stack[-1][2].append(out)
