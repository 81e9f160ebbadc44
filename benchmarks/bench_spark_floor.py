"""The floor of engine mode on Spark: what moving the rows into Python costs alone.

    python benchmarks/bench_spark_floor.py --query 6 --batch-rows 262144
    python benchmarks/bench_spark_floor.py --query 1 --batch-rows 65536 262144

For a TPC-H query at scale 1, the best of `--repeat` runs of: native mode; the
floor, a `mapInArrow` that only counts the rows of the columns the query reads
as engine mode reads them (the Python workers read lineitem's Parquet row
groups themselves, `parquet_scan.py`; nothing is computed); the JVM floor, the
same count over Spark's own read (every scanned row crosses from the JVM to
Python, as engine mode's scans did before the workers read the files, and as
its scans of anything but plain Parquet files still do); and engine mode.
"floor / native" is the least any engine working in Python pays without
filtering first; docs/benchmarks.md (Spark section) uses it.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from timing import best_of_each

COLUMNS = {
    1: ["l_shipdate", "l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice",
        "l_discount", "l_tax"],
    6: ["l_shipdate", "l_discount", "l_quantity", "l_extendedprice"],
    14: ["l_shipdate", "l_partkey", "l_extendedprice", "l_discount"],
}


def row_counter(reader):
    """A `mapInArrow` function counting the rows (read through `reader` when not None)."""

    def count_rows(batches):
        import pyarrow as pa

        n = 0
        for batch in (batches if reader is None else reader(batches)):
            n += batch.num_rows
        yield pa.RecordBatch.from_pydict({"n": [n]})

    return count_rows


def _worker_floor(df, spark):
    """The count over the rows of `df` as the Python workers read them (engine mode's path)."""
    from toolkit.spark.running.parquet_scan import UnitsReader, WorkerScan, plan_worker_scan
    from toolkit.spark.running.source import SparkSource

    schema = SparkSource(df).schema
    path = plan_worker_scan(df, list(schema.names), schema, spark)
    if not isinstance(path, WorkerScan):
        raise SystemExit(f"the workers would not read these files: {path.reason}")
    rows = int(spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch"))
    parts = len(path.partitions)
    return spark.range(0, parts, 1, parts), UnitsReader(path, schema, rows)


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
    print(f"{'batch rows':>10}{'native s':>10}{'floor s':>10}{'jvm floor s':>13}"
          f"{'engine s':>10}{'floor/native':>14}{'jvm floor/native':>18}{'engine/native':>15}")
    for rows in args.batch_rows:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(rows))
        ids, reader = _worker_floor(lineitem, spark)
        native, floor, jvm_floor, engine = best_of_each([
            lambda: tks.run(tpch.query(args.query, frames), mode="native").to_arrow(),
            lambda ids=ids, reader=reader: ids.mapInArrow(row_counter(reader),
                                                          counted).toArrow(),
            lambda: lineitem.mapInArrow(row_counter(None), counted).toArrow(),
            lambda: tks.run(tpch.query(args.query, frames), mode="engine", trace=False,
                            validation="debug").to_arrow()], args.repeat)
        print(f"{rows:>10}{native:>10.2f}{floor:>10.2f}{jvm_floor:>13.2f}{engine:>10.2f}"
              f"{floor / native:>14.2f}{jvm_floor / native:>18.2f}{engine / native:>15.2f}"
              f"  load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
