"""A correlated scalar subquery computed as SQL defines it, row by row: what the physical
planner runs when the optimizer has not decorrelated it.

Each input row is numbered, left-joined with the rows of the subquery's aggregate it
correlates with, and the aggregate is computed per input row (grouped by its number):
a row with no match meets one null-extended row, which no aggregate counts (count(*)
counts a marker that only real matches have), so it gets the aggregate over no rows,
0 for a count, as the subquery would. This is not how decorrelate_scalar_subquery
rewrites it (group the subquery by its keys, then join, then repair the count), so
a plan run before and after optimizing checks one against the other.
"""

from __future__ import annotations

from ..model.builders import field, literal
from .aggregates import AggregateExpr
from .logical_plan import (
    Aggregate,
    ConditionJoin,
    LogicalPlan,
    Projection,
    ScalarSubquery,
    Window,
    correlated_aggregate,
)
from .rules.base import substitute_columns
from .window import WindowExpr

__all__ = ["applied"]

_ROW, _MATCHED = "__row", "__matched"


def applied(node: ScalarSubquery) -> LogicalPlan:
    """The correlated node's rows (input columns and value), computed per input row."""
    input, subquery = node.input, node.subquery
    aggregate = correlated_aggregate(subquery)
    rows = aggregate.input
    numbered = Window(input, [WindowExpr("row_number", None, (), (), None, 1)], [_ROW])
    inner = {f.qualified_name: f"__inner{i}" for i, f in enumerate(rows.schema)}
    marked = Projection(rows, [*[field(q) for q in inner], literal(True)],
                        [*inner.values(), _MATCHED], [None] * (len(inner) + 1))
    joined = ConditionJoin(numbered, marked, [(outer, inner[i]) for outer, i in node.correlation],
                           "left", None, node.float_keys)
    renamed = {q: field(n) for q, n in inner.items()}
    aggregates = [AggregateExpr(a.func, field(_MATCHED) if a.arg is None else
                                substitute_columns(a.arg, renamed), a.name, a.fraction)
                  for a in aggregate.aggregates]
    columns = list(input.schema)
    top = Aggregate(joined, [field(_ROW), *[field(f.qualified_name) for f in columns]],
                    [_ROW, *[f.name for f in columns]], [None, *[f.relation for f in columns]],
                    aggregates)
    chain = []
    n = subquery
    while n is not aggregate:
        chain.append(n)
        n = n.input
    carried = [field(f.qualified_name) for f in columns]
    for projection in reversed(chain):  # each projection carries the input's columns up
        top = Projection(top, [*projection.exprs, *carried],
                         [*projection.names, *[f.name for f in columns]],
                         [*projection.relations, *[f.relation for f in columns]])
    value = node.schema[len(columns)]
    value_column = subquery.schema[0].qualified_name
    return Projection(top, [*carried, field(value_column)],
                      [*[f.name for f in columns], value.name],
                      [*[f.relation for f in columns], value.relation])
