"""is_satisfiable: can this filter be true on any row at all? (Arrow's IsSatisfiable)

A cheap, conservative check that datasets use to skip a fragment or row group
after simplify_with_guarantee: only literals, `and`/`or` structure and
`invert(true_unless_null(..))` are read; anything else might be true. It never
folds. Iterative, so 10,000-deep chains of `and` work.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

from ..model.expression import Expression, as_expression

__all__ = ["is_satisfiable"]

_ALL = frozenset({"and", "and_kleene"})
_ANY = frozenset({"or", "or_kleene"})


def is_satisfiable(expr: Expression) -> bool:
    """False only when `expr` can be shown to be false or null on every row."""
    expr = as_expression(expr)
    results: dict[int, bool] = {}
    stack: list[tuple[Expression, bool]] = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in results:
            continue
        if expanded:
            values = [results[id(a)] for a in node.args]
            results[id(node)] = all(values) if node.name in _ALL else any(values)
            continue
        local = _local(node)
        if local is not None:
            results[id(node)] = local
            continue
        stack.append((node, True))
        stack.extend((a, False) for a in node.args)
    return results[id(expr)]


def _local(node: Expression) -> bool | None:
    """The answer when it needs no argument's answer, else None (an and/or to descend)."""
    node_type = node.type
    if node_type is None or not pat.is_boolean(node_type):
        return True
    if node.is_literal:
        value = node.value
        if node.is_null_literal:
            return False
        if isinstance(value, pa.Scalar):
            return bool(value.as_py())
        return True
    if node.is_field:
        return True
    if node.name == "invert" and node.args:
        inner = node.args[0]
        if inner.is_call and inner.name == "true_unless_null":
            return False
    if node.name in _ALL or node.name in _ANY:
        return None
    return True
