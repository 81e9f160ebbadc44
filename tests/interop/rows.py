"""Query results as comparable rows: floats to 9 significant digits, sorted unless ordered.

Engines add floats in different orders (a sum or a mean may differ in the last
bits), and without an ORDER BY the order of rows is each engine's own.
"""

from __future__ import annotations

import math

import pyarrow as pa

__all__ = ["rows"]


def _value(v):
    if isinstance(v, float) and math.isfinite(v) and v != 0:
        return round(v, 8 - math.floor(math.log10(abs(v))))
    return v


def rows(table: pa.Table, ordered: bool = False) -> list[tuple]:
    out = [tuple(_value(v) for v in row.values()) for row in table.to_pylist()]
    return out if ordered else sorted(out, key=lambda row: [(v is None, str(v)) for v in row])
