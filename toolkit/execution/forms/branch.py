"""The machinery every special form shares: running one branch on some rows of its domain.

Which rows of the form's domain (the rows of the selection it runs under) a
branch gets is a `SelectionVector`. A branch on a subset runs under the composed
selection (compact), or densely over the whole domain when the cost decision
(`decide_dense`) says that is both safe and cheaper; the form's merge then uses
the dense result as the base it lays the other branches over. A form whose
branches are all cheap and cannot fail skips the selections altogether
(`all_dense`) and runs Arrow's own kernel, or is not run as a form at all when
untraced (`runs_eagerly`).

Each way a child runs carries its reason, written from the record that decided it
(`DenseDecision`, `BranchPolicy`), so the trace says of every node what is true of
that node: a literal is one value, a column is read, a costed branch names its
break-even.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

import pyarrow as pa

from ...functions.cast_range_check import RANGE_CHECK_MIN_ROWS
from .. import dense_path
from ..dense_path import (
    Density,
    all_cheap_here,
    break_even,
    could_be_dense,
    density_here,
    density_kinds,
    is_cheap_here,
    use_dense,
)
from ..gather_scatter import empty_of, take
from ..selection import SelectionVector, filled
from .requests import DENSE, LITERAL, LITERAL_WHY, MASKED, SELECTED, BranchRun, ChildRequest

__all__ = [
    "Branch",
    "BranchPolicy",
    "DenseDecision",
    "all_dense",
    "decide_dense",
    "form_child_request",
    "form_child_run",
    "no_nulls",
    "picked",
    "record",
    "run_branch",
    "runs_eagerly",
    "skipped",
    "sub_selection",
]

# the reasons a trace gives, the same words for every morsel (a node's reasons add up to one)
CHEAP = "cheaper than selecting"
COLUMN = "a column: read, not computed"
CHEAP_FORM = "its form's branches are cheap and cannot fail: one kernel, all rows"
IN_RANGE = "cannot fail here: every cast's values are in range"
NARROWED = "on the rows no case had taken when the funnel narrowed"
CANNOT_FAIL = "cannot fail"
MADE_NULL = "the others made null so no failing kernel sees them"
MAY_FAIL = "it could fail on a row it was not selected for"
SMALL_DOMAIN = "a small domain: selecting costs little"
EACH_ON_ITS_ROWS = "one of many cases: each value on its own rows"


def no_nulls(mask: pa.Array, fill: bool) -> pa.Array:
    return filled(mask, fill)


def sub_selection(sel: SelectionVector | None, rows: SelectionVector) -> SelectionVector:
    """The batch rows behind `rows` of the domain `sel` (None: the domain is the batch)."""
    return rows if sel is None else sel.compose(rows)


def picked(rows: SelectionVector, c, is_full) -> SelectionVector:
    """The rows of `rows` where the condition value `c` (compact or full) is true."""
    if isinstance(c, pa.Scalar):
        return rows if (c.is_valid and c.as_py()) else SelectionVector.none(rows.length)
    if is_full:
        return rows.and_mask(no_nulls(c, False))
    return rows.scatter_local(c)


def record(ctx, sel, path, label, arg_index, rows: SelectionVector) -> None:
    """Record the rows of the domain a branch got and whose value is used (all: None).

    A form that itself runs densely (inside a dense branch) hands its branches
    rows whose values are then dropped; the trace keeps the rows that count, so
    the selections tell the lazy story and match the branches' `used_rows`.
    """
    if ctx.run is not None and not ctx.run.uses_all:
        rows = rows.and_mask(ctx.run.used)
    ctx.record_branch(path, label, arg_index, sel, None if rows.is_all else rows)


def skipped(ctx, sel, path, label, arg_index) -> None:
    """Record that a branch ran on no rows (the tracer shows it as an empty selection)."""
    if path is not None:
        ctx.record_branch(path, label, arg_index, sel, SelectionVector.none(ctx.size(sel)))


class Branch(NamedTuple):
    """One argument of a form as a branch: the node, where it sits below the form (`rel`),
    and its name and argument index in the trace's branch selections."""

    child: object
    rel: tuple
    label: str
    arg_index: int


@dataclass(frozen=True, slots=True)
class BranchPolicy:
    """What the form allows a branch: `keep_whole`, a value over the whole domain (the form
    merges it without compacting); `threshold`, the share of the domain from which it runs
    densely (None: DENSE_THRESHOLD); `cheap_dense=False`, a cheap branch on a small share
    runs on its rows only (one of many case values: each on every row would cost one full
    pass per branch); `narrowed`, the domain is the rows a case_when's funnel narrowed to."""

    keep_whole: bool = False
    threshold: float | None = None
    cheap_dense: bool = True
    narrowed: bool = False


