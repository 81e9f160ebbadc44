"""TPC-H data made by `tpchgen-cli`, cached as Parquet, and queries 1, 6, 12 and 14 as exprscope plans.

`tables(scale)` generates lineitem, orders and part once per scale factor into
`~/.cache/exprscope/tpch/sf<scale>/` (`EXPRSCOPE_CACHE` moves it). The money
columns are stored as float64 and strings as plain utf8: Arrow's decimal
arithmetic cannot hold Q1's charge (decimal(15,2) x decimal(16,2) x decimal(16,2)
needs precision 49 > 38, and Arrow refuses to round it away as Spark does), so
every engine here computes in double precision on the same numbers.

`query(n, sources)` builds the query as an exprscope logical plan over any
sources (Spark DataFrames, Parquet paths, pyarrow Tables); `spark_query(n, dfs)`
is the same query hand-written in PySpark, the yardstick for native mode.
"""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyarrow.types as pat

import toolkit as tk

from .. import plan
from .errors import SparkArgumentError

__all__ = ["ALL_TABLES", "QUERIES", "QUERY_TABLES", "cache_dir", "query", "spark_query", "tables"]

QUERIES = (1, 6, 12, 14)
QUERY_TABLES = {1: ("lineitem",), 6: ("lineitem",), 12: ("lineitem", "orders"),
                14: ("lineitem", "part")}
TABLES = ("lineitem", "orders", "part")
ALL_TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region",
              "supplier")


def cache_dir(scale: float) -> Path:
    root = Path(os.environ.get("EXPRSCOPE_CACHE", Path.home() / ".cache" / "exprscope"))
    return root / "tpch" / f"sf{scale:g}"


