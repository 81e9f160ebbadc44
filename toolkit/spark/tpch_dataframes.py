"""TPC-H queries in PySpark's DataFrame API, written as a Spark user writes them.

`DATAFRAME_QUERIES[n](tables)` builds query `n` over {table name: DataFrame}
(`tpch_sql.register_views` gives them): joins by column equality, by name,
semi joins for EXISTS and IN, a left join with a non-equality in its
condition (Q13). Queries 1, 6, 12 and 14 are `tpch.spark_query`'s.
"""

from __future__ import annotations

import datetime

from .tpch import spark_query

__all__ = ["DATAFRAME_QUERIES"]


def _f():
    from pyspark.sql import functions as F

    return F


def _revenue():
    F = _f()
    return F.col("l_extendedprice") * (1 - F.col("l_discount"))


def q3(t):
    F = _f()
    customers = t["customer"].filter(F.col("c_mktsegment") == "BUILDING")
    orders = t["orders"].filter(F.col("o_orderdate") < F.lit(datetime.date(1995, 3, 15)))
    items = t["lineitem"].filter(F.col("l_shipdate") > F.lit(datetime.date(1995, 3, 15)))
    return (customers.join(orders, F.col("c_custkey") == F.col("o_custkey"))
            .join(items, F.col("l_orderkey") == F.col("o_orderkey"))
            .groupBy("l_orderkey", "o_orderdate", "o_shippriority")
            .agg(F.sum(_revenue()).alias("revenue"))
            .orderBy(F.col("revenue").desc(), "o_orderdate")
            .limit(10))


def q4(t):
    F = _f()
    orders = t["orders"].filter((F.col("o_orderdate") >= F.lit(datetime.date(1993, 7, 1)))
                                & (F.col("o_orderdate") < F.lit(datetime.date(1993, 10, 1))))
    late = t["lineitem"].filter(F.col("l_commitdate") < F.col("l_receiptdate"))
    return (orders.join(late, F.col("o_orderkey") == F.col("l_orderkey"), "left_semi")
            .groupBy("o_orderpriority").agg(F.count("*").alias("order_count"))
            .orderBy("o_orderpriority"))


def q5(t):
    F = _f()
    asia = t["region"].filter(F.col("r_name") == "ASIA")
    orders = t["orders"].filter((F.col("o_orderdate") >= F.lit(datetime.date(1994, 1, 1)))
                                & (F.col("o_orderdate") < F.lit(datetime.date(1995, 1, 1))))
    nations = t["nation"].join(asia, F.col("n_regionkey") == F.col("r_regionkey"))
    suppliers = t["supplier"].join(nations, F.col("s_nationkey") == F.col("n_nationkey"))
    return (t["customer"].join(orders, F.col("c_custkey") == F.col("o_custkey"))
            .join(t["lineitem"], F.col("l_orderkey") == F.col("o_orderkey"))
            .join(suppliers, (F.col("l_suppkey") == F.col("s_suppkey"))
                  & (F.col("c_nationkey") == F.col("s_nationkey")))
            .groupBy("n_name").agg(F.sum(_revenue()).alias("revenue"))
            .orderBy(F.col("revenue").desc()))


def q10(t):
    F = _f()
    orders = t["orders"].filter((F.col("o_orderdate") >= F.lit(datetime.date(1993, 10, 1)))
                                & (F.col("o_orderdate") < F.lit(datetime.date(1994, 1, 1))))
    returned = t["lineitem"].filter(F.col("l_returnflag") == "R")
    nation = t["nation"].withColumnRenamed("n_nationkey", "c_nationkey")
    return (t["customer"].join(nation, "c_nationkey")
            .join(orders, F.col("c_custkey") == F.col("o_custkey"))
            .join(returned, F.col("l_orderkey") == F.col("o_orderkey"))
            .groupBy("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address",
                     "c_comment")
            .agg(F.sum(_revenue()).alias("revenue"))
            .orderBy(F.col("revenue").desc())
            .limit(20))


def q13(t):
    F = _f()
    orders = t["orders"]
    counts = (t["customer"]
              .join(orders, (F.col("c_custkey") == F.col("o_custkey"))
                    & ~F.col("o_comment").like("%special%requests%"), "left")
              .groupBy("c_custkey").agg(F.count("o_orderkey").alias("c_count")))
    return (counts.groupBy("c_count").agg(F.count("*").alias("custdist"))
            .orderBy(F.col("custdist").desc(), F.col("c_count").desc()))


def q18(t):
    F = _f()
    big = (t["lineitem"].groupBy("l_orderkey").agg(F.sum("l_quantity").alias("total"))
           .filter(F.col("total") > 300))
    orders = t["orders"].join(big, F.col("o_orderkey") == F.col("l_orderkey"), "left_semi")
    return (t["customer"].join(orders, F.col("c_custkey") == F.col("o_custkey"))
            .join(t["lineitem"], F.col("o_orderkey") == F.col("l_orderkey"))
            .groupBy("c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice")
            .agg(F.sum("l_quantity").alias("sum_quantity"))
            .orderBy(F.col("o_totalprice").desc(), "o_orderdate")
            .limit(100))


def _tpch(n):
    return lambda t: spark_query(n, t)


DATAFRAME_QUERIES = {1: _tpch(1), 3: q3, 4: q4, 5: q5, 6: _tpch(6), 10: q10, 12: _tpch(12),
                     13: q13, 14: _tpch(14), 18: q18}
