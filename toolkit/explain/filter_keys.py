"""The keys a comma join pairs rows by: equalities in a filter above a join without keys.

`from orders, lineitem where o_orderkey = l_orderkey and ...` plans as a cross join
under a filter (Spark's analyzed plan imports so). A row of one side reaches the
filter paired with every row of the other side, and the filter drops each pair whose
`o_orderkey = l_orderkey` is not true; so, as at an inner join by those keys, only
the other side's rows with the row's keys can take the row further. A journey reads
only those (a whole other side may be millions of rows, in Spark), and a row without
such a partner is dropped by that filter for want of one.

The equalities are read from the first filter on the row's path above the join that
holds any, going up through filters, inner or cross joins and scalar subqueries seen
from their input only (they pass every column and keep rows apart); a term is taken
when it compares a plain column of the row's side with one of the other side, of one
type and not floating point (a filter's float equality and a join's differ on NaN and
-0.0). An equality every branch of an `or` holds counts too, as Spark's optimizer
takes it out of the `or`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from ..functions.facts import conjuncts
from ..model.expression import Expression
from ..plan.columns import column_of
from ..plan.float_keys import IEEE
from .join_partners import JoinSides

__all__ = ["FilterKeys", "filter_keys", "implied_keys"]


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
            found = [_pair(term, ours, theirs) for term in _true_terms(node.predicate)]
            found = [f for f in found if f is not None]
            if found:
                pairs = tuple(pair for pair, _ in found)
                keys = JoinSides("inner", sides.ours_left, pairs, None, sides.other_index, IEEE)
                return FilterKeys(keys, tuple(term for _, term in found), index)
        elif kind == "ScalarSubquery" and node.children[0] is path[index - 1]:
            continue  # each input row once, with its columns, beside the subquery's value
        elif kind not in ("Join", "ConditionJoin") or \
                getattr(node, "how", None) not in ("inner", "cross"):
            return None
    return None


def implied_keys(other, predicate: Expression) -> tuple[dict, tuple[Expression, ...]]:
    """The keys the filter's `predicate` gives the joins without keys inside `other` (the
    other input of a comma join it keys), by join id: (left column, right column) pairs;
    and the terms they come from. Only joins reached from `other`'s top through inner and
    cross joins, so every pair they make meets the filter (`from customer, orders,
    lineitem`: customer and orders paired by `c_custkey = o_custkey`)."""
    keys, terms, stack = {}, [], [other]
    while stack:
        node = stack.pop()
        if type(node).__name__ not in ("Join", "ConditionJoin") or \
                getattr(node, "how", None) not in ("inner", "cross"):
            continue
        if not node.on:
            left, right = (_plain_columns(c) for c in node.children)
            found = [f for f in (_pair(t, left, right) for t in _true_terms(predicate)) if f]
            if found:
                keys[id(node)] = tuple(pair for pair, _ in found)
                terms.extend(term for _, term in found)
        stack.extend(node.children)
    return keys, tuple(terms)


def _true_terms(predicate: Expression) -> list[Expression]:
    """The terms true for every row the filter passes: its conjuncts, and the terms each
    branch of one of its `or`s holds (TPC-H's Q19 repeats its join key in all three)."""
    out = []
    for term in conjuncts(predicate, plain_and=True):
        out.append(term)
        branches, stack = [], [term]
        while stack:
            node = stack.pop()
            if node.is_call and node.name in ("or_kleene", "or") and node.args:
                stack.extend(node.args)
            else:
                branches.append(conjuncts(node, plain_and=True))
        if len(branches) > 1:
            out.extend(t for t in branches[0]
                       if all(any(t.equals(u) for u in b) for b in branches[1:]))
    return out


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
