"""How many rows a morsel of a given tree should have: enough to keep its intermediates in cache.

Cutting the data into morsels pays where a chain of kernels writes an
intermediate array and the next kernel reads it back: at 2 MB per array the
round trip stays in cache, at 8 MB (1M int64 rows) it goes through memory.
Cutting costs a fixed amount per kernel call and morsel (~6 us), the special
forms' bookkeeping per morsel, and the concatenation of the results. So the
size follows from the tree's widest intermediate, the value of a call that
another call consumes (leaves are read once, the root is written once):

- 8-byte intermediates (int64, double, timestamps): 2 MiB / 8 = 256K rows;
  4-byte ones: 512K rows;
- only boolean intermediates (comparisons under and/or: 128 KB per 1M rows),
  or no intermediate at all (`utf8_upper(s)`): not cut (1M-row pieces).

Cutting helps the arithmetic chain and would hurt the string function and
and/or chains (benchmarks/bench_evaluate.py; the figures are in docs/benchmarks.md).
"""

from __future__ import annotations

import pyarrow as pa

from ..model.expression import postorder

__all__ = [
    "MIN_MORSEL_ROWS",
    "MORSEL_BYTES",
    "VARIABLE_WIDTH_BYTES",
    "call_width",
    "intermediate_width",
    "morsel_rows",
    "rows_for_width",
    "type_width",
]

MORSEL_BYTES = 2 << 20  # per intermediate array: a core's share of the cache it streams through
MIN_MORSEL_ROWS = 1 << 16  # below this the fixed cost per kernel call outweighs the cache
VARIABLE_WIDTH_BYTES = 16  # strings, lists, structs: an offset and a short value per row


def intermediate_width(root) -> float:
    """Bytes per row of the widest intermediate of a bound tree (0.0 when it has none)."""
    return max((call_width(node) for node in postorder(root)
                if node.is_call and node is not root), default=0.0)


def call_width(node) -> float:
    """Bytes per row a call's value adds: none for `make_struct`, whose struct only points
    at its fields' arrays (a case_when's conditions: each is counted as itself)."""
    return 0.0 if node.name == "make_struct" else type_width(node.type)


def type_width(type_: pa.DataType | None) -> float:
    """Bytes per row a value of this type occupies (a bitmap row is 1/8 byte)."""
    if type_ is None:
        return VARIABLE_WIDTH_BYTES
    if pa.types.is_dictionary(type_):
        return type_width(type_.index_type)
    if pa.types.is_struct(type_):
        # its fields side by side: a case_when's 20 conditions are 20 bits a row, not the
        # 16 bytes of an unknown width (which halved the funnel's morsels and cost it 30%)
        return sum(type_width(type_.field(i).type) for i in range(type_.num_fields))
    try:
        return type_.bit_width / 8
    except ValueError:  # not fixed-width
        return VARIABLE_WIDTH_BYTES


def morsel_rows(root) -> int | None:
    """Rows per morsel for this tree, or None: do not cut (pieces of PIECE_ROWS)."""
    return rows_for_width(intermediate_width(root))


def rows_for_width(width: float) -> int | None:
    """Rows per morsel for a tree whose widest intermediate has `width` bytes per row."""
    if width == 0:
        return None
    return max(int(MORSEL_BYTES / width), MIN_MORSEL_ROWS)
