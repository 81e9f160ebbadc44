"""decorrelate_scalar_subquery: a correlated scalar subquery becomes one grouped by the
columns it is correlated on.

As DataFusion's ScalarSubqueryToJoin with its PullUpCorrelatedExpr (and Spark's
RewriteCorrelatedScalarSubquery): `(SELECT agg(x) FROM s WHERE s.k = outer.k)`
computes, for each input row, the aggregate over the rows of `s` whose `k` equals
the row's. The same values come from grouping `s` by `k` once and matching each
input row with its group: a grouped scalar subquery (`on` input.k = s.k), which
scalar_subquery_to_join then makes a left join.

The count bug: an input row whose key has no rows in `s` gets no group, so the left
join gives it null, but the aggregate over no rows may not be null (`count(*)` is
0, `count(*) + 1` is 1). The rule computes the subquery's value over no rows with
the engine itself; when it is not null, the value becomes `CASE WHEN <the group's
key> IS NULL THEN <value over no rows> ELSE <value> END` (a matched group's key
equals the row's, so it is never null), as Spark wraps it in an `if` over a flag.
"""

from __future__ import annotations

import pyarrow as pa

from ... import observe
from ...execution import evaluate
from ...functions.bind import bind
from ...model.builders import field, if_else, is_null, literal
from ..logical_plan import (
    Aggregate,
    LogicalPlan,
    Projection,
    ScalarSubquery,
    correlated_aggregate,
)
from .base import Rule, substitute_columns

__all__ = ["DecorrelateScalarSubquery", "decorrelated", "value_over_no_rows"]


class DecorrelateScalarSubquery(Rule):
    name = "decorrelate_scalar_subquery"
    order = "post"

    def rewrite(self, node, ctx):
        if not (isinstance(node, ScalarSubquery) and node.correlation):
            return None
        after = decorrelated(node)
        inner = ", ".join(i for _, i in node.correlation)
        ties = " AND ".join(f"{i} = outer {o}" for o, i in node.correlation)
        reason = (f"the correlated scalar subquery ({ties}) became one grouped by {inner}, "
                  "each input row matched with its group")
        empty = value_over_no_rows(node.subquery)
        if empty.is_valid:
            reason += (f"; a row without a group gets {empty.as_py()!r}, the subquery's value "
                       "over no rows, not null")
        return self.fired(after, reason)


def value_over_no_rows(subquery: LogicalPlan) -> pa.Scalar:
    """The value a correlated scalar subquery has for an input row that matches no row:
    its aggregate over no rows (count 0, the others null) through the projections above."""
    aggregate = correlated_aggregate(subquery)
    values = {}
    for f, agg in zip(aggregate.schema, aggregate.aggregates):
        zero = pa.scalar(0, f.type) if agg.func == "count" else pa.scalar(None, f.type)
        values[f.qualified_name] = literal(zero)
    chain = []
    node = subquery
    while node is not aggregate:
        chain.append(node)
        node = node.input
    one_row = pa.record_batch([pa.array([None], pa.null())], names=["_"])
    for projection in reversed(chain):
        out = {}
        for expr, f in zip(projection.exprs, projection.schema):
            with observe.silenced():  # a constant worked out, not the user's evaluation
                constant = bind(substitute_columns(expr, values), one_row.schema)
                result = evaluate(constant, one_row)
            scalar = result if isinstance(result, pa.Scalar) else result[0]
            out[f.qualified_name] = literal(scalar.cast(f.type))
        values = out
    return values[subquery.schema.qualified_names[0]].value


def decorrelated(node: ScalarSubquery) -> LogicalPlan:
    """The grouped form of a correlated scalar subquery, with the input's columns and the
    value on top, exactly as the correlated node has them."""
    subquery = node.subquery
    aggregate = correlated_aggregate(subquery)
    rows = aggregate.input
    taken = set(node.input.schema.qualified_names)
    for n in subquery.walk():
        taken.update(n.schema.qualified_names)
        if n is aggregate:
            break
    keys = []  # (relation, name) of each correlated column once grouped, clear of others
    for _, inner in node.correlation:
        f = rows.schema.field(inner)
        relation, name = f.relation, f.name
        n = 1
        while (name if relation is None else f"{relation}.{name}") in taken:
            relation, name, n = None, f"{f.name}_{n}", n + 1
        taken.add(name if relation is None else f"{relation}.{name}")
        keys.append((relation, name))
    grouped = Aggregate(rows, [field(inner) for _, inner in node.correlation],
                        [name for _, name in keys], [relation for relation, _ in keys],
                        aggregate.aggregates)
    chain = []
    n = subquery
    while n is not aggregate:
        chain.append(n)
        n = n.input
    key_names = grouped.schema.qualified_names[:len(keys)]
    if not chain:  # the value first, then the keys, as the grouped form reads them
        value_field = aggregate.schema[0]
        chain = [Projection(aggregate, [field(value_field.qualified_name)],
                            [value_field.name], [value_field.relation])]
    top = grouped
    for projection in reversed(chain):  # each projection carries the keys up
        top = Projection(top, [*projection.exprs, *[field(k) for k in key_names]],
                         [*projection.names, *[name for _, name in keys]],
                         [*projection.relations, *[relation for relation, _ in keys]])
    matched = ScalarSubquery(node.input, top,
                             [(outer, key) for (outer, _), key in zip(node.correlation,
                                                                       key_names)],
                             float_keys=node.float_keys)
    value = node.schema[len(node.input.schema)]
    expr = field(value.qualified_name)
    empty = value_over_no_rows(subquery)
    if empty.is_valid:
        expr = if_else(is_null(field(key_names[0])), literal(empty), expr)
    columns = list(node.input.schema)
    return Projection(matched, [*[field(f.qualified_name) for f in columns], expr],
                      [*[f.name for f in columns], value.name],
                      [*[f.relation for f in columns], value.relation])
