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
  `sin`, `power` cost many times a `multiply` per row, so on a 1% branch
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
on a small batch the selections' fixed cost is all laziness would add. On a
domain under SMALL_EAGER_ROWS the same holds for children that cannot fail but
are not cheap (`ln`, `utf8_upper`): selecting costs some twenty kernel calls,
more than computing the unselected rows of so few.

Whether a whole tree runs as eager evaluation would is decided once, when it is
prepared (`DensityFacts.eager_below`): below that many rows every form of the
tree would run eagerly, so a morsel that small is evaluated eagerly outright,
with no form asked again. The
tracer shows each dense node's rows as the rows it ran on (the whole domain),
its used rows as the rows its value was used for, and why it ran densely.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import pyarrow as pa

from ..functions.cast_range_check import (
    RANGE_CHECK_MIN_ROWS,
    checked_range,
    unchecked_options,
    values_in_range,
)
from ..functions.function import FunctionKind, NullHandling, call_can_fail
from ..model.expression import postorder

__all__ = [
    "CHEAP_MAX_CALLS",
    "COSTLY_FUNCTIONS",
    "DENSE_THRESHOLD",
    "KLEENE_DENSE_THRESHOLD",
    "MIN_DENSE_ROWS",
    "SMALL_EAGER_ROWS",
    "Density",
    "DensityFacts",
    "DensityFactsBuilder",
    "FormEager",
    "NodeFacts",
    "RangeCast",
    "TrustLedger",
    "all_cheap_here",
    "break_even",
    "could_be_dense",
    "dense_children",
    "density_facts",
    "density_here",
    "density_kinds",
    "is_cheap",
    "is_cheap_here",
    "use_dense",
]

DENSE_THRESHOLD = 0.8
KLEENE_DENSE_THRESHOLD = 0.2
CHEAP_MAX_CALLS = 16
PROOF_MAX_CALLS = 64  # larger subtrees are not searched for casts to check (the walk is linear)
MIN_DENSE_ROWS = 16_384
SMALL_EAGER_ROWS = 4096  # below it a form whose children cannot fail runs eagerly
EVERY_SIZE = 1 << 62  # `eager_below` of a form that runs eagerly on any domain


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


CALL_WORK = 1  # a fixed-width arithmetic or comparison kernel, per row
COSTLY_WORK = 20  # `ln`, `exp` per row: about 20 `multiply`s
VARIABLE_WIDTH_WORK = 40  # a kernel writing strings or lists (`utf8_upper`)
LAZY_ROW_WORK = 32  # selecting: mask -> indices, gather, put back; per domain row at 50%
VARIABLE_WIDTH_LAZY = 4  # gathering and merging strings costs about four times as much


def _call_work(call) -> int:
    if _costly(call):
        return COSTLY_WORK
    return CALL_WORK if _fixed_width(call.type) else VARIABLE_WIDTH_WORK


def _fixed_width(t) -> bool:
    return t is not None and (pa.types.is_primitive(t) or pa.types.is_decimal(t))


@dataclass(frozen=True, slots=True)
class NodeFacts:
    """What the density rules need to know of one subtree, from its node and its children's."""

    can_fail: bool  # some call in it may raise on some row
    has_special_form: bool  # a special form (or an unbound call) somewhere in it
    null_intersecting: bool  # every call gives null where any argument is null
    fixed_width: bool  # every value in it is fixed-width (a struct of them counts)
    calls: int  # how many calls
    costly: bool  # a transcendental (or rounding) call somewhere in it
    work: int  # work per row, in CALL_WORK units

    @classmethod
    def of_leaf(cls, node) -> NodeFacts:
        return cls(False, False, True, _fixed_width(node.type), 0, False, 0)

    @classmethod
    def of_call(cls, node, below: list[NodeFacts], own_fails: bool) -> NodeFacts:
        fn = node.function
        can_fail = own_fails
        special = fn is None or fn.kind is FunctionKind.SPECIAL_FORM
        intersecting = fn is not None and _intersecting(node)
        # a struct made of fixed-width columns (case_when's conditions) is as cheap as they are
        fixed_width = _fixed_width(node.type) or node.name == "make_struct"
        calls = 1
        costly = _costly(node)
        work = _call_work(node)
        for b in below:  # one pass over the arguments' facts: a node may have hundreds
            can_fail = can_fail or b.can_fail
            special = special or b.has_special_form
            intersecting = intersecting and b.null_intersecting
            fixed_width = fixed_width and b.fixed_width
            calls += b.calls
            costly = costly or b.costly
            work += b.work
        return cls(can_fail, special, intersecting, fixed_width, calls, costly, work)

    @property
    def cheap_shape(self) -> bool:
        """Cheap but for failing: few fixed-width calls, none costly."""
        return self.fixed_width and not self.costly and self.calls <= CHEAP_MAX_CALLS


