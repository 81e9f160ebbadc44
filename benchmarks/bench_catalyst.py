"""Stepping Catalyst rule by rule against Spark's own optimizer, on the 22 TPC-H queries.

    python benchmarks/bench_catalyst.py --scale 0.01 --repeat 3
    python benchmarks/bench_catalyst.py --queries 2 21 --chain 22

Per query, in the same run and the same JVM: Spark's own optimizer on the
optimizer's input (`executeAndTrack`, as `optimizedPlan` runs it), the stepped
optimizer with Spark's checks on every step (ratio to Spark's: the cost of
stepping), the whole `catalyst_steps` (analyzer, optimizer, physical
preparation, Spark's own run and the comparison), and drawing the steps that
changed the plan as SVG, all of them laid out by one `dot` run (`to_svgs`, as the
report draws them). Best of `--repeat` for the first three (the stepping timings
are taken inside one call, so Spark's and the stepper's share its moment);
drawing once. The plan does not depend on the data, so the scale only sets the
files' statistics. The load average is printed before and after: the machine
may be shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--queries", type=int, nargs="*", default=list(range(1, 23)))
    parser.add_argument("--chain", type=int, default=22,
                        help="also a join of this many relations (0: none)")
    args = parser.parse_args(argv)

    from toolkit import spark as tks
    from toolkit.render.svg import to_svgs
    from toolkit.spark import tpch
    from toolkit.spark import tpch_queries as Q

    spark = tks.session("local[2]", {"spark.sql.shuffle.partitions": "2"})
    Q.register_views(spark, tpch.tables(args.scale, names=Q.TABLES))
    queries = [(f"Q{n}", Q.sql(n)) for n in args.queries]
    if args.chain:
        queries.append((f"{args.chain}-join", Q.chain_join(args.chain)))
    tks.catalyst_steps(Q.sql(21))  # warm the JIT and py4j once
    print("load average (1, 5, 15 min): {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    print(f"{'query':>8} {'Spark opt ms':>13} {'stepped ms':>11} {'ratio':>6} "
          f"{'calls':>6} {'known':>6} {'steps':>6} {'whole s':>8} {'draw s':>7} "
          f"{'total s':>8}  plan")
    totals = [0.0, 0.0]
    for name, sql in queries:
        best = None
        for _ in range(args.repeat):
            started = time.perf_counter()
            trace = tks.catalyst_steps(sql)
            whole = time.perf_counter() - started
            run = (trace.spark_seconds, trace.optimizer_seconds, whole)
            best = run if best is None else tuple(min(a, b) for a, b in zip(best, run))
        started = time.perf_counter()
        to_svgs(trace.steps)
        draw = time.perf_counter() - started
        spark_s, stepped_s, whole_s = best
        totals[0] += spark_s
        totals[1] += stepped_s
        print(f"{name:>8} {spark_s * 1000:13.1f} {stepped_s * 1000:11.1f} "
              f"{stepped_s / spark_s:6.1f} {trace.rule_calls:6,} {trace.known_calls:6,} "
              f"{len(trace.steps):6} "
              f"{whole_s:8.2f} {draw:7.2f} {whole_s + draw:8.2f}  {trace.comparison.verdict}")
    print(f"{'all':>8} {totals[0] * 1000:13.1f} {totals[1] * 1000:11.1f} "
          f"{totals[1] / totals[0]:6.1f}")
    print("load average (1, 5, 15 min): {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
