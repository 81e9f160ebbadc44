"""Speed: joins that compare float keys as Spark does (float_keys="normalized").

    python benchmarks/bench_float_keys.py --rows 1000000 --repeat 3

Two ratios, each measured in one run with the calls interleaved (CPU seconds, best of
`--repeat`):

- a normalized hash join against the same join comparing keys as IEEE does, over
  double keys with one NaN in 10,000 (NaN pairs grow with the square of their
  count): what mapping every NaN to one key costs;
- Spark's `a.k = b.k` over a cross join (`FROM a, b WHERE a.k = b.k` as the Spark
  import reads it, `a.k = b.k OR (is_nan(a.k) AND is_nan(b.k))`), optimized into a
  normalized hash join, against the filter over the cross product it was before, at
  `--cross-rows` and ten times fewer rows (the filter grows with the square).

Each pair's results are checked equal.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np
import pyarrow as pa
from timing import best_of_each

import toolkit as tk
from toolkit import plan
from toolkit.plan.float_keys import nan_equal


def _scans(rows: int):
    def table(seed):
        rng = np.random.default_rng(seed)
        keys = rng.integers(0, rows, rows).astype(np.float64)
        keys[rng.choice(rows, max(1, rows // 10_000), replace=False)] = np.nan
        return pa.table({"k": keys, "v": np.arange(rows)})

    return plan.scan("a", table(1)), plan.scan("b", table(2))


def _pairs(table: pa.Table) -> pa.Table:
    """The (a.v, b.v) row numbers of a join's rows, sorted (NaN keys compare unequal)."""
    pairs = pa.table({"av": table.column(1), "bv": table.column(3)})
    return pairs.sort_by([("av", "ascending"), ("bv", "ascending")])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)  # each side
    parser.add_argument("--cross-rows", type=int, default=4_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} (a shared machine: ratios, not times)")

    a, b = _scans(args.rows)
    plain = a.join(b, [("k", "k")], "inner").project(["a.v", "b.v"], names=["av", "bv"])
    normalized = a.join(b, [("k", "k")], "inner", float_keys="normalized").project(
        ["a.v", "b.v"], names=["av", "bv"])
    runs = [plan.create_physical_plan(p) for p in (plain, normalized)]
    ieee_s, norm_s = best_of_each([r.collect for r in runs], args.repeat,
                                  clock=time.process_time)
    nan_pairs = runs[1].collect().num_rows - runs[0].collect().num_rows
    print(f"hash join of {args.rows:,} x {args.rows:,} double keys: normalized "
          f"{norm_s:.3f}s, ieee {ieee_s:.3f}s CPU, ratio {norm_s / ieee_s:.2f} "
          f"(the normalized join also returns {nan_pairs:,} NaN pairs)")

    for rows in (args.cross_rows // 10, args.cross_rows):
        a, b = _scans(rows)
        q = a.join(b, how="cross").filter(nan_equal(tk.field("a.k"), tk.field("b.k")))
        keyed = plan.create_physical_plan(plan.optimize(q))
        crossed = plan.create_physical_plan(q, optimize=False)
        assert "float_keys=normalized" in keyed.explain()
        assert _pairs(keyed.collect()).equals(_pairs(crossed.collect()))
        key_s, cross_s = best_of_each([keyed.collect, crossed.collect], args.repeat,
                                      clock=time.process_time)
        print(f"Spark's = over a cross join, {rows:,} x {rows:,} rows: keyed {key_s:.3f}s, "
              f"cross product {cross_s:.3f}s CPU, ratio {cross_s / key_s:.1f}")


if __name__ == "__main__":
    main()
