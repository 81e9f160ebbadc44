"""What a traced fused group records on each morsel, planned once per group and position.

A group's loop runs every node of the group on the group's rows, so each of them is
recorded as its top node ran (densely, selected ...): the top one carries the time
and the reason it was fused, the others the mark alone (a picture says it once), and
a literal stands for the rows its value was used for. The forms in the group record
their branches from the loop's codes (`fused_branches`). Which nodes, at which
positions, and which branches, is the same on every morsel: walked once per group
and position (`GroupPlan`), each morsel adds its figures in one pass over the plan.
"""

from __future__ import annotations

from typing import NamedTuple

from ..observe import FUSED_MEMBER
from .batch_context import ALL_ROWS, LITERAL_RUN
from .forms.requests import DENSE, MASKED
from .fused_branches import BranchPlan, plan_branches, record_branches

__all__ = ["GroupPlan", "record_group"]


class GroupPlan(NamedTuple):
    """The records one morsel of a group at one position makes."""

    positions: object  # the TreePositions the positions below are numbered in
    why: str  # the top node's fused mark
    # every node below the top, in the order the group records them: (position, node,
    # is a literal)
    members: tuple[tuple[int, object, bool], ...]
    last: int  # the largest of their positions
    branches: BranchPlan


def record_group(ctx, group, pos: int, rows: int, elapsed: float, run, codes, sel) -> None:
    """Record the group at position `pos` over `rows` rows of the domain `sel` (every
    node, and when its loop wrote `codes`, each form's branch rows); `run` is how its
    value is used (None: every row)."""
    plan = _plan(ctx, group, pos)
    ctx.record(pos, group.root, rows, elapsed, 1, run, plan.why)
    if run is None:
        used, how, why = rows, ALL_ROWS, ""
    else:
        used = rows if run.uses_all else run.used_count()
        how, why = run.how, run.why
    literal = (rows, used, how, why)
    if run is not None and not run.uses_all and run.how in (DENSE, MASKED):
        # a literal computes nothing: it stands for the rows its value was used for
        literal = (used, used, LITERAL_RUN.how, LITERAL_RUN.why)
    ctx.tallies.add_same(plan.members, plan.last, (rows, used, how, why), literal, FUSED_MEMBER)
    if codes is not None:
        record_branches(ctx, plan.branches, codes, sel, run)


def _plan(ctx, group, pos: int) -> GroupPlan:
    plans = group.trace_plans
    found = plans.get(pos)
    if found is None or found.positions is not ctx.positions:
        found = plans[pos] = _walk(ctx, group, pos)
    return found


def _walk(ctx, group, pos: int) -> GroupPlan:
    members = []
    stack = [(arg, ctx.position(pos, (i,))) for i, arg in enumerate(group.root.args)]
    while stack:
        node, at = stack.pop()
        literal = node.kind == "literal"
        members.append((at, node, literal))
        if node.is_call:
            stack.extend((arg, ctx.position(at, (i,))) for i, arg in enumerate(node.args))
    layout = group.plain.layout  # the same in both loops: it follows the codes alone
    branches = plan_branches(ctx, group.root, group.forms, layout, pos) if group.forms \
        else BranchPlan((), (), ())
    return GroupPlan(ctx.positions, group.why(), tuple(members),
                     max((m[0] for m in members), default=pos), branches)
