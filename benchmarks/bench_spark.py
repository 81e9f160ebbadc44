"""Speed: the 22 TPC-H queries on Spark, native mode vs Spark itself, engine mode vs native.

    python benchmarks/bench_spark.py                       # all 22 at scale 1
    python benchmarks/bench_spark.py --scale 0.1 --repeat 1 --queries 1 6

For each query of `tpch_sql.SQL` (data from `tpchgen-cli`, cached as Parquet,
read through temp views as a Spark user would), imported once with
`tks.from_spark(spark.sql(text))`, the best of `--repeat` runs of:

- spark: `spark.sql(text).toArrow()`, the query as its user runs it;
- native: `tks.run(plan, mode="native")`, exprscope's optimizer, then DataFrame
  operations run by Spark;
- engine: `tks.run(plan, mode="engine")`, exprscope's physical plan inside
  `mapInArrow` (no tracing, invariant checks on each node's first batch); its
  scans of plain Parquet files are read by the Python workers (parquet_scan.py);
- jvm: engine mode with `worker_scans=False`, every scan read by Spark's JVM and
  converted to Arrow for Python (engine mode before the worker scans);
- floor: what engine mode pays before computing anything: every scan whose
  rows engine mode hands to Python (read by the workers, or pre-filtered by
  Spark as engine mode does) into a `mapInArrow` that only counts them.
  Engine / native cannot go below floor / native with exprscope's engine in
  Python.

Each query's five runs are interleaved round by round, so warm-up and slow
stretches hit all alike (Spark runs the query once before, untimed). The first
native and engine results are checked equal to Spark's rows. Targets: native / spark near 1, engine / native at most 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_spark_floor import row_counter
from timing import best_of_each

from toolkit.spark.running.compare import tables_differences


def _floor(scans: list):
    """A run that moves the rows of every scan in `scans` (ScanInputs, filled by the engine
    run) into Python and counts them, nothing else: one Spark job, as engine mode's stages
    are."""
    from functools import reduce

    from pyspark.sql.types import LongType, StructField, StructType

    counted = StructType([StructField("n", LongType())])
    return lambda: reduce(lambda a, b: a.union(b), [
        scan.df.mapInArrow(row_counter(scan.reader), counted) for scan in scans]).toArrow()


class _Checked:
    """A timed run whose first result is checked equal to Spark's rows."""

    def __init__(self, run, expected, what: str):
        self.run, self.expected, self.what = run, expected, what
        self.last = None

    def __call__(self):
        self.last = self.run()
        if self.expected is not None:
            got = self.last.to_arrow()
            check = tables_differences(self.expected, got, rel_tol=1e-9, abs_tol=1e-6)
            assert check.equal, f"{self.what}: {check}"
            self.expected = None
        else:
            self.last.to_arrow()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--queries", type=int, nargs="*", default=list(range(1, 23)))
    parser.add_argument("--batch-rows", type=int, default=262_144,
                        help="spark.sql.execution.arrow.maxRecordsPerBatch")
    parser.add_argument("--master", default="local[*]")
    args = parser.parse_args(argv)

    from toolkit import spark as tks
    from toolkit.spark import tpch, tpch_sql

    started = time.perf_counter()
    paths = tpch.tables(args.scale, tpch.ALL_TABLES)
    print(f"TPC-H sf{args.scale:g} ready in {time.perf_counter() - started:.1f} s "
          f"({tpch.cache_dir(args.scale)})")
    spark = tks.session(args.master)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(args.batch_rows))
    print(f"Spark {spark.version}, master {spark.sparkContext.master}, "
          f"{spark.sparkContext.defaultParallelism} cores, {args.batch_rows} rows per "
          f"Arrow batch, best of {args.repeat}, load average {_load()} at start")
    tpch_sql.register_views(spark, paths)
    print(f"{'query':<6}{'spark s':>9}{'native s':>10}{'engine s':>10}{'jvm s':>8}"
          f"{'floor s':>9}{'native/spark':>14}{'engine/native':>15}{'jvm/native':>12}"
          f"{'floor/native':>14}{'load':>7}")
    ratios = []
    for number in args.queries:
        text = tpch_sql.SQL[number]
        imported = tks.from_spark(spark.sql(text))
        expected = spark.sql(text).toArrow()  # Spark's own rows, and its warm-up
        native = _Checked(lambda: tks.run(imported, mode="native"), expected,
                          f"Q{number} native")
        engine = _Checked(lambda: tks.run(imported, mode="engine", trace=False,
                                          validation="debug"), expected, f"Q{number} engine")
        jvm = _Checked(lambda: tks.run(imported, mode="engine", trace=False,
                                       validation="debug", worker_scans=False), expected,
                       f"Q{number} engine, JVM scans")
        scans: list = []
        try:
            times = best_of_each([
                lambda: spark.sql(text).toArrow(),
                native,
                lambda: (engine(), scans.__setitem__(slice(None), engine.last.scans)),
                jvm,
                _floor(scans)], args.repeat)
        except Exception as exc:  # one query's failure is reported, the others still run
            print(f"Q{number:<5}failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}",
                  flush=True)
            continue
        t_spark, t_native, t_engine, t_jvm, t_floor = times
        ratios.append(t_engine / t_native)
        print(f"Q{number:<5}{t_spark:>9.2f}{t_native:>10.2f}{t_engine:>10.2f}{t_jvm:>8.2f}"
              f"{t_floor:>9.2f}{t_native / t_spark:>14.2f}{t_engine / t_native:>15.2f}"
              f"{t_jvm / t_native:>12.2f}{t_floor / t_native:>14.2f}{_load():>7}", flush=True)
    if ratios:
        print(f"engine/native: worst {max(ratios):.2f}, "
              f"{sum(r <= 2 for r in ratios)} of {len(ratios)} at most 2")


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


if __name__ == "__main__":
    main()
