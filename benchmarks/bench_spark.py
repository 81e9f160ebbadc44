"""Speed: TPC-H on Spark, native mode vs hand-written PySpark, engine mode vs native.

    python benchmarks/bench_spark.py                       # scale 1, as the issue asks
    python benchmarks/bench_spark.py --scale 0.1 --repeat 1

For each of Q1, Q6, Q12 and Q14 (data from `tpchgen-cli`, cached as Parquet):
the best of `--repeat` runs of the query hand-written in PySpark, of
`tks.run(q, mode="native")` (exprscope's optimizer, then DataFrame operations)
and of `tks.run(q, mode="engine")` (exprscope's physical plan inside
`mapInArrow`, no tracing, invariant checks on each node's first batch), each
collected to Arrow; PySpark and native runs interleaved, so warm-up and slow
stretches hit both alike. Results are checked equal first. Engine mode is timed for
each `--batch-rows` value of `spark.sql.execution.arrow.maxRecordsPerBatch`.
Targets: native / PySpark within 1.05; engine / native within 3.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from timing import best_of, best_of_each


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--queries", type=int, nargs="*", default=[1, 6, 12, 14])
    parser.add_argument("--batch-rows", type=int, nargs="*", default=[10_000, 65_536, 262_144])
    parser.add_argument("--master", default="local[*]")
    args = parser.parse_args(argv)

    from toolkit import spark as tks
    from toolkit.spark import tpch
    from toolkit.spark.running.compare import tables_differences

    started = time.perf_counter()
    paths = tpch.tables(args.scale)
    print(f"TPC-H sf{args.scale:g} ready in {time.perf_counter() - started:.1f} s "
          f"({tpch.cache_dir(args.scale)})")
    spark = tks.session(args.master)
    print(f"Spark {spark.version}, master {spark.sparkContext.master}, "
          f"{spark.sparkContext.defaultParallelism} cores")
    frames = {name: spark.read.parquet(path) for name, path in paths.items()}
    header = (f"{'query':<6}{'pyspark s':>10}{'native s':>10}{'native/pyspark':>16}"
              f"{'batch rows':>12}{'engine s':>10}{'engine/native':>15}")
    print(header)
    for number in args.queries:
        p = tpch.query(number, frames)
        handwritten = tpch.spark_query(number, frames)
        native_table = tks.run(p, mode="native").to_arrow()
        check = tables_differences(native_table, handwritten.toArrow()
                                   .rename_columns(native_table.schema.names)
                                   .cast(native_table.schema))
        assert check.equal, str(check)
        # a fresh DataFrame per run: re-running one would reuse its materialized shuffle stages (AQE)
        # interleaved, so warm-up and slow stretches hit both alike
        t_pyspark, t_native = best_of_each(
            [lambda n=number: tpch.spark_query(n, frames).toArrow(),
             lambda p=p: tks.run(p, mode="native").to_arrow()], args.repeat)
        for rows in args.batch_rows:
            spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(rows))

            def engine(p=p):
                return tks.run(p, mode="engine", trace=False, validation="debug").to_arrow()

            result = tables_differences(native_table, engine())
            assert result.equal, str(result)
            t_engine = best_of(engine, args.repeat)
            print(f"Q{number:<5}{t_pyspark:>10.2f}{t_native:>10.2f}{t_native / t_pyspark:>16.2f}"
                  f"{rows:>12}{t_engine:>10.2f}{t_engine / t_native:>15.2f}", flush=True)


if __name__ == "__main__":
    main()
