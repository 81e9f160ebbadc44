"""When a branch is cheaper to evaluate densely, and when that is safe.

A branch selected on most rows of its parent's domain can skip the gathers: it
is evaluated over the parent's rows and only its result is compacted (`take`),
or merged directly with the eager kernel when every branch went dense. That is
only allowed when no row outside the selection can raise:

- SAFE: no function in the subtree can fail; any row may be computed.
- MASKED: something can fail (divide, `_checked`, cast), but every call is
  null-intersecting and there is no special form, so making the unselected
  rows of every column null (a bitmap AND, no data copy) means no kernel sees
  them; the selection-aware execution of failing kernels.
- NEVER: anything else (a failing kernel under is_null, coalesce, ...).

Thresholds, measured with `benchmarks/bench_special_forms.py --threshold`
(2M rows, one branch forced compact or forced dense, 2 CPUs shared with other
jobs, so +-20% noise): a masked failing branch (`y / x`) breaks even at 80% and
wins at 95% (0.62x); a costly string branch (`utf8_upper(s)`) wins from 60%
(0.72x at 80%), because gathering strings costs about as much as the kernel.
DENSE_THRESHOLD = 0.8 is the compromise. Two refinements:

- cheap subtrees (fixed-width values only, nothing that can fail, at most
  CHEAP_MAX_CALLS calls, none of them a transcendental function: `ln`, `exp`,
  `sin`, `power` cost 10-50 times a `multiply` per row, so on a 1% branch
  computing every row is the waste laziness exists to avoid) always run densely on large domains: one SIMD pass
  over every row is cheaper than gather + kernel + scatter at any density, and
  a special form whose children are all cheap just calls Arrow's own kernel;
- the right side of and/or goes dense from KLEENE_DENSE_THRESHOLD = 0.2
  (DataFusion's AND pre-selection figure): its merge is a free bitmap kernel
  instead of a scatter.

Whether a call can fail is its bound kernel's word for its types
(`call_can_fail`: a float division cannot, an integer one can; int32 -> double
cannot, int64 -> double can, past 2**53). One refinement comes from the data:
a subtree whose only fallible calls are safe integer casts of columns (the
implicit int64 -> double of `b / a`) cannot fail on a batch whose columns'
values all lie in the casts' ranges, which one `min_max` per column settles
(`cast_range_check`, the same check the cast itself makes before running
unchecked); such a subtree is then treated as SAFE for that batch, and its
casts run unchecked without checking again (`BatchContext.proven_casts`).

The cost rule (`break_even`): a branch whose value is kept whole for the merge
and that may run densely (SAFE, or MASKED) runs on every row once its share of
the domain passes its break-even, where computing the unselected rows costs
less than selecting (indices, gathers, putting the values back): a costly
branch breaks even near 40%, a string branch near 3%, a cheap one at once.

Single branches on domains under MIN_DENSE_ROWS stay compact. A special form
whose children are all cheap and cannot fail runs them densely on any domain:
on a small batch the selections' fixed cost is all laziness would add. The
tracer shows each dense node's rows as the rows it ran on (the whole domain),
its used rows as the rows its value was used for, and why it ran densely.
"""

from __future__ import annotations

import enum

import pyarrow as pa

from ..functions.cast_range_check import checked_range, unchecked_options, values_in_range
from ..functions.function import FunctionKind, NullHandling, call_can_fail

__all__ = [
    "CHEAP_MAX_CALLS",
    "COSTLY_FUNCTIONS",
    "DENSE_THRESHOLD",
    "KLEENE_DENSE_THRESHOLD",
    "MIN_DENSE_ROWS",
    "Density",
    "all_cheap_here",
    "break_even",
    "could_be_dense",
    "density_here",
    "density_kinds",
    "is_cheap",
    "is_cheap_here",
    "use_dense",
]

IN_RANGE = "cannot fail here: every cast's values are in range"

DENSE_THRESHOLD = 0.8
KLEENE_DENSE_THRESHOLD = 0.2
CHEAP_MAX_CALLS = 16
PROOF_MAX_CALLS = 64  # larger subtrees are not searched for casts to check (the walk is linear)
MIN_DENSE_ROWS = 16_384


class Density(enum.IntEnum):
    NEVER = 0
    MASKED = 1
    SAFE = 2


def _intersecting(call) -> bool:
    fn = call.function
    return fn.null_handling is NullHandling.INTERSECTION or call.name == "cast"


