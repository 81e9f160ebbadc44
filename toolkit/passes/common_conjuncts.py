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

Evaluation takes them out too (`take_out_common_conjuncts`, the pass
`common_conjuncts` that `execution/prepare.py` runs on a tree holding an `or` of
`and`s): the shared terms then run once per row instead of once per branch, and a
lazy `and` runs the branches only on the rows they let through (TPC-H Q19 as
written: half the time).
"""

from __future__ import annotations

from ..functions.facts import can_fail, is_pure
from ..model.expression import Call, Expression
from ..rewrite import Transformed
from .chain import ExprKey, flatten_chain
from .framework import optimization_pass, require_bound, sweep_pre
from .rebind import with_args_rebound

__all__ = ["CONJUNCTION_OF", "common_conjuncts", "has_or_of_ands", "take_out_common_conjuncts",
           "taken_out_of_ors"]

CONJUNCTION_OF = {"or_kleene": "and_kleene", "or": "and"}


def _folded(template: Call, operands: list[Expression]) -> Expression:
    out = operands[0]
    for operand in operands[1:]:
        out = with_args_rebound(template, (out, operand))
    return out


def common_conjuncts(call: Call, done: dict[int, Expression], *,
                     absorb_failing: bool = True) -> Transformed | None:
    """`call` (an or chain) with the conjuncts all its branches share taken out, or None.

    `absorb_failing=False`: no absorption that drops a term that could fail (evaluation's
    eager mode runs every term, and such a term's error is one it must still report)."""
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
        if not absorb_failing and any(can_fail(t) for rest in rests for t in rest):
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


def has_or_of_ands(node: Expression) -> bool:
    """Whether `node` is an `or` with an `and` argument: where the rule may fire."""
    conjunction = CONJUNCTION_OF.get(node.name) if node.is_call else None
    return conjunction is not None and any(
        a.is_call and a.name == conjunction for a in node.args)


def taken_out_of_ors(expr: Expression, **ctx) -> Expression:
    """`expr` with the terms every branch of each `or` shares taken out; the very same
    object when no `or` has any. A term that could fail is never dropped: the tree
    raises what it raised as written, in either mode."""
    done: dict[int, Expression] = {}

    def rule(node: Expression) -> Transformed | None:
        if not node.is_call or node.name not in CONJUNCTION_OF or id(node) in done:
            return None
        return common_conjuncts(node, done, absorb_failing=False)

    return sweep_pre(expr, rule)


@optimization_pass("common_conjuncts")
def take_out_common_conjuncts(expr: Expression, **ctx) -> Expression:
    """The pass of `taken_out_of_ors` (evaluation runs it on a tree holding an `or` of
    `and`s; `simplify_identities` holds the same rule among its others)."""
    require_bound(expr, "Cannot take common conjuncts out of an unbound expression.")
    return taken_out_of_ors(expr)
