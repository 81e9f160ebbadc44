"""Terms every branch of an `or` shares, taken out of it: `(a and b) or (a and c)` is
`a and (b or c)`.

The identity holds in Kleene logic (and_kleene / or_kleene form a distributive
lattice over true, null and false) and in the null-propagating `and` / `or`, where
both sides are null exactly when an operand read is null; so every row keeps its
value, nulls included. In Kleene logic a branch that is nothing but the shared terms
absorbs the rest: `a or (a and b)` is `a` (not in the null-propagating one, where a null
`b` makes the whole null).

Why it matters: a join written as a filter over a cross product (TPC-H Q19) puts its
key equality inside each branch of an `or`; taken out, it is a conjunct the plan
rules can turn into join keys. Only terms that are pure and cannot fail are taken
out, since a shared term is then evaluated on every row: one that could fail (a
division) might fail on a row an earlier, false term used to spare.
"""

from __future__ import annotations

from ..functions.facts import can_fail, is_pure
from ..model.expression import Call, Expression
from ..rewrite import Transformed
from .chain import ExprKey, flatten_chain
from .rebind import with_args_rebound

__all__ = ["CONJUNCTION_OF", "common_conjuncts"]

CONJUNCTION_OF = {"or_kleene": "and_kleene", "or": "and"}


def _folded(template: Call, operands: list[Expression]) -> Expression:
    out = operands[0]
    for operand in operands[1:]:
        out = with_args_rebound(template, (out, operand))
    return out


def common_conjuncts(call: Call, done: dict[int, Expression]) -> Transformed | None:
    """`call` (an or chain) with the conjuncts all its branches share taken out, or None."""
    conjunction = CONJUNCTION_OF.get(call.name)
    if conjunction is None:
        return None
    branches = flatten_chain(call).fringe
    terms: list[list[Expression]] = []
    template = None
    for branch in branches:
        if branch.is_call and branch.name == conjunction:
            template = branch if template is None else template
            terms.append(flatten_chain(branch).fringe)
        else:
            terms.append([branch])
    others = [{ExprKey(t) for t in branch} for branch in terms[1:]]
    shared: list[Expression] = []
    shared_keys: set[ExprKey] = set()
    for term in terms[0]:
        key = ExprKey(term)
        if (key not in shared_keys and is_pure(term) and not can_fail(term)
                and all(key in keys for keys in others)):
            shared.append(term)
            shared_keys.add(key)
    if not shared or template is None:
        return None
    rests = [[t for t in branch if ExprKey(t) not in shared_keys] for branch in terms]
    if any(not rest for rest in rests):  # a branch of only shared terms absorbs the others,
        if call.name != "or_kleene":     # in Kleene logic: `or(x, and(x, null))` is null
            return None
        out = _folded(template, shared)
        why = (f"a {call.name.replace('_kleene', '')} (a and b) is a: a branch is exactly the "
               f"{len(shared)} shared term{'s' if len(shared) > 1 else ''}")
    else:
        either = _folded(call, [_folded(template, rest) for rest in rests])
        out = _folded(template, [*shared, either])
        why = (f"(a and b) or (a and c) is a and (b or c): {len(shared)} term"
               f"{'s' if len(shared) > 1 else ''} every branch shares taken out of the "
               f"{len(branches)}-branch {call.name}")
    done[id(out)] = out
    return Transformed.fired(out, "identities/common-conjunct", why)