@dataclass(frozen=True, slots=True)
class RangeCast:
    """A cast of a column that fails only on values outside [low, high]: one `min_max`
    of the column settles whether it can fail on a batch."""

    cast: object  # the cast call
    column: object  # the field it reads
    low: object
    high: object
    flag: object  # the option that turns its own check off once proven


@dataclass(frozen=True, slots=True)
class FormEager:
    """Below `rows` domain rows a form runs eagerly (every argument, then its kernel);
    `on_trust`: only while its children are taken on trust (a cast checks its own values,
    a kernel raises): a failure means the batch is evaluated again without trust."""

    rows: int
    on_trust: bool = False


def form_eager(node, to_prove: tuple | None, children_facts) -> FormEager | None:
    """When a special form may skip its selections: children cheap (and proven, or taken
    on trust on a small domain), or any children on a small domain (on trust when they can
    fail: an element-wise kernel that does not fail gives the selected rows the values a
    lazy run would); None: never (a form without dense children, such as `choose`)."""
    if to_prove is not None:
        if to_prove:
            return FormEager(RANGE_CHECK_MIN_ROWS, on_trust=True)
        # a fixed-width case_when on a large domain funnels (cheaper than its kernel)
        return FormEager(MIN_DENSE_ROWS if node.name == "case_when" else EVERY_SIZE)
    if children_facts:
        # children that can fail run on trust: should one fail, the batch runs again lazily
        return FormEager(SMALL_EAGER_ROWS, on_trust=any(f.can_fail for f in children_facts))
    return None


class TrustLedger:
    """Whether taking a tree's forms on trust has failed once: a tree whose guarded rows do
    fail (a division guarded against zero) is then never taken on trust again, so it pays
    the failed attempt once, not on every batch."""

    __slots__ = ("failed",)

    def __init__(self):
        self.failed = False


@dataclass(frozen=True)
class DensityFacts:
    """The density facts of every node of one tree, keyed by node id (the tree, and any
    other node with facts here, is held by whoever holds this record, so the ids stay
    its nodes'; `prepare.PreparedTree.held`)."""

    nodes: Mapping[int, NodeFacts]
    # id(node) -> the range casts that alone make it fallible (subtrees of at most
    # PROOF_MAX_CALLS calls); absent: something else can fail, or nothing can
    range_casts: Mapping[int, tuple[RangeCast, ...]]
    # id(form) -> the children cheap only once their casts are proven (empty: cheap on
    # any batch); absent: some child is never cheap (or the form has no dense children)
    cheap_forms: Mapping[int, tuple]
    # id(form) -> the domain rows below which it runs eagerly whatever its selections
    # (`FormEager`); absent: it runs as a form on any domain
    eager_forms: Mapping[int, FormEager]
    # the whole tree: below this many rows every form runs eagerly (0: some form never
    # does); `eager_on_trust`: only while the casts are taken on trust (see runs_eagerly)
    eager_below: int = 0
    eager_on_trust: bool = False
    trust: TrustLedger = field(default_factory=TrustLedger)

    def of(self, node) -> NodeFacts:
        return self.nodes[id(node)]


