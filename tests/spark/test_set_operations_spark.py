"""INTERSECT / EXCEPT, ROLLUP / CUBE / GROUPING SETS, dropna and the ntile /
percent_rank / cume_dist windows imported from Spark at
both stages, run in both modes over Spark's own rows (nulls, NaN, -0.0, repeated rows),
against Spark's rows and DuckDB's; the shapes exprscope cannot express are refused
naming the Spark node."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from tests.spark.collected import Collected
from toolkit import plan

pytestmark = pytest.mark.spark

NAN = float("nan")
LEFT = pa.table({"k": pa.array([1, None, 2, 3, 1, 4, None], pa.int64()),
                 "x": pa.array([1.0, None, NAN, -0.0, 1.0, 2.5, 7.0]),
                 "s": pa.array(["a", None, "b", "c", "a", None, "z"])})
RIGHT = pa.table({"k": pa.array([1, None, 2, 4, 3, 9], pa.int64()),
                  "x": pa.array([1.0, None, NAN, 0.0, 0.0, 2.5]),
                  "s": pa.array(["a", None, "b", "d", "c", "e"])})

ORDERED = pa.table({"o": pa.array([7 * i for i in range(103)], pa.int64()),
                    "p": pa.array([i % 4 for i in range(103)], pa.int64())})

# the shapes also run by tks.run in both modes (a Spark job each: a few keep the file fast)
RUN_ON_SPARK = ("intersect", "except a float column", "grouping_id", "dropna thresh",
                "ntile, percent_rank, cume_dist")


@pytest.fixture(scope="module")
def frames(spark):
    from toolkit import spark as tks

    a, b = tks.dataframe(LEFT, spark), tks.dataframe(RIGHT, spark)
    a.createOrReplaceTempView("set_a")
    return a, b


@pytest.fixture(scope="module")
def collected():
    return Collected()


def _shapes(spark, a, b):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from toolkit import spark as tks

    return {
        "intersect": a.intersect(b),
        "except": a.subtract(b),
        "intersect one column": a.select("k").intersect(b.select("k")),
        "except a float column": a.select("x").subtract(b.select("x")),
        "intersect without nulls": spark.range(10).intersect(spark.range(5, 20)),
        "rollup": a.rollup("k").agg(F.count("*").alias("n"), F.sum("x").alias("t")),
        "cube": a.cube("k", "s").agg(F.count("*").alias("n")),
        "grouping sets": spark.sql("SELECT k, s, count(*) n FROM set_a "
                                   "GROUP BY GROUPING SETS ((k), (k, s), ())"),
        "grouping_id": spark.sql("SELECT k, s, grouping_id() gi, count(*) n FROM set_a "
                                 "GROUP BY CUBE (k, s)"),
        "ntile, percent_rank, cume_dist": a.select(
            "k", "s",
            F.ntile(3).over(Window.partitionBy("k").orderBy("s", "x")).alias("n3"),
            F.ntile(2).over(Window.orderBy("k", "s", "x")).alias("n2"),
            F.percent_rank().over(Window.partitionBy("s").orderBy("k")).alias("pr"),
            F.cume_dist().over(Window.orderBy(F.col("s").desc())).alias("cd")),
        "ntile over partitions of every size": tks.dataframe(ORDERED, spark).select(
            "o", *[F.ntile(n).over(Window.partitionBy("p").orderBy("o")).alias(f"n{n}")
                   for n in (1, 4, 7, 40)]),
        "dropna": a.dropna(),
        "dropna thresh": a.dropna(thresh=2),
        "dropna subset": a.dropna(subset=["x"]),
        "dropna all": a.dropna(how="all"),
    }


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_shapes_import_and_run_in_both_modes_equal_to_spark(spark, frames, collected, stage):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    for name, df in _shapes(spark, *frames).items():
        imported = tks.from_spark(df, stage=stage)
        collected.assert_same_rows(df, imported)  # exprscope's plan alone, on Spark's rows
        if name not in RUN_ON_SPARK:
            continue
        expected = collected.rows(df)
        for mode in ("engine", "native"):  # exprscope inside Spark's tasks; Spark alone
            got = tks.run(imported, mode=mode, trace=False).to_arrow()
            assert got.schema.names == expected.schema.names, name
            comparison = tables_differences(expected, got)
            assert comparison.equal, f"{name} ({stage}, {mode}): {comparison}"


def test_intersect_is_a_semi_join_and_except_an_anti_join_then_distinct(frames):
    from toolkit import spark as tks

    a, b = frames
    for df, how in ((a.intersect(b), "semi"), (a.subtract(b), "anti")):
        imported = tks.from_spark(df)
        kinds = [type(n).__name__ for n in imported.walk()]
        assert kinds[0] == "Aggregate"  # the DISTINCT
        assert [n.how for n in imported.walk() if hasattr(n, "how")] == [how]


def test_set_operations_and_grouping_sets_equal_duckdb(frames, collected):
    """DuckDB on the same rows: exprscope's plan alone (no Spark rows as the oracle)."""
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    a, b = frames
    con = duckdb.connect()
    con.register("set_a", LEFT)
    con.register("set_b", RIGHT)
    cases = {
        "SELECT * FROM set_a INTERSECT SELECT * FROM set_b": a.intersect(b),
        "SELECT * FROM set_a EXCEPT SELECT * FROM set_b": a.subtract(b),
        "SELECT k, count(*) AS n FROM set_a GROUP BY ROLLUP (k)":
            a.rollup("k").count().withColumnRenamed("count", "n"),
    }
    for sql, df in cases.items():
        runnable = collected.scans_from_memory(plan.optimize(tks.from_spark(df)))
        got = plan.create_physical_plan(runnable).collect()
        want = con.sql(sql).arrow()
        want = want.read_all() if hasattr(want, "read_all") else want
        want = want.cast(pa.schema([pa.field(n, t) for n, t in
                                    zip(got.schema.names, got.schema.types)]))
        comparison = tables_differences(want, got)
        assert comparison.equal, f"{sql}: {comparison}"


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_what_cannot_be_exact_is_refused_naming_the_spark_node(spark, frames, stage):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    a, b = frames
    refused = {
        "EXCEPT ALL": (a.exceptAll(b), {"Except", "Generate"}),
        "INTERSECT ALL": (a.intersectAll(b), {"Intersect", "Generate"}),
        "explode": (a.select("k", F.explode(F.array("k", "k")).alias("e")), {"Generate"}),
        "sample": (a.sample(0.5, seed=1), {"Sample"}),
    }
    for name, (df, classes) in refused.items():
        with pytest.raises(SparkImportError) as caught:
            tks.from_spark(df, stage=stage)
        assert caught.value.spark_class in classes, name
        assert caught.value.spark_class in str(caught.value) or "ALL" in str(caught.value)


def test_aggregates_that_cannot_be_exact_are_refused_saying_why(frames):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    a, _ = frames
    refused = {
        "First": (F.first("k"), "nondeterministic"),
        "Last": (F.last("k"), "nondeterministic"),
        "CollectList": (F.collect_list("k"), "array"),
        "HyperLogLogPlusPlus": (F.approx_count_distinct("k"), "HyperLogLog"),
        "ApproximatePercentile": (F.percentile_approx("x", 0.5), "sketch"),
    }
    for spark_class, (call, why) in refused.items():
        with pytest.raises(SparkImportError) as caught:
            tks.from_spark(a.groupBy("s").agg(call))
        assert caught.value.spark_class == spark_class
        assert spark_class in str(caught.value) and why in str(caught.value)
    with pytest.raises(SparkImportError) as caught:
        tks.from_spark(a.groupBy("k").pivot("s", ["a", "b"]).sum("x"))
    assert caught.value.spark_class == "PivotFirst"
