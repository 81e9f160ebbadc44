"""A run of one function nested in itself (`a + c + c …`, an if_else inside its own
`then`, an and/or chain) drawn as one straight column, its other arguments beside it.

Graphviz centres each parent over its children, so a run nested through one argument
drifts sideways by half a node per level: eight levels of an evaluation's boxes make a
staircase 1,200 pt wide whose root sits in the picture's top-right corner, off the
window a saved SVG opens in. Nodes that share a graphviz `group` are kept in a straight
line, so the links of a run of `SPINE_LINKS` or more share one group: the picture grows
down, not sideways, and opens on its root. A shorter run (`(a + 1) + 2`) keeps
graphviz's own layout.
"""

from __future__ import annotations

from ..model.expression import Expression

__all__ = ["SPINE_LINKS", "continues_run", "run_index", "starts_spine"]

SPINE_LINKS = 3  # links of one function nested through one argument: drawn as a column


def run_index(node: Expression) -> int | None:
    """The argument through which `node` nests in itself: its first argument that calls
    the same function (None: none does)."""
    if not node.is_call:
        return None
    for i, arg in enumerate(node.args):
        if arg.is_call and arg.name == node.name:
            return i
    return None


def continues_run(node: Expression, parent: Expression, index: int) -> bool:
    """Whether `node`, argument `index` of `parent`, is the next link of `parent`'s run."""
    return run_index(parent) == index and node.is_call and node.name == parent.name


def starts_spine(node: Expression) -> bool:
    """Whether a run of at least `SPINE_LINKS` links starts at `node`."""
    links = 1
    while links < SPINE_LINKS:
        index = run_index(node)
        if index is None:
            return False
        node = node.args[index]
        links += 1
    return True
