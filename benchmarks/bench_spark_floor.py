"""The floor of engine mode on Spark: what moving the rows into Python costs alone.

    python benchmarks/bench_spark_floor.py --query 6 --batch-rows 262144
    python benchmarks/bench_spark_floor.py --query 1 --batch-rows 65536 262144

For a TPC-H query at scale 1, the best of `--repeat` runs of: native mode; a
`mapInArrow` over the columns the query reads that only counts the rows (every
scanned row crosses from the JVM to Python, nothing is computed); and engine
mode. "floor / native" is the least any engine working in Python pays without
Spark filtering first; docs/benchmarks.md (Spark section) uses it.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from timing import best_of

COLUMNS = {
    1: ["l_shipdate", "l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice",
        "l_discount", "l_tax"],
    6: ["l_shipdate", "l_discount", "l_quantity", "l_extendedprice"],
    14: ["l_shipdate", "l_partkey", "l_extendedprice", "l_discount"],
}


def _count_rows(batches):
    import pyarrow as pa

    n = 0
    for batch in batches:
        n += batch.num_rows
    yield pa.RecordBatch.from_pydict({"n": [n]})


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--query", type=int, choices=sorted(COLUMNS), default=6)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-rows", type=int, nargs="*", default=[262_144])
    args = parser.parse_args(argv)

    from pyspark.sql.types import LongType, StructField, StructType

    from toolkit import spark as tks
    from toolkit.spark import tpch

    spark = tks.session()
    frames = {n: spark.read.parquet(p) for n, p in tpch.tables(args.scale).items()}
    lineitem = frames["lineitem"].select(*COLUMNS[args.query])
    counted = StructType([StructField("n", LongType())])
    print(f"TPC-H Q{args.query} sf{args.scale:g}: {len(COLUMNS[args.query])} columns")
    print(f"{'batch rows':>10}{'native s':>10}{'floor s':>10}{'engine s':>10}"
          f"{'floor/native':>14}{'engine/native':>15}")
    for rows in args.batch_rows:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(rows))
        native = best_of(lambda: tks.run(tpch.query(args.query, frames), mode="native")
                         .to_arrow(), args.repeat)
        floor = best_of(lambda: lineitem.mapInArrow(_count_rows, counted).toArrow(), args.repeat)
        engine = best_of(lambda: tks.run(tpch.query(args.query, frames), mode="engine",
                                         trace=False, validation="debug").to_arrow(),
                         args.repeat)
        print(f"{rows:>10}{native:>10.2f}{floor:>10.2f}{engine:>10.2f}"
              f"{floor / native:>14.2f}{engine / native:>15.2f}", flush=True)


if __name__ == "__main__":
    main()
