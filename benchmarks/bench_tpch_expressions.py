"""Speed on real data: the expressions of the TPC-H queries, exprscope against its peers.

    python benchmarks/bench_tpch_expressions.py                         # scale 1, cached data
    python benchmarks/bench_tpch_expressions.py --data /work/tpch-sf1   # Parquet files there
    python benchmarks/bench_tpch_expressions.py --scale 0.1 --repeat 3  # a quick run
    python benchmarks/bench_tpch_expressions.py --only Q19              # shapes naming Q19
    python benchmarks/bench_tpch_expressions.py --only "Q19,Q6 filter"  # naming either
    python benchmarks/bench_tpch_expressions.py --as-written --cpu      # see below

Each shape is one expression of a TPC-H query (a filter, a computed column, a
`case when`), over the table it reads: lineitem for most, orders, part,
customer, supplier, and lineitem joined with part for Q14 and Q19 (joined once,
before timing, as the query's join would hand the rows over). The tables are read
from Parquet into memory once (`--data DIR` holds `<table>.parquet` as the cache
holds them; without it, `toolkit.spark.tpch.tables` generates them with
`tpchgen-cli` into its cache, strings as plain strings and money as doubles).

Every engine takes the same in-memory Arrow table and returns Arrow, with two
threads, as `bench_peers.py` runs them: exprscope lazy (on the tree
`tk.optimize` gives, as the guide runs it) and eager, Acero, DuckDB, DataFusion,
Polars (those installed). Interleaved rounds in a new random order each, best of
`--repeat`. Printed per shape: milliseconds per engine, then peer / exprscope
lazy (above 1: exprscope is faster); at the end the geometric mean of each
engine's ratios. A shape an engine cannot run shows as "-".

`--as-written`: exprscope evaluates the parsed text itself, not `tk.optimize`'s tree
(what `tk.evaluate(text, table)` does: its own preparation only). `--cpu`: CPU time
of the process (every thread's) instead of wall time: the work each call costs, which
a loaded machine disturbs far less than the wall clock.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from bench_peers import THREADS, Engines
from timing import best_of_each

import toolkit as tk


class Shape(NamedTuple):
    """One expression of a query: the table it reads, exprscope's text and the SQL text
    (a dict {"*": text, engine: text} where an engine spells it its own way)."""

    table: str
    text: str
    sql: object


# the columns each table is read with (what the shapes below use)
COLUMNS = {
    "lineitem": ["l_partkey", "l_quantity", "l_extendedprice", "l_discount", "l_tax",
                 "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
                 "l_receiptdate", "l_shipinstruct", "l_shipmode"],
    "orders": ["o_orderdate", "o_orderpriority", "o_orderstatus", "o_comment"],
    "part": ["p_partkey", "p_name", "p_type", "p_brand", "p_container", "p_size"],
    "customer": ["c_phone", "c_acctbal", "c_mktsegment"],
    "supplier": ["s_comment"],
}

_Q19_TERMS = [("Brand#12", "'SM CASE', 'SM BOX', 'SM PACK', 'SM PKG'", 1, 11, 5),
              ("Brand#23", "'MED BAG', 'MED BOX', 'MED PKG', 'MED PACK'", 10, 20, 10),
              ("Brand#34", "'LG CASE', 'LG BOX', 'LG PACK', 'LG PKG'", 20, 30, 15)]
Q19 = " or ".join(
    f"(p_brand = '{brand}' and p_container in ({containers}) and l_quantity >= {low} "
    f"and l_quantity <= {high} and p_size between 1 and {size} "
    "and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')"
    for brand, containers, low, high, size in _Q19_TERMS)
Q12_LINES = ("l_shipmode in ('MAIL', 'SHIP') and l_commitdate < l_receiptdate "
             "and l_shipdate < l_commitdate and l_receiptdate >= date '1994-01-01' "
             "and l_receiptdate < date '1995-01-01'")
Q6_FILTER = ("l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01' "
             "and l_discount between 0.05 and 0.07 and l_quantity < 24")


SHAPES: dict[str, Shape] = {
    "Q1 filter": Shape("lineitem", "l_shipdate <= date '1998-09-02'",
                       "l_shipdate <= date '1998-09-02'"),
    "Q1 disc_price": Shape("lineitem", "l_extendedprice * (1 - l_discount)",
                           "l_extendedprice * (1 - l_discount)"),
    "Q1 charge (issue)": Shape("lineitem", "l_extendedprice * (1 - l_discount) * (1 + l_tax)",
                               "l_extendedprice * (1 - l_discount) * (1 + l_tax)"),
    "Q1 flag = 'R' and status = 'F'": Shape(
        "lineitem", "l_returnflag = 'R' and l_linestatus = 'F'",
        "l_returnflag = 'R' AND l_linestatus = 'F'"),
    "Q3 c_mktsegment = 'BUILDING'": Shape("customer", "c_mktsegment = 'BUILDING'",
                                          "c_mktsegment = 'BUILDING'"),
    "Q3 l_shipdate > date": Shape("lineitem", "l_shipdate > date '1995-03-15'",
                                  "l_shipdate > date '1995-03-15'"),
    "Q4 o_orderdate in a quarter": Shape(
        "orders", "o_orderdate >= date '1993-07-01' and o_orderdate < date '1993-10-01'",
        "o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-10-01'"),
    "Q4 commit < receipt": Shape("lineitem", "l_commitdate < l_receiptdate",
                                 "l_commitdate < l_receiptdate"),
    "Q6 filter (issue)": Shape("lineitem", Q6_FILTER, Q6_FILTER),
    "Q6 revenue": Shape("lineitem", "l_extendedprice * l_discount",
                        "l_extendedprice * l_discount"),
    "Q6 if(filter, revenue, 0)": Shape(
        "lineitem", f"if({Q6_FILTER}, l_extendedprice * l_discount, 0.0)",
        f"CASE WHEN {Q6_FILTER} THEN l_extendedprice * l_discount ELSE 0.0 END"),
    "Q7 year(l_shipdate)": Shape(
        "lineitem", "year(l_shipdate)",
        {"*": "extract(year from l_shipdate)", "polars": "date_part('year', l_shipdate)"}),
    "Q10 l_returnflag = 'R'": Shape("lineitem", "l_returnflag = 'R'", "l_returnflag = 'R'"),
    "Q10 if(flag = 'R', price*(1-disc))": Shape(
        "lineitem", "if(l_returnflag = 'R', l_extendedprice * (1 - l_discount), 0.0)",
        "CASE WHEN l_returnflag = 'R' THEN l_extendedprice * (1 - l_discount) ELSE 0.0 END"),
    "Q12 lineitem filter": Shape("lineitem", Q12_LINES, Q12_LINES),
    "Q12 high line (case when)": Shape(
        "orders",
        "case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end",
        "CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END"),
    "Q12 low line (case when)": Shape(
        "orders",
        "case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' "
        "then 1 else 0 end",
        "CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' "
        "THEN 1 ELSE 0 END"),
    "Q12 mode = MAIL or SHIP (case when)": Shape(
        "lineitem",
        "case when l_shipmode = 'MAIL' or l_shipmode = 'SHIP' then 1 else 0 end",
        "CASE WHEN l_shipmode = 'MAIL' OR l_shipmode = 'SHIP' THEN 1 ELSE 0 END"),
    "Q13 o_comment not like": Shape("orders", "o_comment not like '%special%requests%'",
                                    "o_comment NOT LIKE '%special%requests%'"),
    "Q14 promo revenue (case when)": Shape(
        "lineitem_part",
        "case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0.0 end",
        "CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0.0 END"),
    "Q16 part filter": Shape(
        "part",
        "p_brand <> 'Brand#45' and p_type not like 'MEDIUM POLISHED%' "
        "and p_size in (49, 14, 23, 45, 19, 3, 36, 9)",
        "p_brand <> 'Brand#45' AND p_type NOT LIKE 'MEDIUM POLISHED%' "
        "AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)"),
    "Q16 s_comment like": Shape("supplier", "s_comment like '%Customer%Complaints%'",
                                "s_comment LIKE '%Customer%Complaints%'"),
    "Q17 brand and container": Shape("part",
                                     "p_brand = 'Brand#23' and p_container = 'MED BOX'",
                                     "p_brand = 'Brand#23' AND p_container = 'MED BOX'"),
    "Q19 filter (or of ands)": Shape("lineitem_part", Q19, Q19),
    "Q20 p_name like 'forest%'": Shape("part", "p_name like 'forest%'",
                                       "p_name LIKE 'forest%'"),
    "Q21 receipt > commit": Shape("lineitem", "l_receiptdate > l_commitdate",
                                  "l_receiptdate > l_commitdate"),
    "Q22 country code in (...)": Shape(
        "customer", "substring(c_phone, 1, 2) in ('13', '31', '23', '29', '30', '18', '17')",
        {"*": "substring(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')",
         "datafusion": "substr(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')",
         "polars": "substr(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')"}),
    "Q22 c_acctbal > 0": Shape("customer", "c_acctbal > 0.0", "c_acctbal > 0.0"),
}


def parquet_paths(data: str | None, scale: float, names) -> dict[str, str]:
    """{table: Parquet path}: the files in `data`, else the cache `tpch.tables` fills."""
    if data is None:
        from toolkit.spark import tpch
        return tpch.tables(scale, list(names))
    folder = Path(data)
    paths = {n: folder / f"{n}.parquet" for n in names}
    missing = [str(p) for p in paths.values() if not p.exists()]
    if missing:
        sys.exit(f"--data {data}: missing {', '.join(missing)}; run without --data, and "
                 "`toolkit.spark.tpch.tables` generates them into its cache with plain "
                 "strings and doubles (tpchgen-cli's own files hold string views, which "
                 "Acero cannot join)")
    return {n: str(p) for n, p in paths.items()}


def load(paths: dict[str, str], wanted: set[str]) -> dict[str, pa.Table]:
    """The tables the chosen shapes read, in memory (lineitem joined with part if asked)."""
    bases = {"lineitem", "part"} if "lineitem_part" in wanted else set()
    out = {n: pq.read_table(paths[n], columns=COLUMNS[n]) for n in wanted | bases
           if n in COLUMNS}
    if "lineitem_part" in wanted:
        joined = out["lineitem"].join(out["part"], keys="l_partkey", right_keys="p_partkey")
        out["lineitem_part"] = joined.combine_chunks()
    return out


def geometric_mean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None,
                        help="a folder of <table>.parquet (default: the generated cache)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="without --data: the scale factor to generate or read")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="",
                        help="run the shapes whose name contains this (or any of a,b,...)")
    parser.add_argument("--as-written", action="store_true",
                        help="exprscope evaluates the parsed text, not tk.optimize's tree")
    parser.add_argument("--cpu", action="store_true",
                        help="time in CPU seconds of the process (all threads), not wall")
    args = parser.parse_args(argv)
    pa.set_cpu_count(THREADS)
    wanted_names = args.only.split(",")
    chosen = {k: s for k, s in SHAPES.items() if any(w in k for w in wanted_names)}
    wanted = {s.table for s in chosen.values()}
    files = {"lineitem", "part"} if "lineitem_part" in wanted else set()
    tables = load(parquet_paths(args.data, args.scale, (wanted | files) - {"lineitem_part"}),
                  wanted)
    where = args.data or f"scale {args.scale:g} (generated cache)"
    print(f"pyarrow {pa.__version__}, {os.cpu_count()} CPUs, TPC-H {where}: "
          + ", ".join(f"{n} {t.num_rows:,} rows" for n, t in sorted(tables.items()))
          + " (the machine may be shared: compare ratios, not milliseconds); load average "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    engines = {name: Engines(tables[name]) for name in sorted(wanted)}
    names = next(iter(engines.values())).names
    print(f"{'shape':<38} {'table':<14}" + "".join(f"{n:>11}" for n in names))
    ratios: dict[str, list[float]] = {n: [] for n in names}
    for name, shape in chosen.items():
        table = tables[shape.table]
        runners = engines[shape.table].runners(shape.text, shape.sql, table)
        optimized = tk.parse(shape.text) if args.as_written else \
            tk.optimize(tk.parse(shape.text), table.schema)
        # every exprscope column runs the same tree (the peers' columns are by position)
        lazy, fused, eager = (names.index(n) for n in ("lazy", "fused", "eager"))
        runners[lazy] = lambda o=optimized, t=table: tk.evaluate(o, t, mode="lazy")
        if runners[fused] is not None:
            runners[fused] = lambda o=optimized, t=table: tk.evaluate(o, t, fuse=True)
        if runners[eager] is not None:
            runners[eager] = lambda o=optimized, t=table: tk.evaluate(o, t, mode="eager")
            assert runners[lazy]().equals(runners[eager]()), f"{name}: lazy and eager differ"
        live = [r for r in runners if r is not None]
        times = iter(best_of_each(live, args.repeat, shuffle=True,
                                  clock=time.process_time if args.cpu else time.perf_counter))
        best = [next(times) * 1e3 if r is not None else None for r in runners]
        print(f"{name:<38} {shape.table:<14}"
              + "".join(f"{t:>9.1f}ms" if t is not None else f"{'-':>11}" for t in best))
        cells = []
        for engine, t in zip(names, best):
            if t is None:
                cells.append(f"{'-':>11}")
                continue
            ratios[engine].append(t / best[0])
            cells.append(f"{t / best[0]:>11.2f}")
        print(f"{'  peer / exprscope lazy':<52}" + "".join(cells), flush=True)
    means = [geometric_mean(ratios[n]) for n in names]
    print(f"{'geometric mean of peer / lazy':<52}"
          + "".join(f"{m:>11.2f}" if m is not None else f"{'-':>11}" for m in means))
    print(f"(ms{' of CPU' if args.cpu else ''} per call, best of {args.repeat} interleaved "
          f"rounds, two threads each; exprscope on "
          f"{'the text as written' if args.as_written else 'tk.optimize tree'}; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