ONE_VALUE = BranchPolicy()  # the form uses the branch's value as it comes (compacted)
MERGED = BranchPolicy(keep_whole=True)  # the form merges the branches' values


class Rule(enum.Enum):
    """What made a branch run on every row of its domain."""

    CHEAP = "cheap"  # few fixed-width calls that cannot fail: one pass beats selecting
    COLUMN = "column"  # a column of the batch: nothing to compute per row
    BREAK_EVEN = "break-even"  # its selected share reached its own break-even
    SHARE = "share"  # its selected share reached the form's threshold


@dataclass(frozen=True, slots=True)
class DenseDecision:
    """The cost decision for one branch that runs densely, and the words for why."""

    rule: Rule
    masked: bool  # it can fail: the unselected rows are made null first
    threshold: float  # the share of the domain it needed
    proven_in_range: bool  # it can fail, but not on this batch: its casts' values are in range
    narrowed: bool

    @property
    def how(self) -> str:
        return MASKED if self.masked else DENSE

    def why(self) -> str:
        if self.rule is Rule.CHEAP:
            parts = [CHEAP]
        elif self.rule is Rule.COLUMN:
            parts = [COLUMN]
        else:
            share = f"at least {self.threshold:.0%} of the rows selected"
            if self.rule is Rule.BREAK_EVEN:
                share += " (its break-even: computing the others costs less than selecting)"
            parts = [share + (f", {MADE_NULL}" if self.masked else f", {CANNOT_FAIL}")]
        if self.proven_in_range:
            parts.append(IN_RANGE)
        if self.narrowed:
            parts.append(NARROWED)
        return "; ".join(parts)


def decide_dense(ctx, child, rows: SelectionVector, policy: BranchPolicy) -> DenseDecision | None:
    """Whether `child` on `rows` of its domain runs densely, and by which rule (None: it runs
    on its rows only). Cheap subtrees run densely on any large domain; a branch whose value
    the form keeps whole runs densely once its share passes its break-even (or the form's
    threshold, when that is lower); any other from DENSE_THRESHOLD."""
    domain = rows.length
    large = domain >= dense_path.MIN_DENSE_ROWS
    threshold = policy.threshold
    rule = Rule.SHARE
    if policy.cheap_dense and large and is_cheap_here(child, ctx):
        rule, threshold = Rule.CHEAP, 0.0
    elif policy.cheap_dense and policy.keep_whole and large \
            and density_here(child, ctx) is not Density.NEVER:
        even = break_even(child, ctx.density)
        if threshold is None or even < threshold:
            rule, threshold = Rule.BREAK_EVEN, even
    if not could_be_dense(rows.count, domain, threshold):
        return None
    kind = density_here(child, ctx)
    if not use_dense(kind, rows.count, domain, threshold):
        return None
    masked = kind is Density.MASKED
    if child.kind == "field":  # nothing computed: cheap or at a zero break-even, it is read
        rule = Rule.COLUMN
    proven = not masked and density_kinds(child, ctx.density) is not Density.SAFE
    limit = dense_path.DENSE_THRESHOLD if threshold is None else threshold
    return DenseDecision(rule, masked, limit, proven, policy.narrowed)


def _selected_why(ctx, child, rows: SelectionVector, policy: BranchPolicy) -> str:
    """Why a branch ran on its own rows only (traced runs only)."""
    if rows.length < dense_path.MIN_DENSE_ROWS:
        why = SMALL_DOMAIN
    elif density_kinds(child, ctx.density) is Density.NEVER:  # no proof run for the words
        why = MAY_FAIL
    elif not policy.cheap_dense:
        why = EACH_ON_ITS_ROWS
    else:
        even = break_even(child, ctx.density) if policy.keep_whole else None
        limit = policy.threshold if policy.threshold is not None else dense_path.DENSE_THRESHOLD
        if even is not None and even < limit:
            why = f"under its break-even of {even:.0%} of the rows selected"
        else:
            why = f"under {limit:.0%} of the rows selected"
    return f"{why}; {NARROWED}" if policy.narrowed else why


