"""A row's partners at a join: the other input's rows it is paired with, exactly as the join
pairs them.

A pair matches when every equal-key pair is equal (a null key equals nothing; float keys
as the join's `float_keys` says: -0.0 equals 0.0, and NaN equals NaN only in a join that
compares them as Spark does) and the join's residual condition is true for the pair; a
cross join pairs every row. The
keys are matched with pyarrow's own comparisons over the other input, and the
condition is evaluated once over the rows whose keys match, each beside the row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..execution import evaluate
from ..model.builders import and_, call, literal, or_
from ..model.expression import Expression, Parameter
from ..model.field_ref import FieldRef
from ..plan.float_keys import NORMALIZED
from ..plan.logical_plan import correlated_aggregate
from ..plan.rules.base import substitute_columns
from ..support.visible_text import visible
from .value_text import value_text

__all__ = ["JoinSides", "join_sides", "key_text", "other_input", "partner_rows",
           "reduction_predicate", "row_condition"]

JOIN_KINDS = ("Join", "ConditionJoin", "SubqueryFilter", "ScalarSubquery")


@dataclass(frozen=True)
class JoinSides:
    """A join seen from the side the row comes in on."""

    how: str
    ours_left: bool
    pairs: tuple[tuple[str, str], ...]  # (our key column, the other side's key column)
    condition: Expression | None  # over both sides' qualified names, left then right
    other_index: int  # the other input's child index
    float_keys: str  # how the join compares float keys (plan/float_keys.py)

    @property
    def preserves_ours(self) -> bool:
        """Whether a row of our side without partner still reaches the output."""
        keeps = ("left", "full", "anti") if self.ours_left else ("right", "full")
        return self.how in keeps


def join_sides(join, scan) -> JoinSides:
    """`join` (a Join, ConditionJoin, SubqueryFilter or ScalarSubquery) seen from `scan`'s side."""
    ours_left = any(n is scan for n in join.children[0].walk())
    if getattr(join, "correlation", ()):  # a left join of the input with the rows it aggregates
        pairs = tuple(join.correlation) if ours_left else ()
        return JoinSides("left", ours_left, pairs, None, 1 if ours_left else 0,
                         join.float_keys)
    as_join = getattr(join, "as_join", join)
    on = tuple(join.on)
    pairs = on if ours_left else tuple((rk, lk) for lk, rk in on)
    return JoinSides(as_join.how, ours_left, pairs, getattr(as_join, "condition", None),
                     1 if ours_left else 0, join.float_keys)


def other_input(join, sides: JoinSides):
    """The join's other input, as the row's keys restrict it and its partners are found in:
    at a correlated scalar subquery seen from its input, the rows its aggregate runs over
    (those whose correlated columns equal the row's are the ones its value is over)."""
    if getattr(join, "correlation", ()) and sides.ours_left:
        return correlated_aggregate(join.subquery).input
    return join.children[sides.other_index]


def key_text(sides: JoinSides, row: pa.Table) -> str:
    """`o.oid = 4 and o.x = 'a'`: the other side's keys with the row's values."""
    return " and ".join(f"{visible(theirs)} = {value_text(row.column(mine)[0])}"
                        for mine, theirs in sides.pairs)


def row_condition(sides: JoinSides, row: pa.Table) -> Expression | None:
    """The join's condition with our columns replaced by the row's values: a predicate over
    the other side alone."""
    if sides.condition is None:
        return None
    values = {name: literal(row.column(name)[0]) for name in row.column_names}
    return substitute_columns(sides.condition, values)


def partner_rows(sides: JoinSides, row: pa.Table, other: pa.Table,
                 both_names: list[str]) -> pa.Table:
    """The rows of `other` (the other input's output) the join pairs with the first row
    of `row` (our input's output); `both_names` are the join's input columns, left then
    right, as its condition reads them."""
    if row.num_rows == 0:
        return other.slice(0, 0)
    mask = None
    for mine, theirs in sides.pairs:
        value = row.column(mine)[0]
        if not value.is_valid:
            return other.slice(0, 0)  # a null key joins with nothing
        column = other.column(theirs)
        if sides.float_keys == NORMALIZED and pa.types.is_floating(value.type) and \
                pc.is_nan(value).as_py():
            eq = pc.fill_null(pc.is_nan(column), False)  # every NaN is one key
        else:
            eq = pc.fill_null(pc.equal(column, value), False)
        mask = eq if mask is None else pc.and_(mask, eq)
    found = other if mask is None else other.filter(mask)
    if sides.condition is None or found.num_rows == 0:
        return found
    zeros = pa.array(np.zeros(found.num_rows, dtype=np.int64))
    ours = row.slice(0, 1).take(zeros)
    columns = [ours.column(n) if n in ours.column_names else found.column(n)
               for n in both_names]
    values = evaluate(sides.condition, pa.table(columns, names=both_names))
    if isinstance(values, pa.Scalar):
        return found if values.is_valid and values.as_py() else found.slice(0, 0)
    return found.filter(pc.fill_null(values, False))


def reduction_predicate(sides: JoinSides, rows: pa.Table) -> Expression | None:
    """`theirs in (the values of our key in rows)` for every key pair: what an other-side
    row needs to be a partner of any of `rows`; None for a join without keys."""
    terms = []
    for mine, theirs in sides.pairs:
        values = pc.unique(rows.column(mine).combine_chunks().drop_null())
        nan = None
        if pa.types.is_floating(values.type):  # is_in tells NaNs and zeros apart by bits
            nan = pc.any(pc.is_nan(values)).as_py()
            values = values.filter(pc.invert(pc.is_nan(values)))
            values = pc.unique(pa.concat_arrays(
                [values, pc.negate(values.filter(pc.equal(values, 0)))]))
        term = call("is_in", [Parameter(FieldRef(theirs))],
                    options=pc.SetLookupOptions(value_set=values))
        if nan and sides.float_keys == NORMALIZED:  # every NaN is one key
            term = or_(term, call("is_nan", [Parameter(FieldRef(theirs))]))
        terms.append(term)
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else and_(*terms)
