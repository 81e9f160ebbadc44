"""Speed: exact percentiles per group, and first_value / last_value over window frames.

    python benchmarks/bench_percentile.py --rows 2000000 --groups 1000 --repeat 3

Ratios, each measured in one run with the calls interleaved (CPU seconds of the
process, best of `--repeat`):

- a plan's `percentile(x, 0.5)` (a lexsort of each group's values) against the same
  plan's `mean(x)` (Arrow's hash kernel), and against DuckDB's `quantile_cont(x, 0.5)`
  on one thread, over doubles with one null in ten;
- `first_value(x IGNORE NULLS)` over a sliding ROWS frame against `max(x)` over the
  same frame (both in exprscope's window kernels).

Each percentile is checked equal to DuckDB's.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import duckdb
import numpy as np
import pyarrow as pa
from timing import best_of_each

from toolkit import plan


def _table(rows: int, groups: int) -> pa.Table:
    rng = np.random.default_rng(7)
    x = rng.normal(0.0, 1000.0, rows)
    nulls = rng.random(rows) < 0.1
    return pa.table({"g": rng.integers(0, groups, rows), "id": np.arange(rows),
                     "x": pa.array(x, mask=nulls)})


def _run(p) -> pa.Table:
    return plan.create_physical_plan(plan.optimize(p)).collect()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--groups", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} (a shared machine: ratios, not times)")
    table = _table(args.rows, args.groups)
    scan = plan.scan("t", table)
    median = scan.aggregate(["g"], [("percentile", "x", "m", 0.5)])
    mean = scan.aggregate(["g"], [("mean", "x", "m")])
    con = duckdb.connect()
    con.execute("SET threads TO 1")
    con.register("t", table)
    sql = "SELECT g, quantile_cont(x, 0.5) AS m FROM t GROUP BY g"

    ours = _run(median).sort_by("g").column("m").to_pylist()
    theirs = con.sql(sql).to_arrow_table().sort_by("g").column("m").to_pylist()
    assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(ours, theirs))

    t_median, t_mean, t_duck = best_of_each(
        [lambda: _run(median), lambda: _run(mean), lambda: con.sql(sql).to_arrow_table()],
        args.repeat, shuffle=True, clock=time.process_time)
    print(f"percentile(x, 0.5), {args.rows:,} rows, {args.groups:,} groups: {t_median:.3f}s; "
          f"mean(x) {t_mean:.3f}s (ratio {t_median / t_mean:.2f}); DuckDB quantile_cont on "
          f"one thread {t_duck:.3f}s (ratio {t_median / t_duck:.2f})")

    def window(func: str, ignore: bool):
        return scan.window([{"func": func, "arg": "x", "partition_by": ["g"],
                             "order_by": ["id"], "frame": ("rows", -50, 50),
                             "ignore_nulls": ignore}], ["w"])

    first, peak = window("first_value", True), window("max", False)
    t_first, t_max = best_of_each([lambda: _run(first), lambda: _run(peak)], args.repeat,
                                  shuffle=True, clock=time.process_time)
    print(f"first_value(x IGNORE NULLS) over ROWS BETWEEN 50 PRECEDING AND 50 FOLLOWING: "
          f"{t_first:.3f}s; max(x) over the same frame {t_max:.3f}s "
          f"(ratio {t_first / t_max:.2f})")


if __name__ == "__main__":
    main()
