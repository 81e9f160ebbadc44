"""Speed: engine mode's join rule against every join broadcast, on TPC-H queries.

    python benchmarks/bench_spark_joins.py --scale 1 --repeat 2 --queries 4 2

Each query of `tpch_sql.SQL`, imported once with `tks.from_spark`, runs in engine
mode twice per round, interleaved: with the session's
`spark.exprscope.broadcastThreshold` at Spark's own default 10 MB (a right input above
it, once measured, is shuffled: `toolkit/spark/running/shuffled_join.py`) and at 8 GB (every join with keys but right and full ones broadcast). Best
of `--repeat`; each rule's result is checked equal to Spark's rows once. Prints which
strategy each join took under the rule and why.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from timing import best_of_each

from toolkit.spark.running.compare import tables_differences

THRESHOLDS = {"rule": "10MB", "broadcast": "8GB"}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--queries", type=int, nargs="*", default=[2, 3, 4, 11])
    args = parser.parse_args(argv)

    from toolkit import spark as tks
    from toolkit.spark import tpch, tpch_sql

    spark = tks.session()
    tpch_sql.register_views(spark, tpch.tables(args.scale, tpch.ALL_TABLES))
    print(f"TPC-H sf{args.scale:g}, best of {args.repeat}, load average {_load()} at start")
    print(f"{'query':<6}{'rule s':>9}{'broadcast s':>13}{'rule/broadcast':>16}{'load':>7}")
    for number in args.queries:
        text = tpch_sql.SQL[number]
        imported = tks.from_spark(spark.sql(text))
        expected = spark.sql(text).toArrow()
        stages: dict = {}
        runs = [partial(_engine_run, spark, imported, expected, name, stages)
                for name in ("rule", "broadcast")]
        try:
            t_rule, t_broadcast = best_of_each(runs, args.repeat)
        finally:
            spark.conf.set("spark.exprscope.broadcastThreshold", THRESHOLDS["rule"])
        print(f"Q{number:<5}{t_rule:>9.2f}{t_broadcast:>13.2f}{t_rule / t_broadcast:>16.2f}"
              f"{_load():>7}", flush=True)
        for stage in stages["rule"]:
            for part in stage.split("; "):
                if "HashJoinExec" in part:
                    join = part[part.index("HashJoinExec"):]
                    how = join.find(" shuffled") if " shuffled" in join else join.find(" with")
                    print(f"      {join[:70]} ...{join[how:][:200]}")


def _engine_run(spark, imported, expected, name: str, stages: dict) -> None:
    """One engine-mode run under the named threshold; the first checked against Spark."""
    from toolkit import spark as tks

    spark.conf.set("spark.exprscope.broadcastThreshold", THRESHOLDS[name])
    result = tks.run(imported, mode="engine", trace=False)
    got = result.to_arrow()
    if name not in stages:
        check = tables_differences(expected, got, rel_tol=1e-9, abs_tol=1e-6)
        assert check.equal, f"{name}: {check}"
    stages[name] = result.stages


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


if __name__ == "__main__":
    main()
