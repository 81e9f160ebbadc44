"""How many values are null as Arrow's kernels see them, not as the validity bitmap says.

Unions have no validity bitmap (a value is null when its child's value is);
run-end-encoded arrays keep their nulls in the values child; a dictionary
array's value is null when its index is null or points at a null entry. For
these `Array.null_count` undercounts (a union's is always 0), so a lazy form
that trusted it would stop early and leave nulls Arrow fills.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["logical_null_count"]


def logical_null_count(value: pa.Array) -> int:
    """The number of null values, counting the nulls no validity bitmap shows."""
    t = value.type
    hidden = (pa.types.is_union(t) or pa.types.is_run_end_encoded(t)
              or (pa.types.is_dictionary(t) and value.dictionary.null_count > 0))
    if not hidden:
        return value.null_count
    return len(value) - (pc.sum(pc.is_valid(value)).as_py() or 0)
