"""CPU time of the costly and failing branch shapes, one thread each: exprscope against
Polars and DuckDB.

    python benchmarks/bench_branch_cpu.py                # 2M rows, every "branch" shape
    python benchmarks/bench_branch_cpu.py --only costly  # shapes whose name has "costly"

On a shared machine wall times of two-thread runs move by a third between identical
calls; CPU time of one thread per engine is the steadier figure. exprscope runs lazily,
fused (`fuse=True`, the default's steady state), in the caller's thread only
(`parallel.serial()`); Polars with POLARS_MAX_THREADS=1 (set before it is imported),
DuckDB with `SET threads TO 1`. Printed: CPU ms per call, median of `--repeat`
interleaved rounds, and each peer over exprscope (above 1: exprscope does less work).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ["POLARS_MAX_THREADS"] = "1"
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from bench_peers import _sql_for, make_table, shapes

import toolkit as tk
from toolkit.execution import fused_kernels
from toolkit.execution.parallel import serial


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--only", default="branch")
    args = parser.parse_args(argv)
    import duckdb
    import polars

    table = make_table(args.rows)
    frames = polars.SQLContext(t=polars.from_arrow(table))
    duck = duckdb.connect()
    duck.execute("SET threads TO 1")
    duck.register("t", table)
    print(f"{args.rows:,} rows, one thread each, CPU ms (median of {args.repeat}); "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'shape':<26} {'exprscope':>9} {'polars':>8} {'ratio':>6} {'duckdb':>8} {'ratio':>6}")
    for name, (text, sql) in shapes().items():
        if args.only not in name or "string" in name:
            continue
        bound = tk.bind(tk.parse(text), table.schema)
        polars_sql = f"SELECT {_sql_for(sql, 'polars')} AS out FROM t"
        duck_sql = f"SELECT {_sql_for(sql, 'duckdb')} AS out FROM t"
        runs = [lambda bound=bound: tk.evaluate(bound, table, mode="lazy", fuse=True),
                lambda q=polars_sql: frames.execute(q, eager=True).to_arrow(),
                lambda q=duck_sql: duck.sql(q).to_arrow_table()]
        seen: list[list[float]] = [[] for _ in runs]
        with serial():
            for run in runs:
                run()
            fused_kernels.settle()
            for _ in range(args.repeat):
                for run, times in zip(runs, seen):
                    started = time.process_time()
                    run()
                    times.append(time.process_time() - started)
        ours, pol, duc = (statistics.median(t) * 1e3 for t in seen)
        print(f"{name:<26} {ours:>9.2f} {pol:>8.2f} {pol / ours:>6.2f} {duc:>8.2f} "
              f"{duc / ours:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
