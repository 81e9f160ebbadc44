"""Which values are null as Arrow's conditional kernels see them, not as `null_count` says.

Unions have no validity bitmap (a value is null when its child's value is), so
their `Array.null_count` is always 0; run-end-encoded arrays keep their nulls in
the values child. A lazy `coalesce` that trusted `null_count` stopped early and
left nulls that Arrow fills. Dictionaries are the other way round: Arrow's
`coalesce` looks at the indices only, so an index pointing at a null dictionary
entry counts as a value (and stays null), although `is_null` calls it null.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["logical_null_count", "null_rows"]


def null_rows(value: pa.Array) -> pa.BooleanArray:
    """True where `coalesce` would look at the next argument."""
    if pa.types.is_dictionary(value.type):
        return pc.is_null(value.indices)
    return pc.is_null(value)


def logical_null_count(value: pa.Array) -> int:
    """The number of rows `null_rows` marks, without building the mask when it can."""
    t = value.type
    if not (pa.types.is_union(t) or pa.types.is_run_end_encoded(t)):
        return value.null_count  # for a dictionary: its null indices
    return len(value) - (pc.sum(pc.is_valid(value)).as_py() or 0)
