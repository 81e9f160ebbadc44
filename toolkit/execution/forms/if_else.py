"""if_else(cond, then, else): a null condition gives null; `then` only where true, `else`
only where false."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ...functions.select_values import if_else_values
from ..gather_scatter import merge_parts, null_of, placed
from ..selection import SelectionVector
from ..value_type import as_type
from .branch import (
    MERGED,
    Branch,
    all_dense,
    form_child_request,
    no_nulls,
    record,
    run_branch,
    skipped,
)
from .requests import ChildRequest

__all__ = ["if_else"]


def if_else(ctx, node, path, sel):
    cond, then, other = node.args
    then_branch, else_branch = Branch(then, (1,), "then", 1), Branch(other, (2,), "else", 2)
    domain = ctx.size(sel)
    c = yield ChildRequest(cond, (0,), sel)
    if isinstance(c, pa.Scalar):
        if not c.is_valid:
            skipped(ctx, sel, path, "then", 1)
            skipped(ctx, sel, path, "else", 2)
            return null_of(node.type)
        if c.as_py():
            value, _ = yield from run_branch(ctx, sel, path, then_branch,
                                             SelectionVector.all(domain))
            skipped(ctx, sel, path, "else", 2)
        else:
            skipped(ctx, sel, path, "then", 1)
            value, _ = yield from run_branch(ctx, sel, path, else_branch,
                                             SelectionVector.all(domain))
        return value
    dense = all_dense(ctx, node)
    true_rows = false_rows = None
    if path is not None or not dense:
        true_rows = SelectionVector.from_mask(no_nulls(c, False))
        false_rows = SelectionVector.from_mask(no_nulls(pc.invert(c), False))
    if dense:  # cheap branches: Arrow's own if_else, no masks
        if path is not None:
            record(ctx, sel, path, "then", 1, true_rows)
            record(ctx, sel, path, "else", 2, false_rows)
        tv = yield form_child_request(ctx, sel, path, then, (1,), true_rows)
        fv = yield form_child_request(ctx, sel, path, other, (2,), false_rows)
        return as_type(if_else_values(c, tv, fv), node.type)
    tv, t_full = yield from run_branch(ctx, sel, path, then_branch, true_rows, MERGED)
    fv, f_full = yield from run_branch(ctx, sel, path, else_branch, false_rows, MERGED)
    if t_full and f_full and true_rows.count and false_rows.count:
        return as_type(if_else_values(c, tv, fv), node.type)
    sides = ((true_rows, tv, t_full), (false_rows, fv, f_full))
    if _if_else_mergeable(node.type, sides):
        # one side covers the domain (or is one value): Arrow's if_else, after the other
        # side's rows are scattered back to place, instead of a merge through a permutation
        t_side, f_side = (_in_place(value, rows, full, domain, node.type)
                          for rows, value, full in sides)
        return as_type(if_else_values(c, t_side, f_side), node.type)
    return merge_parts(domain, list(sides), node.type)


def _if_else_mergeable(out_type, sides) -> bool:
    """At most one side is compact, and the type is one `scatter` and `if_else` handle."""
    compact = sum(1 for rows, value, full in sides
                  if rows.count and not full and not isinstance(value, pa.Scalar))
    return compact <= 1 and not (pa.types.is_nested(out_type)
                                 or pa.types.is_dictionary(out_type)
                                 or pa.types.is_null(out_type))


def _in_place(value, rows: SelectionVector, full: bool, domain: int, out_type):
    """A branch's value over the whole domain (right at `rows`), or one value for all."""
    if rows.count == 0:
        return null_of(out_type)  # no row takes it: only its type matters
    if not isinstance(value, pa.Scalar) and not full:
        value = placed(value, rows, domain)  # if_else reads it only where `rows` are
    return as_type(value, out_type)
