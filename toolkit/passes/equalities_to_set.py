"""`x = 'A' or x = 'B'` as one set lookup: `is_in(x, ['A', 'B'])`, null where x is null;
`x <> 'A' and x <> 'B'` as its negation, `invert(is_in(x, ['A', 'B']))`.

Equalities of one pure string or binary operand against non-null literals, anywhere
in an `or` / `or_kleene` chain, become one `is_in` whose null matching behaviour is
EMIT_NULL: each equality is null exactly where x is null and so is the lookup, and
where x is valid the lookup is true exactly where one equality is. Or-chains are
associative and commutative (Kleene or not), so the lookup takes the place of the
first equality and the others go. The selective kernel then reads each row's length
and bytes once for the whole set instead of once per equality. Other types are
left alone: `is_in` matches NaN to NaN where `equal` does not.

The same holds for inequalities in an `and` / `and_kleene` chain: each is null exactly
where x is null, and where x is valid all are true exactly where x is none of the
values, which is the inverted lookup (null stays null under `invert`).
"""

from __future__ import annotations

import pyarrow as pa

from ..functions.facts import is_pure
from ..model.expression import Call, Expression
from ..rewrite import Transformed
from .chain import ExprKey, flatten_chain
from .rebind import bind_new_call, with_args_rebound
from .set_lookup import EMIT_NULL, set_lookup_options

__all__ = ["SET_CHAINS", "equalities_to_set_lookup"]

# the chains whose comparisons of one operand merge into a lookup, and those comparisons
_COMPARISON_OF = {"or": "equal", "or_kleene": "equal", "and": "not_equal",
                  "and_kleene": "not_equal"}
SET_CHAINS = frozenset(_COMPARISON_OF)
_LOOKUP_TYPES = (pa.string(), pa.large_string(), pa.binary(), pa.large_binary())


def _equality(operand: Expression, comparison: str = "equal") -> tuple[Expression, pa.Scalar] | None:
    """(x, literal) of `equal(x, literal)` or `equal(literal, x)` (or of `comparison`)
    that can join a lookup."""
    if not operand.is_call or operand.name != comparison or len(operand.args) != 2:
        return None
    left, right = operand.args
    x, lit = (left, right) if right.is_literal else (right, left)
    if not lit.is_literal or x.is_literal or not lit.is_scalar:
        return None
    value = lit.value
    if not value.is_valid or value.type not in _LOOKUP_TYPES or x.type != value.type:
        return None
    return (x, value) if is_pure(x) else None


def equalities_to_set_lookup(call: Call, done: dict[int, Expression]) -> Transformed | None:
    """Merge the equalities of one operand in an or-chain into one `is_in`, or its
    inequalities in an and-chain into one inverted `is_in` (pre-order; `done` skips the
    chain's inner calls)."""
    if not call.is_call or call.name not in SET_CHAINS:
        return None
    comparison = _COMPARISON_OF[call.name]
    chain = flatten_chain(call)
    for inner in chain.exprs:
        done[id(inner)] = inner
    groups: dict[ExprKey, list[int]] = {}
    for i, operand in enumerate(chain.fringe):
        found = _equality(operand, comparison)
        if found is not None:
            groups.setdefault(ExprKey(found[0]), []).append(i)
    merged = {key: at for key, at in groups.items() if len(at) > 1}
    if not merged:
        return None
    replaced: dict[int, Expression | None] = {}
    described = []
    for at in merged.values():
        pairs = [_equality(chain.fringe[i], comparison) for i in at]
        x = pairs[0][0]
        values = pa.array([p[1].as_py() for p in pairs], type=x.type)
        values = values.unique()
        lookup = bind_new_call("is_in", [x], set_lookup_options(values, EMIT_NULL))
        replaced[at[0]] = lookup if comparison == "equal" else bind_new_call("invert", [lookup])
        replaced.update({i: None for i in at[1:]})
        described.append(f"{len(at)} {'in' if comparison != 'equal' else ''}equalities of {x}")
    kept = [replaced.get(i, operand) for i, operand in enumerate(chain.fringe)]
    kept = [k for k in kept if k is not None]
    folded = kept[0]
    for operand in kept[1:]:
        folded = with_args_rebound(call, (folded, operand))
        done[id(folded)] = folded
    if comparison == "equal":
        return Transformed.fired(
            folded, "identities/equalities-to-set-lookup",
            f"x = a {call.name.replace('_kleene', '')} x = b is is_in(x, [a, b]) (null where x "
            f"is null): {', '.join(described)} looked up at once")
    return Transformed.fired(
        folded, "identities/inequalities-to-set-lookup",
        f"x <> a {call.name.replace('_kleene', '')} x <> b is not is_in(x, [a, b]) (null where "
        f"x is null): {', '.join(described)} looked up at once")
