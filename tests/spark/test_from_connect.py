"""tks.from_spark on Spark Connect: the protobuf plan of a Connect DataFrame or Column becomes
exprscope's, and exprscope computes from it what the Connect server computes.

The Connect server runs inside the test session's own JVM (started once, in ~0.2 s), and
the Connect client session lives beside the classic one without switching pyspark's
functions to Connect mode for the rest of the suite.
"""

from __future__ import annotations

import datetime
import math
import os
import socket

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan

pytestmark = pytest.mark.spark

TABLE = pa.table({
    "k": pa.array(["a", "b", "a", None, "b", "c"], pa.string()),
    "n": pa.array([1, 5, None, 3, -2, 8], pa.int64()),
    "x": pa.array([0.5, float("nan"), 2.0, None, -1.0, 4.0], pa.float64()),
    "s": pa.array(["apple", "banana", "avocado", "cherry", None, "apricot"], pa.string()),
})


@pytest.fixture(scope="module")
def remote(spark):
    """A Spark Connect session served by the classic test session's JVM."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sc = spark._jsc.sc()
    sc.conf().set("spark.connect.grpc.binding.port", str(port))
    sc.conf().set("spark.connect.grpc.binding.address", "127.0.0.1")
    spark._jvm.org.apache.spark.sql.connect.service.SparkConnectService.start(sc)
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    session = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ  # classic tests stay classic
    yield session
    session.stop()
    spark._jvm.org.apache.spark.sql.connect.service.SparkConnectService.stop(
        spark._jvm.scala.Option.empty(), spark._jvm.scala.Option.empty())


@pytest.fixture(scope="module")
def cdf(remote):
    return remote.createDataFrame(TABLE)


def _F():
    from pyspark.sql.connect import functions

    return functions


def _run_locally(p) -> pa.Table:
    return plan.create_physical_plan(plan.optimize(p)).collect()


def _same_rows(ours: pa.Table, theirs: pa.Table) -> None:
    assert ours.num_rows == theirs.num_rows
    assert ours.column_names == theirs.column_names
    for name in ours.column_names:
        a, b = ours.column(name).to_pylist(), theirs.column(name).to_pylist()
        for u, v in zip(a, b):
            if isinstance(u, float) and isinstance(v, float) and math.isnan(u):
                assert math.isnan(v), name
            else:
                assert u == v or (isinstance(u, float) and abs(u - v) < 1e-9), (name, a, b)


def test_a_connect_column_imports_and_computes_what_spark_computes(cdf):
    from toolkit import spark as tks

    F = _F()
    column = ((F.col("n") + 1 > 2) & F.col("s").like("a%")) | F.col("x").isNull()
    expr = tks.from_spark(column, cdf)
    assert expr.is_bound
    assert str(expr) == "(((add(n, 1) > 2) and match_like(s, {pattern=\"a%\", ignore_case=false}))" \
        " or is_null(x, {nan_is_null=false}))"
    ours = tk.evaluate(expr, TABLE).to_pylist()
    theirs = cdf.select(column.alias("r")).toArrow().column("r").to_pylist()
    assert ours == theirs


def test_a_connect_dataframe_with_case_when_imports_as_a_plan(cdf):
    from toolkit import spark as tks

    F = _F()
    # x < 3.0: Spark and Arrow agree on NaN here (x >= 0.5 would keep NaN in Spark only)
    query = (cdf.filter(F.col("n").isNotNull() & (F.col("x") < 3.0))
             .select("k", F.when(F.col("n") > 4, F.lit("big")).when(F.col("n") > 0, "small")
                     .otherwise("other").alias("size"),
                     (F.col("n") * 2).alias("twice"), F.coalesce(F.col("k"), F.lit("?")),
                     F.col("n").cast("double").alias("nd"), F.col("k").isin("a", "c").alias("ac"))
             .orderBy("twice"))
    p = tks.from_spark(query)
    assert isinstance(p, plan.LogicalPlan)
    _same_rows(_run_locally(p), query.toArrow())


def test_a_connect_aggregate_imports(cdf):
    from toolkit import spark as tks

    F = _F()
    query = (cdf.groupBy("k").agg(F.sum("n").alias("total"), F.avg("x").alias("mean_x"),
                                  F.count("*").alias("rows"), F.max("s").alias("last"))
             .orderBy("k"))
    _same_rows(_run_locally(tks.from_spark(query)), query.toArrow())


def test_connect_boolean_aggregates_and_percentiles_import(cdf):
    from toolkit import spark as tks

    F = _F()
    query = (cdf.groupBy("k").agg(
        F.count_if(F.col("n") > 1).alias("big"), F.bool_and(F.col("n") > 0).alias("pos"),
        F.bool_or(F.col("x").isNull()).alias("hole"), F.every(F.col("n") < 6).alias("small"),
        F.median("x").alias("m"), F.percentile("n", 0.25).alias("q1")).orderBy("k"))
    _same_rows(_run_locally(tks.from_spark(query)), query.toArrow())


def test_tpch_q6_written_for_spark_connect_imports_and_matches(remote):
    from toolkit import spark as tks
    from toolkit.spark import tpch

    F = _F()
    lineitem = remote.read.parquet(tpch.tables(0.01)["lineitem"])
    q6 = (lineitem.filter((F.col("l_shipdate") >= F.lit(datetime.date(1994, 1, 1)))
                          & (F.col("l_shipdate") < F.lit(datetime.date(1995, 1, 1)))
                          & F.col("l_discount").between(0.05, 0.07)
                          & (F.col("l_quantity") < 24))
          .agg(F.sum(F.col("l_extendedprice") * F.col("l_discount")).alias("revenue")))
    p = tks.from_spark(q6)
    ours = _run_locally(p).column("revenue")[0].as_py()
    theirs = q6.toArrow().column("revenue")[0].as_py()
    assert ours == pytest.approx(theirs, rel=1e-9) and theirs > 0


def test_classic_and_connect_importers_agree_on_an_unresolved_column(spark, remote):
    from pyspark.sql import functions as classic_F

    from toolkit import spark as tks

    F = _F()

    def build(fn):
        return (fn.col("n") * 2 + 1 >= 3) & ~fn.col("k").isNull()

    assert str(tks.from_spark(build(F))) == str(tks.from_spark(build(classic_F)))


# the window below has no partitioning on purpose: only its name in the error matters
@pytest.mark.filterwarnings("ignore:.*No Partition Defined for Window:UserWarning")
def test_unsupported_connect_nodes_are_named(cdf):
    from pyspark.sql.connect.window import Window

    from toolkit import spark as tks
    from toolkit.spark.errors import SparkImportError

    F = _F()
    with pytest.raises(SparkImportError, match="window") as info:
        tks.from_spark(cdf.select(F.row_number().over(Window.orderBy("n"))))
    assert info.value.spark_class == "window"
    with pytest.raises(SparkImportError, match="join"):
        tks.from_spark(cdf.join(cdf, "k"))
    with pytest.raises(SparkImportError, match="sha2"):
        tks.from_spark(cdf.select(F.sha2(F.col("s"), 256)))


def test_a_connect_max_of_doubles_is_nan_where_spark_says_so(cdf):
    """Spark's max is NaN in a group holding a NaN (Arrow's would skip it)."""
    from toolkit import spark as tks

    F = _F()
    query = cdf.groupBy("k").agg(F.max("x").alias("hi"), F.min("x").alias("lo")).orderBy("k")
    _same_rows(_run_locally(tks.from_spark(query)), query.toArrow())
    assert any(v != v for v in query.toArrow().column("hi").to_pylist() if v is not None)
