"""The DataFrame shapes Spark users write, imported with `tks.from_spark` and run by
exprscope's own plan against Spark's rows; the shapes not supported yet are refused
naming the Spark node (their test fails when one starts working). Spark's rows of each
shape and of each input are collected once for both stages (`collected.py`)."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pytest

from tests.spark.collected import Collected

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def frames(spark):
    from toolkit import spark as tks

    a = pa.table({"key": pa.array([1, 2, 2, None, 5], pa.int64()),
                  "x": pa.array([-7, 8, None, 3, 10], pa.int64()),
                  "d": pa.array([datetime.date(2024, 1, 31), None, datetime.date(1999, 12, 31),
                                 datetime.date(2000, 2, 29), datetime.date(2024, 3, 1)])})
    b = pa.table({"key": pa.array([2, 3, None, 5], pa.int64()),
                  "y": pa.array(["p", "q", "r", None])})
    return tks.dataframe(a, spark), tks.dataframe(b, spark)


@pytest.fixture(scope="module")
def collected():
    return Collected()


def _same_rows(collected, df, imported):
    return collected.assert_same_rows(df, imported, same_types=True)


def _shapes(a, b):
    from pyspark.sql import functions as F

    c = b.withColumnRenamed("key", "bkey")  # compared by name: no name twice
    return {
        "join by name": a.join(b, "key"),
        "join by names, left": a.join(b, ["key"], "left"),
        "join by names, right": a.join(b, ["key"], "right"),
        "join by names, full": a.join(b, ["key"], "full"),
        "semi join": a.join(b, "key", "left_semi"),
        "anti join": a.join(b, "key", "left_anti"),
        "cross join": a.crossJoin(c),
        "join with a non-equality": a.join(c, (a.key == c.bkey) & (a.x > 5), "left"),
        "remainder": a.select((F.col("x") % 3).alias("r"), (F.col("x") % -3).alias("s")),
        "year is an int": a.select(F.year("d").alias("y"), F.month("d").alias("m")),
        "count distinct": a.groupBy("key").agg(F.countDistinct("x").alias("n")),
        "having": a.groupBy("key").agg(F.sum("x").alias("s")).filter(F.col("s") > 0),
        "between": a.filter(F.col("x").between(0, 9)),
        "union all": a.union(a.filter(F.col("x") > 0)),
        "union distinct": a.select("key").union(b.select("key")).distinct(),
        "union widening a type": a.select("key").union(b.select(F.length("y"))),
    }


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_dataframe_shapes_import_and_return_sparks_rows(frames, collected, stage):
    from toolkit import spark as tks

    for name, df in _shapes(*frames).items():
        try:
            _same_rows(collected, df, tks.from_spark(df, stage=stage))
        except Exception as exc:
            raise AssertionError(f"{name}: {exc}") from exc


def test_scans_are_named_df1_df2_when_the_user_gave_no_name(frames):
    from toolkit import spark as tks
    from toolkit.plan import TableScan

    a, b = frames
    p = tks.from_spark(a.join(b, "key"))
    assert [n.relation for n in p.walk() if isinstance(n, TableScan)] == ["df1", "df2"]


@pytest.mark.parametrize("mode", ["native", "engine"])
def test_an_imported_union_runs_in_both_modes_equal_to_spark(frames, collected, mode):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    a, b = frames
    df = a.select("key", "x").union(b.select("key", F.length("y").cast("long"))).distinct()
    got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(collected.rows(df), got)
    assert comparison.equal, str(comparison)


def test_union_by_name_with_missing_columns_is_refused_naming_union(frames):
    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    a, b = frames
    df = a.select("key", "x").unionByName(b.select("key"), allowMissingColumns=True)
    try:
        imported = tks.from_spark(df)
    except SparkImportError as exc:  # Spark left the union by name unresolved
        assert exc.spark_class == "Union"
    else:  # Spark resolved it to a union by position: it must then run equal to Spark
        _same_rows(Collected(), df, imported)


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_windows_import_and_return_sparks_rows(frames, collected, stage):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from toolkit import spark as tks

    a, _ = frames
    by_key = Window.partitionBy("key").orderBy(F.col("x").desc_nulls_first())
    rows = by_key.rowsBetween(-1, 1)
    df = a.select("key", "x",
                  F.row_number().over(Window.partitionBy("key").orderBy("x", "d")).alias("rn"),
                  F.rank().over(Window.orderBy("key")).alias("rk"),
                  F.dense_rank().over(Window.orderBy("key")).alias("dr"),
                  F.lag("x").over(Window.partitionBy("key").orderBy("x", "d")).alias("lg"),
                  F.lead("d", 2).over(Window.orderBy("x", "d")).alias("ld"),
                  F.sum("x").over(Window.orderBy("key")).alias("running"),
                  F.avg("x").over(Window.partitionBy("key")).alias("mean"),
                  F.min("d").over(rows).alias("mn"), F.max("x").over(rows).alias("mx"),
                  F.count("x").over(Window.partitionBy("key")).alias("n"),
                  F.count("*").over(Window.orderBy("key").rowsBetween(
                      Window.unboundedPreceding, 0)).alias("c"))
    imported = tks.from_spark(df, stage=stage)
    assert any(type(n).__name__ == "Window" for n in imported.walk())
    _same_rows(collected, df, imported)


@pytest.mark.parametrize("mode", ["native", "engine"])
def test_an_imported_window_runs_in_both_modes_equal_to_spark(frames, collected, mode):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    a, _ = frames
    df = a.select("key", "x", F.rank().over(Window.partitionBy("key").orderBy("x")).alias("r"),
                  F.lag("x").over(Window.orderBy("x", "d")).alias("l"),
                  F.sum("x").over(Window.partitionBy("key")).alias("s"),
                  F.max("x").over(Window.orderBy("d").rowsBetween(-1, 0)).alias("m"))
    got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(collected.rows(df), got)
    assert comparison.equal, str(comparison)
