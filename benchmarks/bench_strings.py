"""Speed of string comparisons against literals on TPC-H lineitem, against the peers.

    python benchmarks/bench_strings.py               # scale 1: 6,001,215 rows
    python benchmarks/bench_strings.py --scale 0.1   # a quick run
    python benchmarks/bench_strings.py --only mode   # shapes whose name contains "mode"

lineitem comes from `tpchgen-cli` (cached as Parquet by toolkit.spark.tpch), is
read into memory once, and every engine takes the same Arrow table: exprscope
(lazy and eager, on the tree `tk.optimize` gives, as the guide runs it), Acero (Arrow's own kernels), DuckDB, DataFusion and Polars, as
`bench_peers.py` runs them (two threads, interleaved rounds, best of `--repeat`).
A last column, `arrow kernel`, times Arrow's one comparison kernel alone where the
shape is one comparison. Ratios: peer / exprscope lazy (above 1: exprscope faster).
"""

from __future__ import annotations

import argparse
import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_peers import THREADS, Engines
from timing import best_of_each

import toolkit as tk
from toolkit.spark import tpch

SHAPES = {
    "l_shipmode = 'MAIL'": (
        "l_shipmode = 'MAIL'", "l_shipmode = 'MAIL'",
        lambda t: pc.equal(t["l_shipmode"], "MAIL")),
    "l_shipmode != 'MAIL'": (
        "l_shipmode != 'MAIL'", "l_shipmode <> 'MAIL'",
        lambda t: pc.not_equal(t["l_shipmode"], "MAIL")),
    "mode = MAIL or mode = SHIP": (
        "l_shipmode = 'MAIL' or l_shipmode = 'SHIP'",
        "l_shipmode = 'MAIL' OR l_shipmode = 'SHIP'", None),
    "case when mode or mode (issue)": (
        "case when l_shipmode = 'MAIL' or l_shipmode = 'SHIP' then 1 else 0 end",
        "CASE WHEN l_shipmode = 'MAIL' OR l_shipmode = 'SHIP' THEN 1 ELSE 0 END", None),
    "if(flag = 'R', price*(1-disc))": (
        "if(l_returnflag = 'R', l_extendedprice * (1 - l_discount), 0.0)",
        "CASE WHEN l_returnflag = 'R' THEN l_extendedprice * (1 - l_discount) ELSE 0.0 END",
        None),
    "mode in ('MAIL', 'SHIP')": (
        "l_shipmode in ('MAIL', 'SHIP')", "l_shipmode IN ('MAIL', 'SHIP')",
        lambda t: pc.is_in(t["l_shipmode"], pa.array(["MAIL", "SHIP"]))),
    "starts_with(instruct, 'DELIVER')": (
        "starts_with(l_shipinstruct, 'DELIVER')",
        {"*": "starts_with(l_shipinstruct, 'DELIVER')",
         "duckdb": "starts_with(l_shipinstruct, 'DELIVER')",
         "datafusion": "starts_with(l_shipinstruct, 'DELIVER')",
         "polars": "l_shipinstruct LIKE 'DELIVER%'"},
        lambda t: pc.starts_with(t["l_shipinstruct"], "DELIVER")),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    pa.set_cpu_count(THREADS)
    columns = ["l_returnflag", "l_shipmode", "l_shipinstruct", "l_extendedprice", "l_discount"]
    table = pq.read_table(tpch.tables(args.scale, ["lineitem"])["lineitem"], columns=columns)
    print(f"pyarrow {pa.__version__}, {os.cpu_count()} CPUs, lineitem at scale {args.scale:g}: "
          f"{table.num_rows:,} rows in {table.column(0).num_chunks} chunks "
          "(the machine may be shared: compare ratios, not milliseconds)")
    engines = Engines(table)
    names = engines.names + ["arrow kernel"]
    print(f"{'shape':<34} " + " ".join(f"{n:>12}" for n in names))
    for name, (text, sql, kernel) in SHAPES.items():
        if args.only not in name:
            continue
        runners = engines.runners(text, sql, table)
        # exprscope runs the tree as a user does: optimized (one set lookup for an or-chain)
        optimized = tk.optimize(tk.parse(text), table.schema)
        runners[0] = lambda: tk.evaluate(optimized, table, mode="lazy")
        runners[1] = lambda: tk.evaluate(optimized, table, mode="eager")
        runners.append((lambda k=kernel: k(table)) if kernel is not None else None)
        lazy, eager = runners[0](), runners[1]() if runners[1] else None
        if eager is not None:
            assert lazy.equals(eager), f"{name}: lazy and eager differ"
        live = [r for r in runners if r is not None]
        times = iter(best_of_each(live, args.repeat, shuffle=True))
        best = [next(times) * 1e3 if r is not None else None for r in runners]
        print(f"{name:<34} " + " ".join(f"{t:>10.1f}ms" if t is not None else f"{'-':>12}"
                                         for t in best))
        ratios = [f"{t / best[0]:>12.2f}" if t is not None else f"{'-':>12}" for t in best]
        print(f"{'  peer / lazy':<34} " + " ".join(ratios), flush=True)
    print(f"(best of {args.repeat} interleaved rounds)")


if __name__ == "__main__":
    main()
