"""coalesce(a, b, ...): argument i runs only on the rows where every earlier argument was null."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..gather_scatter import spread
from ..logical_nulls import logical_null_count, null_rows
from ..selection import SelectionVector
from ..value_type import as_type
from .branch import MERGED, Branch, all_dense, form_child_request, record, run_branch, skipped

__all__ = ["coalesce"]


def coalesce(ctx, node, path, sel):
    domain = ctx.size(sel)
    args = node.args
    if all_dense(ctx, node):  # cheap everywhere: Arrow's own coalesce
        values = yield from _every_argument(ctx, node, path, sel, domain)
        return as_type(node.function(values, node.options, node.kernel), node.type)
    everything = SelectionVector.all(domain)
    current, _ = yield from run_branch(ctx, sel, path, _arg(args, 0), everything)
    # the rows still waiting for a value, decided from the arguments themselves: a
    # merged dictionary would re-encode a null entry (a value to Arrow) as a null index
    pending = None
    for i in range(1, len(args)):
        if (_decided(current) if pending is None else pending.count == 0):
            _skip_from(ctx, sel, path, i, len(args))
            break
        if pending is None and (isinstance(current, pa.Scalar)
                                or logical_null_count(current) == len(current)):
            value, _ = yield from run_branch(ctx, sel, path, _arg(args, i), everything)
            current = value if isinstance(current, pa.Scalar) else _coalesce_all_null(value, domain)
            continue
        rows = pending if pending is not None else SelectionVector.from_mask(null_rows(current))
        value, full = yield from run_branch(ctx, sel, path, _arg(args, i), rows, MERGED)
        if not full:  # back at its rows, null elsewhere: coalesce only looks at the null rows
            value = spread(value, rows.indices, domain)
        if isinstance(value, pa.Scalar) and pa.types.is_dictionary(current.type):
            # only the pending rows: `current` may hold null indices that were values
            value = spread(pa.repeat(value, rows.count), rows.indices, domain)
        current = pc.coalesce(current, as_type(value, current.type))
        if isinstance(value, pa.Scalar):
            pending = rows if not value.is_valid else SelectionVector.none(domain)
        else:
            pending = rows.and_mask(null_rows(value))
    return as_type(current, node.type)


def _every_argument(ctx, node, path, sel, domain: int):
    """Every argument on every row of the domain; traced, each argument's rows (where every
    earlier one was null) are recorded by this same loop, and argument i is marked used
    on exactly those rows."""
    args = node.args
    values = []
    pending = SelectionVector.all(domain)  # the rows where every argument so far was null
    recording = path is not None
    for i, arg in enumerate(args):
        if path is None:
            values.append((yield form_child_request(ctx, sel, None, arg, (i,), None)))
            continue
        if recording and i and pending.count == 0:
            _skip_from(ctx, sel, path, i, len(args))
            recording = False  # the rest run for the kernel: no row uses them
        if recording:
            record(ctx, sel, path, f"arg {i}", i, pending)
        used_on = pending if i else None
        values.append((yield form_child_request(ctx, sel, path, arg, (i,), used_on)))
        pending = _still_null(pending, values[-1], domain)
    return values


def _arg(args, i: int) -> Branch:
    return Branch(args[i], (i,), f"arg {i}", i)


def _skip_from(ctx, sel, path, first: int, n: int) -> None:
    for j in range(first, n):
        skipped(ctx, sel, path, f"arg {j}", j)


def _still_null(rows: SelectionVector, value, domain: int) -> SelectionVector:
    """The rows of `rows` where `value` (a coalesce argument, whole domain) is null."""
    if isinstance(value, pa.Scalar):
        return rows if not value.is_valid else SelectionVector.none(domain)
    if logical_null_count(value) < len(value):
        return rows.and_mask(null_rows(value))
    return rows


def _coalesce_all_null(value, domain):
    return value if not isinstance(value, pa.Scalar) else pa.repeat(value, domain)


def _decided(value) -> bool:
    """No nulls left for later coalesce arguments to fill."""
    if isinstance(value, pa.Scalar):
        return value.is_valid
    return logical_null_count(value) == 0