COSTLY_FUNCTIONS = frozenset({
    "ln", "log10", "log2", "log1p", "logb", "exp", "expm1", "power", "sin", "cos", "tan",
    "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "cbrt", "round", "round_to_multiple", "round_binary",
})


def _costly(call) -> bool:
    return call.name.removesuffix("_checked") in COSTLY_FUNCTIONS


CALL_WORK = 1  # a fixed-width arithmetic or comparison kernel, per row (~0.2 ns on 256K rows)
COSTLY_WORK = 20  # `ln` 3.6 ns, `exp` 4.1 ns per row: about 20 `multiply`s
VARIABLE_WIDTH_WORK = 40  # a kernel writing strings or lists (`utf8_upper`: 10 ns per row)
LAZY_ROW_WORK = 32  # selecting: mask -> indices, gather, put back; per domain row at 50%
VARIABLE_WIDTH_LAZY = 4  # gathering and merging strings costs about four times as much


def _call_work(call) -> int:
    if _costly(call):
        return COSTLY_WORK
    return CALL_WORK if _fixed_width(call.type) else VARIABLE_WIDTH_WORK


def break_even(root, memo: dict) -> float:
    """The share of its domain above which a branch that may run densely (it cannot fail,
    or its unselected rows are made null) is cheaper computed on every row, its value
    kept whole for the merge, than on its selected rows only (at most DENSE_THRESHOLD).

    Computing every row costs its work per row W on the (1 - s) unselected rows too;
    selecting costs LAZY_ROW_WORK per domain row at 50% and above (building indices,
    gathering, putting the values back), less on sparse selections: O * min(1, 2s).
    Dense pays when W (1 - s) <= O min(1, 2s). Measured per 256K rows: the costly branch
    `ln(b + 1) * sqrt(b) + exp(b / 100)` runs in 3.1 ms dense; at 50% selected 1.4 ms
    plus 1.1 (indices), 0.1 (gather) and 1.2 (put back), so dense wins there; at 10%
    0.5 ms plus about 1, so selecting wins.
    """
    facts = _facts(root, memo)
    work = facts[6]
    lazy = LAZY_ROW_WORK * (1 if facts[3] else VARIABLE_WIDTH_LAZY)
    if work <= 0:
        return 0.0
    share = work / (work + 2 * lazy) if work <= 2 * lazy else 1 - lazy / work
    return min(share, DENSE_THRESHOLD)


def _facts(root, memo: dict) -> tuple:
    """Per node: (can fail somewhere, has a special form, every call null-intersecting,
    every value fixed-width, number of calls, has a costly call, work per row in
    CALL_WORK units). `memo` (id(node) -> facts) is shared across calls, so asking for
    every branch of a deeply nested tree stays linear."""
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in memo:
            continue
        if not node.is_call:
            memo[id(node)] = (False, False, True, _fixed_width(node.type), 0, False, 0)
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if id(a) not in memo)
            continue
        fn = node.function
        below = [memo[id(a)] for a in node.args]
        fails = call_can_fail(node) or any(b[0] for b in below)
        special = fn is None or fn.kind is FunctionKind.SPECIAL_FORM or any(b[1] for b in below)
        intersecting = fn is not None and _intersecting(node) and all(b[2] for b in below)
        # a struct made of fixed-width columns (case_when's conditions) is as cheap as they are
        fixed = (_fixed_width(node.type) or node.name == "make_struct") \
            and all(b[3] for b in below)
        calls = 1 + sum(b[4] for b in below)
        costly = _costly(node) or any(b[5] for b in below)
        work = _call_work(node) + sum(b[6] for b in below)
        memo[id(node)] = (fails, special, intersecting, fixed, calls, costly, work)
    return memo[id(root)]


def _fixed_width(t) -> bool:
    return t is not None and (pa.types.is_primitive(t) or pa.types.is_decimal(t))


def density_kinds(root, memo: dict) -> Density:
    """The Density of `root` (SAFE, MASKED or NEVER)."""
    fails, special, intersecting = _facts(root, memo)[:3]
    if not fails:
        return Density.SAFE
    if not special and intersecting:
        return Density.MASKED
    return Density.NEVER


def is_cheap(root, memo: dict) -> bool:
    """Few calls over fixed-width values only, none that can fail: computing every row
    costs less than the gathers and the scatter a compact evaluation needs, at any
    density (special forms inside stay lazy, with cheap children of their own)."""
    fails, _, _, fixed, calls, costly = _facts(root, memo)[:6]
    return fixed and not fails and not costly and calls <= CHEAP_MAX_CALLS


