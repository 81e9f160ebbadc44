"""Float keys as joins and groups compare them: -0.0 and 0.0 are one key, as Arrow's
`equal` (and every SQL engine) has it, though their bits differ and pyarrow's hash
join and group-by compare bits.

A join pairs rows whose keys are `equal`, so a NaN key matches nothing, as `equal`
says and as the same join written as a filter over a cross product gives (Spark and
DuckDB match NaN with NaN instead). A group-by puts every NaN in one group whatever
its payload bits, as every engine does.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["group_key", "join_key"]


def _without_negative_zero(column):
    zero = pa.scalar(0, column.type)
    return pc.if_else(pc.equal(column, zero), zero, column)


def join_key(column):
    """The column as a hash join should compare it: floats with -0.0 as 0.0 and NaN as
    null (no partner); any other type as it is."""
    if not pa.types.is_floating(column.type):
        return column
    column = _without_negative_zero(column)
    return pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)


def group_key(column):
    """The column as a group-by should compare it: floats with -0.0 as 0.0 and every NaN
    as the one canonical NaN; any other type as it is."""
    if not pa.types.is_floating(column.type):
        return column
    column = _without_negative_zero(column)
    return pc.if_else(pc.is_nan(column), pa.scalar(float("nan"), column.type), column)
