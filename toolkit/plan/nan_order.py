"""Floats sorted in SQL's order: NaN above every number, and equal to itself.

Arrow's sort kernels put NaN beside the nulls, at whichever end the null placement
names, so a descending sort lists NaN after every number and an ascending one with
nulls first lists it before them. Spark, DuckDB, DataFusion and PostgreSQL all order
NaN above every number (first when descending, last when ascending), whatever the
nulls do, and the plan's sorts and window orders follow them. A float key therefore
sorts as two: whether the value is NaN (in the key's direction, so NaN comes after the
numbers ascending and before them descending; a null's is null, so the nulls stay
where the key places them), then the value itself, whose NaN are all equal by then.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["SortColumn", "sql_sort_columns"]


class SortColumn(NamedTuple):
    """One sort key's values and how they are ordered."""

    values: pa.Array | pa.ChunkedArray
    ascending: bool
    nulls_first: bool


def sql_sort_columns(keys: Sequence[SortColumn]) -> list[SortColumn]:
    """The keys Arrow sorts by to give SQL's order of `keys`: each float key preceded
    by whether it is NaN."""
    out = []
    for key in keys:
        if pa.types.is_floating(key.values.type) and pc.any(pc.is_nan(key.values)).as_py():
            out.append(SortColumn(pc.is_nan(key.values), key.ascending, key.nulls_first))
        out.append(key)
    return out
