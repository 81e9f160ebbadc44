"""A filter over cross joins becomes equi-joins (DataFusion's EliminateCrossJoin and
ExtractEquijoinPredicate).

`FROM a, b, c WHERE a.k = b.k AND b.j = c.j AND ...` is a filter over cross
joins: every pair of rows, then the filter. The rule flattens the tree of inner
and cross joins under the filter into its inputs and its conditions (the
filter's conjuncts, the joins' keys and residual conditions), then joins the
inputs again in their order, each time choosing the first input that some
equality of plain columns (`a.k = b.k`, same type) connects with those already
joined, on every such equality; an input nothing connects is cross-joined.
An OR whose every branch requires the same equality (`(a.k = b.k AND ...) OR
(a.k = b.k AND ...)`) implies it, so it may be a key too (the OR stays). Spark's
equality of floats as the Spark import reads it, `a.x = b.y OR (is_nan(a.x) AND
is_nan(b.y))`, is a key of a join that pairs NaN with NaN (float_keys normalized), and
such a join's float keys flatten back into that form.
Whatever is not a join key stays in a filter above (PushDownFilter then moves
what reads one input down to it). The columns come out in their original
order (a projection restores it when the joins were reordered). Every row the
original keeps is kept: an equality used as a key is true on exactly the pairs
the join pairs.
"""

from __future__ import annotations

from ...functions.facts import conjuncts, is_pure
from ...model.builders import and_, field
from ..float_keys import IEEE, NORMALIZED, has_float_key, nan_equal, nan_equality
from ..logical_plan import ConditionJoin, Filter, Join, Projection
from .base import Rule

__all__ = ["EliminateCrossJoin"]


def _inner_like(node) -> bool:
    return isinstance(node, (Join, ConditionJoin)) and node.how in ("inner", "cross")


def _keyless(node) -> bool:
    return _inner_like(node) and not node.on


def _flatten(join) -> tuple[list, list]:
    """(the inputs of a tree of inner and cross joins, left to right; its conditions)."""
    inputs, conditions, stack = [], [], [join]
    while stack:
        node = stack.pop()
        if not _inner_like(node):
            inputs.append(node)
            continue
        conditions += [_key_condition(node, lk, rk) for lk, rk in node.on]
        condition = getattr(node, "condition", None)
        if condition is not None:
            conditions += conjuncts(condition)
        stack.extend(reversed(node.children))
    return inputs, conditions


def _equal(a: str, b: str):
    return field(a) == field(b)


def _key_condition(join, lk: str, rk: str):
    """A key pair as the condition it means: `l == r`, or for a float key of a join that
    pairs NaN with NaN (float_keys normalized), `l == r OR (is_nan(l) AND is_nan(r))`."""
    if join.float_keys == IEEE or not has_float_key([join.left.schema.field(lk).type]):
        return _equal(lk, rk)
    return nan_equal(field(lk), field(rk))


def _disjuncts(expr) -> list:
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        if node.is_call and node.name == "or_kleene" and len(node.args) == 2:
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


def _shared_equalities(expr) -> list[tuple[str, str]]:
    """The equalities of columns every branch of an OR requires (TPC-H Q19 repeats
    `p_partkey = l_partkey` in each branch): the OR implies them, so they may be keys."""
    branches = _disjuncts(expr)
    if len(branches) < 2:
        return []
    shared = None
    for branch in branches:
        pairs = {frozenset(p) for p in map(_column_pair, conjuncts(branch)) if p is not None}
        shared = pairs if shared is None else shared & pairs
    return [tuple(sorted(p)) for p in shared or () if len(p) == 2]


def _column_pair(expr) -> tuple[str, str] | None:
    """The two columns an equality of plain columns compares, else None."""
    if not (expr.is_call and expr.name == "equal" and len(expr.args) == 2):
        return None
    a, b = expr.args
    if not (a.is_field and b.is_field and len(a.ref.leaves()) == 1
            and len(b.ref.leaves()) == 1):
        return None
    return a.ref.leaves()[0].name, b.ref.leaves()[0].name