def _generator() -> str:
    """The tpchgen-cli next to this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / "tpchgen-cli"
    if beside.exists():
        return str(beside)
    found = shutil.which("tpchgen-cli")
    if found is None:
        raise FileNotFoundError("tpchgen-cli is not installed: pip install tpchgen-cli")
    return found


def tables(scale: float = 0.1, names=TABLES) -> dict[str, str]:
    """{table: parquet path}, generating (once) the tables not yet in the cache."""
    target = cache_dir(scale)
    target.mkdir(parents=True, exist_ok=True)
    missing = [n for n in names if not (target / f"{n}.parquet").exists()]
    if missing:
        with tempfile.TemporaryDirectory(dir=target) as raw:
            subprocess.run([_generator(), "parquet", "-s", f"{scale:g}", "--tables",
                            ",".join(missing), "-o", raw, "-q"], check=True)
            for name in missing:
                _normalize(Path(raw) / f"{name}.parquet", target / f"{name}.parquet")
    return {n: str(target / f"{n}.parquet") for n in names}


def _plain_type(t: pa.DataType) -> pa.DataType:
    if pat.is_decimal(t):
        return pa.float64()
    if pat.is_string_view(t) or pat.is_large_string(t):
        return pa.string()
    return t


def _normalize(source: Path, destination: Path) -> None:
    """Rewrite with float64 money and utf8 strings, streaming (sf1's lineitem is 6M rows)."""
    reader = pq.ParquetFile(source)
    schema = pa.schema([pa.field(f.name, _plain_type(f.type), f.nullable)
                        for f in reader.schema_arrow])
    partial = destination.with_suffix(".partial")
    with pq.ParquetWriter(partial, schema, compression="snappy") as writer:
        for batch in reader.iter_batches(batch_size=256 * 1024):
            writer.write_batch(batch.cast(schema))
    partial.replace(destination)


# -- the queries as exprscope plans --------------------------------------------------------------

def _date(text: str) -> tk.Literal:
    return tk.literal(pa.scalar(datetime.date.fromisoformat(text), pa.date32()))


def _f(name: str):
    return tk.field(name)


def _disc_price():
    return _f("l_extendedprice") * (tk.literal(1.0) - _f("l_discount"))


def query(n: int, sources: dict):
    """TPC-H query `n` (1, 6, 12 or 14) as an exprscope logical plan over `sources`."""
    if n not in QUERIES:
        raise SparkArgumentError(f"TPC-H query {n} is not among {QUERIES}")
    lineitem = plan.scan("lineitem", sources["lineitem"])
    if n == 1:
        charge = _disc_price() * (tk.literal(1.0) + _f("l_tax"))
        return (lineitem
                .filter(_f("l_shipdate") <= _date("1998-09-02"))
                .project([_f("l_returnflag"), _f("l_linestatus"), _f("l_quantity"),
                          _f("l_extendedprice"), _f("l_discount"), _disc_price(), charge],
                         names=["l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice",
                                "l_discount", "disc_price", "charge"])
                .aggregate(["l_returnflag", "l_linestatus"], [
                    ("sum", "l_quantity", "sum_qty"),
                    ("sum", "l_extendedprice", "sum_base_price"),
                    ("sum", "disc_price", "sum_disc_price"),
                    ("sum", "charge", "sum_charge"),
                    ("mean", "l_quantity", "avg_qty"),
                    ("mean", "l_extendedprice", "avg_price"),
                    ("mean", "l_discount", "avg_disc"),
                    ("count", None, "count_order")])
                .sort(["l_returnflag", "l_linestatus"]))
    if n == 6:
        return (lineitem
                .filter(tk.and_([_f("l_shipdate") >= _date("1994-01-01"),
                                 _f("l_shipdate") < _date("1995-01-01"),
                                 _f("l_discount") >= tk.literal(0.05),
                                 _f("l_discount") <= tk.literal(0.07),
                                 _f("l_quantity") < tk.literal(24.0)]))
                .project([_f("l_extendedprice") * _f("l_discount")], names=["revenue_part"])
                .aggregate([], [("sum", "revenue_part", "revenue")]))
    if n == 12:
        orders = plan.scan("orders", sources["orders"])
        priority = _f("o_orderpriority")
        urgent = tk.or_(priority == tk.literal("1-URGENT"), priority == tk.literal("2-HIGH"))
        not_urgent = tk.and_(priority != tk.literal("1-URGENT"), priority != tk.literal("2-HIGH"))
        one, zero = tk.literal(1, pa.int64()), tk.literal(0, pa.int64())
        items = lineitem.filter(tk.and_([
            _f("l_shipmode").isin(["MAIL", "SHIP"]),
            _f("l_commitdate") < _f("l_receiptdate"),
            _f("l_shipdate") < _f("l_commitdate"),
            _f("l_receiptdate") >= _date("1994-01-01"),
            _f("l_receiptdate") < _date("1995-01-01")]))
        return (orders.join(items, on=[("o_orderkey", "l_orderkey")])
                .project([_f("l_shipmode"),
                          tk.case_when([(urgent, one)], else_=zero),
                          tk.case_when([(not_urgent, one)], else_=zero)],
                         names=["l_shipmode", "high", "low"])
                .aggregate(["l_shipmode"], [("sum", "high", "high_line_count"),
                                            ("sum", "low", "low_line_count")])
                .sort(["l_shipmode"]))
    # n == 14
    part = plan.scan("part", sources["part"])
    promo = tk.call("match_like", [_f("p_type")], _like("PROMO%"))
    items = lineitem.filter(tk.and_(_f("l_shipdate") >= _date("1995-09-01"),
                                    _f("l_shipdate") < _date("1995-10-01")))
    return (items.join(part, on=[("l_partkey", "p_partkey")])
            .project([tk.case_when([(promo, _disc_price())], else_=tk.literal(0.0)),
                      _disc_price()], names=["promo", "revenue"])
            .aggregate([], [("sum", "promo", "promo_revenue"), ("sum", "revenue", "revenue")])
            .project([tk.literal(100.0) * _f("promo_revenue") / _f("revenue")],
                     names=["promo_revenue"]))


def _like(pattern: str):
    return pc.MatchSubstringOptions(pattern)


# -- the same queries hand-written in PySpark (the yardstick) --------------------------------------

def spark_query(n: int, dfs: dict):
    """TPC-H query `n` written directly with the DataFrame API, as a Spark user would."""
    from pyspark.sql import functions as F

    li = dfs["lineitem"]
    disc_price = F.col("l_extendedprice") * (1 - F.col("l_discount"))
    if n == 1:
        return (li.filter(F.col("l_shipdate") <= F.lit(datetime.date(1998, 9, 2)))
                .groupBy("l_returnflag", "l_linestatus")
                .agg(F.sum("l_quantity").alias("sum_qty"),
                     F.sum("l_extendedprice").alias("sum_base_price"),
                     F.sum(disc_price).alias("sum_disc_price"),
                     F.sum(disc_price * (1 + F.col("l_tax"))).alias("sum_charge"),
                     F.avg("l_quantity").alias("avg_qty"),
                     F.avg("l_extendedprice").alias("avg_price"),
                     F.avg("l_discount").alias("avg_disc"),
                     F.count(F.lit(1)).alias("count_order"))
                .orderBy("l_returnflag", "l_linestatus"))
    if n == 6:
        return (li.filter((F.col("l_shipdate") >= F.lit(datetime.date(1994, 1, 1)))
                          & (F.col("l_shipdate") < F.lit(datetime.date(1995, 1, 1)))
                          & F.col("l_discount").between(0.05, 0.07)
                          & (F.col("l_quantity") < 24))
                .agg(F.sum(F.col("l_extendedprice") * F.col("l_discount")).alias("revenue")))
    if n == 12:
        urgent = F.col("o_orderpriority").isin("1-URGENT", "2-HIGH")
        items = li.filter(F.col("l_shipmode").isin("MAIL", "SHIP")
                          & (F.col("l_commitdate") < F.col("l_receiptdate"))
                          & (F.col("l_shipdate") < F.col("l_commitdate"))
                          & (F.col("l_receiptdate") >= F.lit(datetime.date(1994, 1, 1)))
                          & (F.col("l_receiptdate") < F.lit(datetime.date(1995, 1, 1))))
        return (dfs["orders"].join(items, F.col("o_orderkey") == F.col("l_orderkey"))
                .groupBy("l_shipmode")
                .agg(F.sum(F.when(urgent, 1).otherwise(0)).alias("high_line_count"),
                     F.sum(F.when(~urgent, 1).otherwise(0)).alias("low_line_count"))
                .orderBy("l_shipmode"))
    if n == 14:
        items = li.filter((F.col("l_shipdate") >= F.lit(datetime.date(1995, 9, 1)))
                          & (F.col("l_shipdate") < F.lit(datetime.date(1995, 10, 1))))
        joined = items.join(dfs["part"], F.col("l_partkey") == F.col("p_partkey"))
        return joined.agg(
            (100.0 * F.sum(F.when(F.col("p_type").like("PROMO%"), disc_price).otherwise(0.0))
             / F.sum(disc_price)).alias("promo_revenue"))
    raise SparkArgumentError(f"TPC-H query {n} is not among {QUERIES}")
