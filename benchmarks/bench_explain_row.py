"""Explaining one row costs about a one-row evaluation, not a full one.

    python benchmarks/bench_explain_row.py               # 5,000,000 rows
    python benchmarks/bench_explain_row.py --rows 1000000

Three ratios, each against a peer timed in the same run (best of N, interleaved):

- `tk.explain_row` of a row near the end of the table through a 30-node expression
  (if_else, case_when, coalesce, and/or, arithmetic, a cast) against one full
  `tk.evaluate` of that expression. Target: at most 0.1.
- A predicate lookup (`tk.explain_row(..., "k = <value>")`: the matching rows found
  and the first one explained) against pyarrow's own `Table.filter` with the same
  predicate on that column. Target: at most 2.
- The lookup alone (`explain.rows.pick_rows`) against the same filter.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from timing import best_of_each

import toolkit as tk
from toolkit.explain.rows import pick_rows

EXPR = ("if_else(a != 0, b / a, 0) + coalesce(c, a * 2) > 10 "
        "and (case when b > 100 then a * 1.5 when c < 0 then 0.0 else b - 1.0 end) < 500")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.rows
    rng = np.random.default_rng(7)
    a = rng.integers(-5, 50, n)
    c = rng.integers(-100, 100, n).astype(float)
    c[rng.random(n) < 0.1] = np.nan
    table = pa.table({"a": pa.array(a, mask=rng.random(n) < 0.05),
                      "b": pa.array(rng.integers(0, 1000, n)),
                      "c": pa.array(c, from_pandas=True),
                      "k": pa.array(np.arange(n, dtype=np.int64))})
    expr = tk.parse(EXPR).bind(table.schema)
    row = n - 17
    story = tk.explain_row(expr, table, row)
    assert story.value == tk.evaluate(expr, table)[row]
    full, one = best_of_each([lambda: tk.evaluate(expr, table),
                              lambda: tk.explain_row(expr, table, row)], args.repeat)
    key = int(n - 5)
    pyarrow_filter = pc.field("k") == key
    look, filt, pick = best_of_each([
        lambda: tk.explain_row(expr, table, f"k = {key}"),
        lambda: table.filter(pyarrow_filter),
        lambda: pick_rows(table, f"k = {key}")], args.repeat)
    print(f"{n:,} rows, a {len(story.nodes)}-node expression, row {row:,}")
    print(f"full tk.evaluate            {full * 1e3:9.1f} ms")
    print(f"tk.explain_row (one row)    {one * 1e3:9.1f} ms   ratio {one / full:.3f} "
          "(target <= 0.1)")
    print(f"pyarrow Table.filter        {filt * 1e3:9.1f} ms")
    print(f"explain_row by predicate    {look * 1e3:9.1f} ms   ratio {look / filt:.2f} "
          "(target <= 2)")
    print(f"row lookup alone            {pick * 1e3:9.1f} ms   ratio {pick / filt:.2f}")


if __name__ == "__main__":
    main()
