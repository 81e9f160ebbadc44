"""DISTINCT aggregates beside others, as Spark's RewriteDistinctAggregates computes them.

`groupBy(g).agg(sum(n), countDistinct(s), sum_distinct(m))` needs each distinct
argument's values once per group and every row for the others. Spark's optimizer
copies each input row once per distinct argument and once more for the plain
aggregates (an Expand), tagged with a group id; exprscope's import writes the same:

1. the copies, a UNION ALL of projections of the input: the group keys (`_group0`
   ...), the copy's id (`_gid`: 0 for the plain aggregates, j for the j-th distinct
   argument), each distinct argument (`_d1` ...) in its own copy and null in the
   others, each plain aggregate's argument (`_a0` ...) in copy 0 and null elsewhere;
2. an aggregate by the keys, `_gid` and every `_d`: copy 0's groups compute the plain
   aggregates over all of a group's rows, copy j's groups are the distinct values of
   the j-th argument;
3. an aggregate by the keys: a plain aggregate's value is the one its copy-0 group
   computed, the only one not null (the other copies carry no argument), taken by
   `max` (a count's other copies count 0: `sum`); a distinct one is the same
   aggregate over `_dj`, null in every row but its distinct values. count(*) counts
   a `true` that only copy 0 carries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import pyarrow as pa

import toolkit as tk

__all__ = ["GID", "ROWS_COUNTED", "CopiedArgument", "copied_rows", "distinct_column",
           "final_function", "group_column", "plain_column"]

GID = "_gid"


def group_column(i: int) -> str:
    return f"_group{i}"


def distinct_column(j: int) -> str:
    """The j-th distinct argument's column (j from 1: copy 0 holds the plain ones)."""
    return f"_d{j}"


def plain_column(i: int) -> str:
    return f"_a{i}"


class CopiedArgument(NamedTuple):
    """An aggregate argument over the input, and its type (for the nulls of the copies
    that do not carry it)."""

    value: tk.Expression
    type: pa.DataType


ROWS_COUNTED = CopiedArgument(tk.literal(True), pa.bool_())  # count(*)'s argument


def copied_rows(input_plan, keys: Sequence[tk.Expression],
                distinct: Sequence[CopiedArgument], plain: Sequence[CopiedArgument | None]):
    """The UNION ALL of 1 + len(distinct) projections of `input_plan` (step 1): keys,
    `_gid`, `_d1..`, `_a0..`."""
    names = [group_column(i) for i in range(len(keys))] + [GID]
    names += [distinct_column(j + 1) for j in range(len(distinct))]
    names += [plain_column(i) for i in range(len(plain))]
    copies = []
    for copy in range(len(distinct) + 1):
        columns = [*keys, tk.literal(pa.scalar(copy, pa.int32()))]
        columns += [d.value if copy == j + 1 else _null(d.type) for j, d in enumerate(distinct)]
        columns += [p.value if copy == 0 else _null(p.type) for p in plain]
        copies.append(input_plan.project(columns, names=names))
    return copies[0].union(*copies[1:])


def final_function(func: str) -> str:
    """Step 3's aggregate over the copies' values of a plain aggregate `func`."""
    return "sum" if func == "count" else "max"


def _null(data_type: pa.DataType) -> tk.Expression:
    return tk.literal(pa.scalar(None, data_type))
