"""The keys a comma join pairs rows by: equalities in a filter above a join without keys.

`from orders, lineitem where o_orderkey = l_orderkey and ...` plans as a cross join
under a filter (Spark's analyzed plan imports so). A row of one side reaches the
filter paired with every row of the other side, and the filter drops each pair whose
`o_orderkey = l_orderkey` is not true; so, as at an inner join by those keys, only
the other side's rows with the row's keys can take the row further. A journey reads
only those (a whole other side may be millions of rows, in Spark), and a row without
such a partner is dropped by that filter for want of one.

The equalities are read from the first filter on the row's path above the join that
holds any, going up through filters and inner or cross joins only (they pass every
column and keep rows apart); a term is taken when it compares a plain column of the
row's side with one of the other side, of one type and not floating point (a filter's
float equality and a join's differ on NaN and -0.0).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from ..functions.facts import conjuncts
from ..model.expression import Expression
from ..plan.columns import column_of
from ..plan.float_keys import IEEE
from .join_partners import JoinSides

__all__ = ["FilterKeys", "filter_keys"]


@dataclass(frozen=True)
class FilterKeys:
    """The equalities of the filter at `path[filter_index]` pairing the join's sides."""

    sides: JoinSides  # the join seen as an inner join by those keys, from the row's side
    terms: tuple[Expression, ...]  # the filter's equality terms, as written
    filter_index: int  # the filter's index in the row's path (scan first)

    @property
    def terms_text(self) -> str:
        return " and ".join(str(t) for t in self.terms)


def filter_keys(path: list, join_index: int, sides: JoinSides) -> FilterKeys | None:
    """The key equalities of the first filter above `path[join_index]` (a join without
    keys, seen from the row's side as `sides`), or None when there are none."""
    join = path[join_index]
    if sides.pairs or sides.how not in ("inner", "cross"):
        return None
    ours = _plain_columns(join.children[1 - sides.other_index])
    theirs = _plain_columns(join.children[sides.other_index])
    for index in range(join_index + 1, len(path)):
        node = path[index]
        kind = type(node).__name__
        if kind == "Filter":
            found = [_pair(term, ours, theirs) for term in
                     conjuncts(node.predicate, plain_and=True)]
            found = [f for f in found if f is not None]
            if found:
                pairs = tuple(pair for pair, _ in found)
                keys = JoinSides("inner", sides.ours_left, pairs, None, sides.other_index, IEEE)
                return FilterKeys(keys, tuple(term for _, term in found), index)
        elif kind not in ("Join", "ConditionJoin") or \
                getattr(node, "how", None) not in ("inner", "cross"):
            return None
    return None


def _plain_columns(node) -> dict[str, pa.DataType]:
    """The node's columns by qualified name, with their types, those of a key's kind."""
    return {field.qualified_name: field.type for field in node.schema
            if not pa.types.is_floating(field.type) and not pa.types.is_nested(field.type)}


def _pair(term: Expression, ours: dict, theirs: dict):
    """((our column, their column), term) when `term` is `ours = theirs` of one type."""
    if not (term.is_call and term.name == "equal" and len(term.args) == 2):
        return None
    names = []
    for arg in term.args:
        if not arg.is_field or len(arg.ref.leaves()) != 1:
            return None
        names.append(column_of(arg.ref))
    a, b = names
    for mine, other in ((a, b), (b, a)):
        if mine in ours and other in theirs and ours[mine] == theirs[other]:
            return (mine, other), term
    return None
