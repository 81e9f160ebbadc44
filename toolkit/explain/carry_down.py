"""A predicate over a plan's output, carried down to the sources: which source rows can matter.

Each conjunct of the predicate goes down the plan as NedExplain carries a why-not
question: through a projection with its output columns replaced by the expressions
that compute them (`x AS y` reads `x`, `a + 1 AS b` reads `a + 1`), through an
aggregate when it reads only the group keys (replaced by the group expressions),
through a join to the side whose columns it reads, and, at an inner join, also to
the other side when it reads only join keys (the partner's key is equal). A conjunct
that reads an aggregate's value or both sides of a join stops there: it cannot
be told from one source row, and is listed as not carried.

Two modes. `exact=False` (why-not): filters, sorts, limits and windows are passed
through, as the question is about rows an operator might have dropped. `exact=True`
(reading only the rows that can matter): a source is restricted to the carried
predicate only where the plan's output rows that satisfy the predicate stay exactly
the same, so nothing is carried below a limit or a window (they look at other rows),
nor into the side of an outer join that is null-extended, nor to the other side of a
join by keys unless the join is inner.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ..execution import evaluate
from ..functions.facts import conjuncts
from ..model.builders import and_
from ..model.expression import Expression, Parameter
from ..model.field_ref import FieldRef
from ..plan import TableScan
from ..plan.columns import columns_of
from ..plan.rules.base import substitute_columns

__all__ = ["Carried", "carry_down", "matching_rows", "source_predicate"]


@dataclass(frozen=True)
class Carried:
    """The conjuncts that reached one scan (over the scan's qualified column names)."""

    scan: TableScan
    conjuncts: tuple[Expression, ...]
    origins: tuple[int, ...] = ()  # for each, the index of the conjunct of the predicate

    @property
    def predicate(self) -> Expression | None:
        """Their conjunction, or None when none reached the scan (every row can matter)."""
        if not self.conjuncts:
            return None
        return self.conjuncts[0] if len(self.conjuncts) == 1 else and_(*self.conjuncts)


def _names(node) -> list[str]:
    return list(node.schema.qualified_names)


def _renamed(expr: Expression, old: list[str], new: list[str]) -> Expression | None:
    return substitute_columns(expr, {o: Parameter(FieldRef(n)) for o, n in zip(old, new)})


def _within(expr: Expression, names) -> bool:
    return columns_of(expr) <= set(names)


def _join_parts(node):
    """(how, equal key pairs) of a join-like node, or None for other nodes."""
    kind = type(node).__name__
    if kind in ("Join", "ConditionJoin"):
        return node.how, node.on
    if kind in ("SubqueryFilter", "ScalarSubquery"):
        if node.as_join is None:  # correlated: each input row once, its value beside it
            return "left", ()
        return node.as_join.how, node.on
    return None


def _through_join(node, how: str, on, conj: Expression, exact: bool):
    """[(child index, conjunct)] that `conj` (over the join's output) becomes."""
    left, right = _names(node.children[0]), _names(node.children[1])
    left_keys, right_keys = [lk for lk, _ in on], [rk for _, rk in on]
    # a side whose unmatched rows are null-extended gets no conjunct in exact mode
    left_ok = not (exact and how in ("right", "full"))
    right_ok = not (exact and how in ("left", "full"))
    out = []
    if _within(conj, left):
        if left_ok:
            out.append((0, conj))
        if how == "inner" and on and _within(conj, left_keys):
            moved = _renamed(conj, left_keys, right_keys)
            if moved is not None:
                out.append((1, moved))
    elif _within(conj, right):
        if right_ok:
            out.append((1, conj))
        if how == "inner" and on and _within(conj, right_keys):
            moved = _renamed(conj, right_keys, left_keys)
            if moved is not None:
                out.append((0, moved))
    return out


def _step(node, conj: Expression, exact: bool):
    """[(child index, conjunct over that child's output)] for one conjunct at `node`."""
    kind = type(node).__name__
    if kind in ("Filter", "Sort"):
        return [(0, conj)]
    if kind == "Limit":
        return [] if exact else [(0, conj)]
    if kind == "Window":
        if exact or not _within(conj, _names(node.input)):
            return []
        return [(0, conj)]
    if kind == "Projection":
        moved = substitute_columns(conj, dict(zip(_names(node), node.exprs)))
        return [] if moved is None else [(0, moved)]
    if kind == "Aggregate":
        keys = _names(node)[: len(node.group_exprs)]
        if not _within(conj, keys):
            return []
        moved = substitute_columns(conj, dict(zip(keys, node.group_exprs)))
        return [] if moved is None else [(0, moved)]
    if kind == "Union":
        out = []
        for i, child in enumerate(node.children):
            moved = _renamed(conj, _names(node), _names(child))
            if moved is not None:
                out.append((i, moved))
        return out
    parts = _join_parts(node)
    if parts is not None:
        return _through_join(node, parts[0], parts[1], conj, exact)
    return []


def carry_down(p, predicate: Expression, exact: bool = False) -> list[Carried]:
    """Each scan of `p` with the conjuncts of `predicate` (qualified against `p`'s output)
    that reach it, in the plan's walk order (scans no conjunct reaches included)."""
    reached: dict[int, list[tuple[Expression, int]]] = {}
    parts = conjuncts(predicate, plain_and=True)
    stack = [(p, c, i) for i, c in reversed(list(enumerate(parts)))]
    while stack:
        node, conj, origin = stack.pop()
        if isinstance(node, TableScan):
            bucket = reached.setdefault(id(node), [])
            if not any(conj.equals(c) for c, _ in bucket):
                bucket.append((conj, origin))
            continue
        for index, moved in reversed(_step(node, conj, exact)):
            stack.append((node.children[index], moved, origin))
    out = []
    for n in p.walk():
        if isinstance(n, TableScan):
            got = reached.get(id(n), [])
            out.append(Carried(n, tuple(c for c, _ in got), tuple(o for _, o in got)))
    return out


def source_predicate(carried: Carried) -> Expression | None:
    """The carried predicate over the source's own column names (`a`, not `t.a`)."""
    expr = carried.predicate
    if expr is None:
        return None
    scan = carried.scan
    return substitute_columns(expr, {f.qualified_name: Parameter(FieldRef(f.name))
                                     for f in scan.schema})


def matching_rows(table: pa.Table, predicate: Expression) -> pa.Array:
    """The numbers of the rows of `table` where `predicate` (over its columns) is true."""
    names = sorted(columns_of(predicate))
    narrow = table.select(names) if names else table.select([])
    if not names:
        narrow = pa.table({"__n": pa.nulls(table.num_rows, pa.null())})
    values = evaluate(predicate, narrow)
    if isinstance(values, pa.Scalar):
        keep = bool(values.is_valid and values.as_py())
        return pa.array(range(table.num_rows) if keep else [], pa.int64())
    mask = pc.fill_null(values, False)
    return pc.indices_nonzero(mask).cast(pa.int64())
