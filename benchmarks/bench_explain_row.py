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

And a join journey on TPC-H (`--tpch-scale 1`, the data `toolkit.spark.tpch` generates
and caches): customer, orders and lineitem joined (Q3's joins and filters, one row per
line), the journey of one customer row and of one lineitem row against one full run
of the same plan (optimized, as a user would run it), in the same run. Target: seconds.
Then Q3 itself (that, grouped per order, sorted, the top 10): the journey of a line of
the first order, through the aggregate, the sort and the limit, against a full run.

    python benchmarks/bench_explain_row.py --tpch-scale 1 --rows 0   # the join part only
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
from toolkit import plan
from toolkit.explain.rows import pick_rows

EXPR = ("if_else(a != 0, b / a, 0) + coalesce(c, a * 2) > 10 "
        "and (case when b > 100 then a * 1.5 when c < 0 then 0.0 else b - 1.0 end) < 500")


TPCH_COLUMNS = {
    "customer": ["c_custkey", "c_name", "c_mktsegment"],
    "orders": ["o_orderkey", "o_custkey", "o_orderdate", "o_shippriority"],
    "lineitem": ["l_orderkey", "l_linenumber", "l_extendedprice", "l_discount", "l_shipdate"],
}


def tpch_join_plan(tables: dict):
    """Q3's joins and filters, one row per line (no aggregate)."""
    import datetime

    day = tk.literal(pa.scalar(datetime.date(1995, 3, 15)))
    return (plan.scan("customer", tables["customer"])
            .join(plan.scan("orders", tables["orders"]), on=[("c_custkey", "o_custkey")])
            .join(plan.scan("lineitem", tables["lineitem"]), on=[("o_orderkey", "l_orderkey")])
            .filter(tk.and_(tk.field("c_mktsegment") == "BUILDING",
                            tk.field("o_orderdate") < day, tk.field("l_shipdate") > day))
            .project(["c_name", "o_orderkey", "l_linenumber",
                      tk.field("l_extendedprice") * (1 - tk.field("l_discount"))],
                     names=["c_name", "o_orderkey", "l_linenumber", "revenue"]))


def tpch_q3_plan(tables: dict):
    """TPC-H Q3: the joins and filters above, then revenue per order, the top 10."""
    return (tpch_join_plan(tables).children[0]
            .aggregate(["l_orderkey", "o_orderdate", "o_shippriority"],
                       [("sum", tk.field("l_extendedprice") * (1 - tk.field("l_discount")),
                         "revenue")])
            .sort([("revenue", "descending"), ("o_orderdate", "ascending")])
            .limit(10))


def bench_join_journey(scale: float, repeat: int) -> None:
    import pyarrow.parquet as pq

    from toolkit.spark import tpch

    paths = tpch.tables(scale, tuple(TPCH_COLUMNS))
    tables = {n: pq.read_table(paths[n], columns=c) for n, c in TPCH_COLUMNS.items()}
    p = tpch_join_plan(tables)
    optimized = plan.optimize(p)
    line = tables["lineitem"].num_rows - 3  # a line near the end, and its order's customer
    order = pc.index(tables["orders"]["o_orderkey"], tables["lineitem"]["l_orderkey"][line])
    custkey = tables["orders"]["o_custkey"][order.as_py()]
    customer = pc.index(tables["customer"]["c_custkey"], custkey).as_py()
    result = plan.create_physical_plan(optimized).collect()
    journeys = [p.explain_row("customer", customer), p.explain_row("lineitem", line)]
    full, one, two = best_of_each([
        lambda: plan.create_physical_plan(optimized).collect(),
        lambda: p.explain_row("customer", customer),
        lambda: p.explain_row("lineitem", line)], repeat)
    print(f"TPC-H scale {scale:g}: customer {tables['customer'].num_rows:,}, orders "
          f"{tables['orders'].num_rows:,}, lineitem {tables['lineitem'].num_rows:,} rows; "
          f"the plan gives {result.num_rows:,} rows; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"full run (optimized plan)       {full * 1e3:9.1f} ms")
    for name, seconds, journey in [(f"customer row {customer:,}", one, journeys[0]),
                                   (f"lineitem row {line:,}", two, journeys[1])]:
        reads = ", ".join(f"{r.relation} {r.rows:,}" for r in journey.reads)
        print(f"journey of {name:<20} {seconds * 1e3:9.1f} ms   ratio {seconds / full:.3f}"
              f"   rows read: {reads}")
        print(f"    {journey.why[:160]}")
    q3 = tpch_q3_plan(tables)
    q3_optimized = plan.optimize(q3)
    kept = tables["lineitem"]  # a line of an order in Q3's top 10
    top = plan.create_physical_plan(q3_optimized).collect()
    top_line = pc.index(kept["l_orderkey"], top.column(0)[0]).as_py()
    q3_journey = q3.explain_row("lineitem", top_line)
    q3_full, q3_one = best_of_each([
        lambda: plan.create_physical_plan(q3_optimized).collect(),
        lambda: q3.explain_row("lineitem", top_line)], repeat)
    print(f"Q3 full run (optimized plan)    {q3_full * 1e3:9.1f} ms")
    print(f"Q3 journey of lineitem row {top_line:,}  {q3_one * 1e3:9.1f} ms   ratio "
          f"{q3_one / q3_full:.3f}")
    print(f"    {q3_journey.why[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tpch-scale", type=float, default=None,
                        help="also time a join journey on TPC-H at this scale factor")
    args = parser.parse_args()
    if args.tpch_scale is not None:
        bench_join_journey(args.tpch_scale, args.repeat)
    if args.rows <= 0:
        return
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