def density_here(root, ctx) -> Density:
    """`density_kinds`, with the batch's data as evidence: SAFE when the only calls that
    can fail are range-checked casts of columns whose values are in range."""
    kind = density_kinds(root, ctx.density_memo)
    if kind is not Density.SAFE and _facts(root, ctx.density_memo)[4] <= PROOF_MAX_CALLS \
            and casts_in_range(root, ctx):
        return Density.SAFE
    return kind


def is_cheap_here(root, ctx) -> bool:
    """`is_cheap`, with the batch's data as evidence (see `density_here`)."""
    fails, _, _, fixed, calls, costly = _facts(root, ctx.density_memo)[:6]
    if not fixed or costly or calls > CHEAP_MAX_CALLS:
        return False
    return not fails or casts_in_range(root, ctx)


def all_cheap_here(form, children, ctx, on_trust: bool = False) -> bool:
    """`is_cheap_here` of every child of one form, what does not depend on the batch
    answered once per tree: a 20-case case_when asked 41 children on every call,
    about 40 us on a 1,000-row batch whose kernels take 270.

    `on_trust`: children whose casts would need the batch's proof count as cheap
    without it, and `ctx.took_trust` records that a failure may be the price
    (the caller evaluates the batch again without trust if anything fails).
    """
    memo = ctx.density_memo
    key = ("all cheap", id(form))
    to_prove = memo.get(key)
    if to_prove is None:
        to_prove = memo[key] = _cheap_but_for_casts(children, memo)
    if to_prove is False:
        return False
    if on_trust and to_prove:
        ctx.took_trust = True
        return True
    return all(casts_in_range(child, ctx) for child in to_prove)


def _cheap_but_for_casts(children, memo: dict):
    """False when some child can never be cheap; else the children that are cheap only on
    a batch whose cast values are in range (the others are cheap on any batch)."""
    to_prove = []
    for child in children:
        fails, _, _, fixed, calls, costly = _facts(child, memo)[:6]
        if not fixed or costly or calls > CHEAP_MAX_CALLS:
            return False
        if fails:
            if _fallible_casts(child, memo) is None:
                return False
            to_prove.append(child)
    return tuple(to_prove)


def casts_in_range(root, ctx) -> bool:
    """Whether every call of `root` that can fail is a range-checked cast of a column
    whose values in this batch all lie in the range (so none of them can fail here)."""
    casts = _fallible_casts(root, ctx.density_memo)
    if not casts:
        return False
    seen = ctx.casts_in_range
    for cast, param, low, high, _ in casts:
        key = (param.path.indices, low, high)
        found = seen.get(key)
        if found is None:
            found = seen[key] = values_in_range(ctx.column(param), low, high)
        if not found:
            return False
    proven = ctx.proven_casts
    for cast, _, _, _, flag in casts:  # the proof is the cast's own check: it need not repeat it
        if id(cast) not in proven:
            proven[id(cast)] = unchecked_options(cast.options, cast.type, flag)
    return True


def _fallible_casts(root, memo: dict):
    """[(cast, field, low, high, flag)] of the casts that make `root` fallible, or None when something
    else can fail (or nothing can: nothing to prove). Walked once per tree and evaluation."""
    key = ("casts", id(root))
    if key in memo:
        return memo[key]
    casts: list | None = []
    stack = [root]
    while stack and casts is not None:
        node = stack.pop()
        if not node.is_call:
            continue
        if call_can_fail(node):
            casts = _range_cast(node, casts)
        stack.extend(node.args)
    memo[key] = casts or None
    return memo[key]


def _range_cast(node, casts: list) -> list | None:
    arg = node.args[0] if node.args else None
    if node.name != "cast" or arg is None or arg.kind != "field" or arg.path is None \
            or arg.type is None or node.options is None:
        return None
    checked = checked_range(arg.type, node.type, node.options)
    if checked is None:
        return None
    return [*casts, (node, arg, *checked)]


def could_be_dense(selected: int, domain: int, threshold: float | None = None) -> bool:
    """The size test alone, checked before the (memoized) walk of the subtree."""
    threshold = DENSE_THRESHOLD if threshold is None else threshold
    return domain >= MIN_DENSE_ROWS and selected >= threshold * domain


def use_dense(kind: Density, selected: int, domain: int, threshold: float | None = None) -> bool:
    """Whether a branch on `selected` of `domain` rows should run densely."""
    return kind is not Density.NEVER and could_be_dense(selected, domain, threshold)
