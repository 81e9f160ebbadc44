"""and_kleene / or_kleene: the right side runs only where the left side does not decide
(false decides `and`, true decides `or`; null decides neither)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ...observe import MaskOnRead
from .. import dense_path
from ..gather_scatter import spread
from ..selection import SelectionVector
from .branch import (
    Branch,
    BranchPolicy,
    all_dense,
    form_child_request,
    no_nulls,
    record,
    run_branch,
    skipped,
)
from .requests import ChildRequest

__all__ = ["and_kleene", "or_kleene"]

_RIGHT = (1,)


def _undecided(left: pa.Array, stop_value: bool) -> pa.Array:
    """The rows where the left side of and/or does not decide (null does not)."""
    return no_nulls(pc.invert(left) if stop_value else left, True)


def _and_undecided(left: pa.Array) -> pa.Array:
    return _undecided(left, False)


def _or_undecided(left: pa.Array) -> pa.Array:
    return _undecided(left, True)


def _undecided_on_read(left, stop_value: bool) -> SelectionVector:
    """`_undecided` as the trace records it: counted now from the left side's bitmaps
    (the true values, the nulls), the mask made only when the trace's rows are read."""
    if not isinstance(left, pa.Array):
        return SelectionVector.from_mask(_undecided(left, stop_value))
    decided = left.true_count if stop_value else len(left) - left.null_count - left.true_count
    rule = _or_undecided if stop_value else _and_undecided
    later = MaskOnRead(rule, (left,), len(left))
    return SelectionVector.made_on_read(len(left), len(left) - decided, later)


def _kleene(kleene_kernel, stop_value: bool):
    """and_kleene (the left side decides where it is false) or or_kleene (where true)."""

    def form(ctx, node, path, sel):
        domain = ctx.size(sel)
        left_node, right_node = node.args
        right_branch = Branch(right_node, _RIGHT, "right", 1)
        left = yield ChildRequest(left_node, (0,), sel)
        if isinstance(left, pa.Scalar):
            if left.is_valid and left.as_py() is stop_value:
                skipped(ctx, sel, path, "right", 1)
                return left
            right, _ = yield from run_branch(ctx, sel, path, right_branch,
                                             SelectionVector.all(domain))
            return kleene_kernel(left, right)
        if all_dense(ctx, node):  # cheap right side: every row, no masks
            undecided = None
            if path is not None:
                undecided = _undecided_on_read(left, stop_value)
                record(ctx, sel, path, "right", 1, undecided)
            right = yield form_child_request(ctx, sel, path, right_node, _RIGHT, undecided)
            return kleene_kernel(left, right)
        rows = SelectionVector.from_mask(_undecided(left, stop_value))
        if rows.count == 0:
            skipped(ctx, sel, path, "right", 1)
            return left
        # its merge is a free bitmap kernel instead of a scatter: dense from a lower share
        policy = BranchPolicy(keep_whole=True, threshold=dense_path.KLEENE_DENSE_THRESHOLD)
        right, full = yield from run_branch(ctx, sel, path, right_branch, rows, policy)
        if not full:  # null where the left side decided: Kleene logic ignores it there
            right = spread(right, rows.indices, domain)
        return kleene_kernel(left, right)

    form.__name__ = kleene_kernel.__name__
    return form


and_kleene = _kleene(pc.and_kleene, False)
or_kleene = _kleene(pc.or_kleene, True)
