"""A table of numbers with nulls everywhere (and strings, when asked), in chunks: what the
tracing tests of codes and samples made on read evaluate over."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def nulls_table(rows: int, seed: int, chunks: int = 3, strings: bool = False) -> pa.Table:
    rng = np.random.default_rng(seed)
    columns = {
        "k": pa.array(rng.integers(0, 1000, rows), mask=rng.random(rows) < 0.1),
        "a": pa.array(rng.integers(-5, 6, rows)),
        "b": pa.array(rng.random(rows) * 100, mask=rng.random(rows) < 0.3),
        "x": pa.array(rng.random(rows), mask=rng.random(rows) < 0.5),
    }
    if strings:
        columns["s"] = pa.array(rng.choice(["ab", "Cd", None], rows))
    table = pa.table(columns)
    return pa.Table.from_batches(table.to_batches(max_chunksize=-(-rows // chunks)))