def run_branch(ctx, sel, path, branch: Branch, rows: SelectionVector,
               policy: BranchPolicy = ONE_VALUE, recorded: SelectionVector | None = None):
    """The branch's value on `rows` of the domain: `(value, is_full)`.

    `is_full` is true when the value covers the whole domain: the branch had
    every row, or it ran densely and the form keeps its value whole. Traced,
    `recorded` (the same rows, held in another form: one made on read) is what the
    trace keeps, when given.
    """
    child, rel = branch.child, branch.rel
    traced = path is not None
    if traced:
        record(ctx, sel, path, branch.label, branch.arg_index,
               rows if recorded is None else recorded)
    if rows.is_all:
        run = BranchRun(rows, SELECTED, NARROWED, True) if policy.narrowed and traced else None
        return (yield ChildRequest(child, rel, sel, None, run)), True
    if rows.count == 0:
        return empty_of(child.type), False
    if child.is_literal:
        if traced:  # the literal stands for its value on the branch's rows
            yield ChildRequest(child, rel, sub_selection(sel, rows), None,
                               BranchRun(rows, LITERAL, LITERAL_WHY, True))
        return child.value, False
    if policy.keep_whole and child.kind == "field" and sel is None \
            and rows.length >= dense_path.MIN_DENSE_ROWS:
        # a column of the batch: reading every row costs nothing, gathering some costs a copy
        run = BranchRun(rows, DENSE, COLUMN, False) if traced else None
        return (yield ChildRequest(child, rel, sel, None, run)), True
    decision = decide_dense(ctx, child, rows, policy)
    if decision is not None:
        mask = rows.mask if decision.masked else None
        run = BranchRun(rows, decision.how, decision.why(), False) if traced else None
        full = yield ChildRequest(child, rel, sel, mask, run)
        if mask is not None:
            ctx.forget(sel, mask)
        if policy.keep_whole and not isinstance(full, pa.Scalar):
            return full, True
        return take(full, rows.indices), False
    run = BranchRun(rows, SELECTED, _selected_why(ctx, child, rows, policy), True) \
        if traced else None
    sub = sub_selection(sel, rows)
    value = yield ChildRequest(child, rel, sub, None, run)
    ctx.forget(sub)  # made for this branch: what was gathered under it is spent
    return value, False


def form_child_run(path, child, rows: SelectionVector | None) -> BranchRun | None:
    """How a child of a form that runs every child on every row (`all_dense`) is traced:
    used on `rows` of the domain (None: all of them). A literal computes nothing: it stands
    for its value on those rows; a column is read, not computed."""
    if path is None:
        return None
    if child.is_literal:
        return BranchRun(rows, LITERAL, LITERAL_WHY, True) if rows is not None else None
    return BranchRun(rows, DENSE, COLUMN if child.kind == "field" else CHEAP_FORM, False)


def form_child_request(ctx, sel, path, child, rel, rows: SelectionVector | None) -> ChildRequest:
    """The request for a child of an all-dense form: the whole domain, or, traced, a literal
    on the rows it is used for (so its row count is those rows, not the domain's)."""
    run = form_child_run(path, child, rows)
    if run is not None and run.how == LITERAL:
        return ChildRequest(child, rel, sub_selection(sel, rows), None, run)
    return ChildRequest(child, rel, sel, None, run)


def all_dense(ctx, form) -> bool:
    """Every dense child of the form cheap and unable to fail on this batch: skip the
    selections, whatever the domain's size (on a small batch the selections' fixed cost,
    about 20 kernel calls, is all laziness would add).

    Traced too: the children then run on every row of the domain (their NodeStats
    say so), and the rows each branch's value was used for are recorded from the
    condition values by the same loop that asks for them.
    """
    return all_cheap_here(form, ctx)


def runs_eagerly(ctx, node, sel) -> bool:
    """Untraced, a form whose branches are all cheap on this batch runs as eager evaluation
    does (every argument, then Arrow's kernel): what the form would do anyway, without its
    generator. A case_when only on a small domain: on a large one a fixed-width case_when
    funnels. On a domain under SMALL_EAGER_ROWS, so does any form: selecting would cost
    more than computing the rows it spares.

    On a small domain whose casts would need proving, or whose branches can fail
    (`ctx.trusting`), the branches are taken on trust and their kernels check their own
    values, as in eager evaluation: should one fail, the batch is evaluated again without
    trust (`evaluate`), and the form then runs lazily (a tree whose trust failed once is
    not trusted again: `dense_path.TrustLedger`). Proving costs a min and a max per column.
    """
    eager = ctx.density.eager_forms.get(id(node))
    if eager is None:
        return False
    domain = ctx.size(sel)
    if domain < eager.rows:  # decided when the tree was prepared
        if not eager.on_trust:
            return True
        if ctx.trusting:
            ctx.took_trust = True  # children that can fail, taken on trust
            return True
    if node.name == "case_when" and domain >= dense_path.MIN_DENSE_ROWS:
        return False
    trust = ctx.trusting and domain < RANGE_CHECK_MIN_ROWS
    return all_cheap_here(node, ctx, on_trust=trust)