class DensityFactsBuilder:
    """Fills a DensityFacts one node at a time, each after its children (postorder)."""

    __slots__ = ("_casts", "_eager", "_eager_below", "_forms", "_nodes", "_on_trust")

    def __init__(self):
        self._nodes: dict[int, NodeFacts] = {}
        self._casts: dict[int, tuple | None] = {}
        self._forms: dict[int, tuple] = {}
        self._eager: dict[int, FormEager] = {}
        self._eager_below = EVERY_SIZE
        self._on_trust = False

    def visit(self, node) -> NodeFacts:
        nodes = self._nodes
        if not node.is_call:
            facts = nodes[id(node)] = NodeFacts.of_leaf(node)
            self._casts[id(node)] = ()
            return facts
        own_fails = call_can_fail(node)
        facts = nodes[id(node)] = NodeFacts.of_call(node, [nodes[id(a)] for a in node.args],
                                                    own_fails)
        if facts.calls <= PROOF_MAX_CALLS:
            self._casts[id(node)] = self._fallible_casts(node, own_fails)
        children = dense_children(node)
        to_prove = None
        if children:
            to_prove = self._cheap_but_for_casts(children)
            if to_prove is not None:
                self._forms[id(node)] = to_prove
        if node.function is not None and node.function.kind is FunctionKind.SPECIAL_FORM:
            eager = form_eager(node, to_prove, [nodes[id(c)] for c in children])
            if eager is None:
                self._eager_below = 0
            else:
                self._eager[id(node)] = eager
                self._eager_below = min(self._eager_below, eager.rows)
                self._on_trust = self._on_trust or eager.on_trust
        return facts

    def _fallible_casts(self, node, own_fails: bool):
        """The range casts that make `node` fallible, () when nothing can fail, None when
        something else can."""
        casts: tuple = ()
        for arg in node.args:
            below = self._casts.get(id(arg))
            if below is None:
                return None
            casts += below
        if own_fails:
            own = _range_cast(node)
            if own is None:
                return None
            casts += (own,)
        return casts

    def _cheap_but_for_casts(self, children):
        """None when some child can never be cheap; else the children that are cheap only
        on a batch whose cast values are in range (the others are cheap on any batch)."""
        to_prove = []
        for child in children:
            facts = self._nodes[id(child)]
            if not facts.cheap_shape:
                return None
            if facts.can_fail:
                if not self._casts.get(id(child)):
                    return None
                to_prove.append(child)
        return tuple(to_prove)

    @property
    def cheap_forms(self) -> Mapping[int, tuple]:
        """The forms seen so far whose dense children are all cheap (see DensityFacts)."""
        return self._forms

    def done(self) -> DensityFacts:
        casts = {key: found for key, found in self._casts.items() if found}
        return DensityFacts(MappingProxyType(self._nodes), MappingProxyType(casts),
                            MappingProxyType(self._forms), MappingProxyType(self._eager),
                            self._eager_below, self._on_trust)


def density_facts(root) -> DensityFacts:
    """The DensityFacts of a tree on its own (evaluation gets them from `prepare`)."""
    builder = DensityFactsBuilder()
    for node in postorder(root):
        builder.visit(node)
    return builder.done()


def dense_children(node) -> tuple:
    """The children whose cheapness lets a form run densely: the branches (the condition
    of if_else and the left side of and/or run on every row anyway), or () for a node
    that never runs densely this way."""
    name, args = node.name, node.args
    if name in ("if_else", "and_kleene", "or_kleene"):
        return args[1:]
    if name == "coalesce":
        return args
    if name == "case_when" and args and args[0].is_call and args[0].name == "make_struct":
        return (*args[0].args, *args[1:])
    return ()


def _facts_of(root, facts: DensityFacts | None) -> NodeFacts:
    return (facts if facts is not None else density_facts(root)).of(root)


def break_even(root, facts: DensityFacts | None = None) -> float:
    """The share of its domain above which a branch that may run densely (it cannot fail,
    or its unselected rows are made null) is cheaper computed on every row, its value
    kept whole for the merge, than on its selected rows only (at most DENSE_THRESHOLD).

    Computing every row costs its work per row W on the (1 - s) unselected rows too;
    selecting costs LAZY_ROW_WORK per domain row at 50% and above (building indices,
    gathering, putting the values back), less on sparse selections: O * min(1, 2s).
    Dense pays when W (1 - s) <= O min(1, 2s). A costly branch (`ln`, `exp`) computed
    on every row costs more than selecting a tenth of its rows, less than selecting half.
    """
    node = _facts_of(root, facts)
    work = node.work
    lazy = LAZY_ROW_WORK * (1 if node.fixed_width else VARIABLE_WIDTH_LAZY)
    if work <= 0:
        return 0.0
    share = work / (work + 2 * lazy) if work <= 2 * lazy else 1 - lazy / work
    return min(share, DENSE_THRESHOLD)


