"""choose(index, v0, v1, ...): value i runs only on the rows whose index is i; a null index
gives null.

An index out of range is Arrow's error, at the first such row, before any value runs
(Arrow checks the indices first too).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..gather_scatter import merge_parts, null_of
from ..kernel_errors import kernel_error
from ..selection import SelectionVector
from ..value_type import as_type
from .branch import MERGED, Branch, no_nulls, run_branch, skipped
from .requests import ChildRequest

__all__ = ["choose"]


def choose(ctx, node, path, sel):
    index_node, options = node.args[0], node.args[1:]
    domain = ctx.size(sel)
    index = yield ChildRequest(index_node, (0,), sel)
    if isinstance(index, pa.Scalar):
        picked = index.as_py() if index.is_valid else None
        if picked is not None and not 0 <= picked < len(options):
            raise kernel_error(pa.ArrowIndexError(f"choose: index {picked} out of range"),
                               node, (), ctx.original_row(sel, 0))
        value = null_of(node.type)
        for k, option in enumerate(options):
            if k == picked:
                value, _ = yield from run_branch(ctx, sel, path, _value(option, k),
                                                 SelectionVector.all(domain))
            else:
                skipped(ctx, sel, path, f"value {k}", k + 1)
        return value if isinstance(value, pa.Scalar) else as_type(value, node.type)
    outside = pc.or_(pc.less(index, 0), pc.greater_equal(index, len(options)))
    if pc.any(outside).as_py():
        row = pc.index(pc.fill_null(outside, False), True).as_py()
        raise kernel_error(
            pa.ArrowIndexError(f"choose: index {index[row].as_py()} out of range"),
            node, (), ctx.original_row(sel, row))
    parts = []
    for k, option in enumerate(options):
        rows = SelectionVector.from_mask(no_nulls(pc.equal(index, k), False))
        value, full = yield from run_branch(ctx, sel, path, _value(option, k), rows, MERGED)
        parts.append((rows, value, full))
    return merge_parts(domain, parts, node.type)


def _value(option, k: int) -> Branch:
    return Branch(option, (k + 1,), f"value {k}", k + 1)