class EliminateCrossJoin(Rule):
    name = "eliminate_cross_join"
    order = "pre"

    def rewrite(self, node, ctx):
        if not (isinstance(node, Filter) and _inner_like(node.input)
                and is_pure(node.predicate)):
            return None
        join = node.input
        if not any(_keyless(n) for n in _join_nodes(join)):
            return None
        inputs, conditions = _flatten(join)
        conditions = conditions + conjuncts(node.predicate)
        implied = [_equal(a, b) for c in conditions for a, b in _shared_equalities(c)]
        owner = {}
        for i, inp in enumerate(inputs):
            for f in inp.schema:
                owner[f.qualified_name] = i
        types = {f.qualified_name: f.type for inp in inputs for f in inp.schema}
        keys = {}  # index of an equality usable as a key -> its two columns
        modes = {}  # index of a float key -> how it compares floats
        rows_kept = len(conditions)  # conditions past this one are implied by others
        conditions = conditions + implied
        for i, c in enumerate(conditions):
            nan_equal_pair = nan_equality(c)
            pair = _column_pair(c if nan_equal_pair is None else nan_equal_pair)
            if (pair is not None and pair[0] in owner and pair[1] in owner
                    and owner[pair[0]] != owner[pair[1]] and types[pair[0]] == types[pair[1]]):
                keys[i] = pair
                if has_float_key([types[pair[0]]]):
                    modes[i] = IEEE if nan_equal_pair is None else NORMALIZED
        plan, joined, used, steps = inputs[0], {0}, set(), []
        while len(joined) < len(inputs):
            chosen, pairs = None, []
            for j in range(len(inputs)):
                if j in joined:
                    continue
                pairs = [(i, a, b) if owner[a] in joined else (i, b, a)
                         for i, (a, b) in keys.items() if i not in used
                         and {owner[a], owner[b]} & joined and j in {owner[a], owner[b]}
                         and {owner[a], owner[b]} <= joined | {j}]
                if pairs:
                    chosen = j
                    break
            if chosen is None:
                chosen = min(set(range(len(inputs))) - joined)
                plan = ConditionJoin(plan, inputs[chosen], [], "cross")
                steps.append(f"cross join with {_name(inputs[chosen])} (no equality connects it)")
            else:
                # one join compares all its float keys one way: Spark's NaN-equal keys
                # win, an IEEE float equality beside them stays a condition
                mode = NORMALIZED if any(modes.get(i) == NORMALIZED for i, _, _ in pairs) \
                    else IEEE
                pairs = [p for p in pairs if modes.get(p[0], mode) == mode]
                plan = Join(plan, inputs[chosen], [(a, b) for _, a, b in pairs],
                            float_keys=mode)
                used |= {i for i, _, _ in pairs}
                steps.append(f"join {_name(inputs[chosen])} on "
                             + ", ".join(f"{a} = {b}" for _, a, b in pairs)
                             + (" (NaN equal to NaN)" if mode == NORMALIZED else ""))
            joined.add(chosen)
        if not used:  # no equality connects any two inputs: the filter stays over the cross join
            return None
        rest = [c for i, c in enumerate(conditions) if i not in used and i < rows_kept]
        if rest:
            plan = Filter(plan, and_(rest))
        if plan.schema.qualified_names != join.schema.qualified_names:
            plan = Projection(plan, [field(f.qualified_name) for f in join.schema],
                              [f.name for f in join.schema], [f.relation for f in join.schema])
        return self.fired(plan, f"a filter over a cross join of {len(inputs)} inputs became "
                                f"equi-joins: start from {_name(inputs[0])}, "
                                + "; ".join(steps))


def _join_nodes(join):
    stack = [join]
    while stack:
        node = stack.pop()
        if _inner_like(node):
            yield node
            stack.extend(node.children)


def _name(plan) -> str:
    relations = sorted({f.relation for f in plan.schema if f.relation is not None})
    return ", ".join(relations) if relations else plan.label().split(":")[0]