def density_kinds(root, facts: DensityFacts | None = None) -> Density:
    """The Density of `root` (SAFE, MASKED or NEVER)."""
    node = _facts_of(root, facts)
    if not node.can_fail:
        return Density.SAFE
    if not node.has_special_form and node.null_intersecting:
        return Density.MASKED
    return Density.NEVER


def is_cheap(root, facts: DensityFacts | None = None) -> bool:
    """Few calls over fixed-width values only, none that can fail: computing every row
    costs less than the gathers and the scatter a compact evaluation needs, at any
    density (special forms inside stay lazy, with cheap children of their own)."""
    node = _facts_of(root, facts)
    return node.cheap_shape and not node.can_fail


def density_here(root, ctx) -> Density:
    """`density_kinds`, with the batch's data as evidence: SAFE when the only calls that
    can fail are range-checked casts of columns whose values are in range."""
    kind = density_kinds(root, ctx.density)
    if kind is not Density.SAFE and casts_in_range(root, ctx):
        return Density.SAFE
    return kind


def is_cheap_here(root, ctx) -> bool:
    """`is_cheap`, with the batch's data as evidence (see `density_here`)."""
    node = ctx.density.of(root)
    if not node.cheap_shape:
        return False
    return not node.can_fail or casts_in_range(root, ctx)


def all_cheap_here(form, ctx, on_trust: bool = False) -> bool:
    """`is_cheap_here` of every dense child of one form; what does not depend on the
    batch was answered when the tree was prepared.

    `on_trust`: children whose casts would need the batch's proof count as cheap
    without it, and `ctx.took_trust` records that a failure may be the price
    (the caller evaluates the batch again without trust if anything fails).
    """
    to_prove = ctx.density.cheap_forms.get(id(form))
    if to_prove is None:
        return False
    if on_trust and to_prove:
        ctx.took_trust = True
        return True
    return all(casts_in_range(child, ctx) for child in to_prove)


def casts_in_range(root, ctx) -> bool:
    """Whether every call of `root` that can fail is a range-checked cast of a column
    whose values in this batch all lie in the range (so none of them can fail here)."""
    casts = ctx.density.range_casts.get(id(root))
    if not casts:
        return False
    seen = ctx.casts_in_range
    for cast in casts:
        key = (cast.column.path.indices, cast.low, cast.high)
        found = seen.get(key)
        if found is None:
            found = seen[key] = values_in_range(ctx.column(cast.column), cast.low, cast.high)
        if not found:
            return False
    proven = ctx.proven_casts
    for cast in casts:  # the proof is the cast's own check: it need not repeat it
        if id(cast.cast) not in proven:
            proven[id(cast.cast)] = unchecked_options(cast.cast.options, cast.cast.type,
                                                      cast.flag)
    return True


def _range_cast(node) -> RangeCast | None:
    arg = node.args[0] if node.args else None
    if node.name != "cast" or arg is None or arg.kind != "field" or arg.path is None \
            or arg.type is None or node.options is None:
        return None
    checked = checked_range(arg.type, node.type, node.options)
    if checked is None:
        return None
    low, high, flag = checked
    return RangeCast(node, arg, low, high, flag)


def could_be_dense(selected: int, domain: int, threshold: float | None = None) -> bool:
    """The size test alone, checked before the subtree's facts are read."""
    threshold = DENSE_THRESHOLD if threshold is None else threshold
    return domain >= MIN_DENSE_ROWS and selected >= threshold * domain


def use_dense(kind: Density, selected: int, domain: int, threshold: float | None = None) -> bool:
    """Whether a branch on `selected` of `domain` rows should run densely."""
    return kind is not Density.NEVER and could_be_dense(selected, domain, threshold)
