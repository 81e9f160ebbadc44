"""The variance family (variance, var_pop, stddev, stddev_pop) imported from Spark at both
stages, from the DataFrame API and SQL, and run in both modes, against Spark's own rows:
groups of one value (null for the sample forms), all-null groups, NaN, huge offsets,
longs, decimals and a global aggregate."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest

from tests.spark.collected import Collected

pytestmark = pytest.mark.spark

NAN = float("nan")
ROWS = pa.table({
    "g": pa.array([1, 1, 1, 2, 2, 3, None, 4, 4, 5, 5, 5], pa.int64()),
    "x": pa.array([1.0, 2.0, 4.0, None, 5.0, 7.0, 3.0, None, None, 1e9 + 1, 1e9 + 2, 1e9 + 4]),
    "i": pa.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 2**62, 2**62 + 1, 3], pa.int64()),
    "d": pa.array([Decimal(v) for v in ("1.25", "2", "3.5", "4", "5", "6", "7", "8", "9",
                                          "10", "11.75", "12")], pa.decimal128(12, 2)),
    "n": pa.array([1.0, NAN, 2.0, 3.0, 4.0, NAN, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
})


@pytest.fixture(scope="module")
def frame(spark):
    from toolkit import spark as tks

    df = tks.dataframe(ROWS, spark)
    df.createOrReplaceTempView("variance_rows")
    return df


def _queries(spark, df):
    from pyspark.sql import functions as F

    calls = [F.variance("x").alias("vs"), F.var_pop("x").alias("vp"),
             F.stddev("x").alias("ss"), F.stddev_pop("x").alias("sp"),
             F.var_samp("i").alias("vi"), F.stddev_samp("d").alias("sd"),
             F.var_pop("n").alias("vn")]
    return {
        "grouped": df.groupBy("g").agg(*calls),
        "global": df.agg(*calls),
        "sql": spark.sql("SELECT g, variance(x) v, std(x) s, var_pop(d) p, "
                         "stddev_pop(i) q FROM variance_rows GROUP BY g"),
        "with other aggregates": df.groupBy("g").agg(F.avg("x"), F.count("*"),
                                                     F.stddev("x"), F.sum("d")),
    }


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_variances_import_and_run_equal_to_spark(spark, frame, stage):
    from toolkit import spark as tks

    collected = Collected()
    for name, df in _queries(spark, frame).items():
        imported = tks.from_spark(df, stage=stage)
        collected.assert_same_rows(df, imported)
        if stage == "analyzed" or name not in ("grouped", "global"):
            continue  # a Spark job per mode: two queries keep the file quick
        collected.assert_runs_as_spark(df, imported, name)


def test_a_group_of_one_value_has_no_sample_variance(frame):
    """Group 3 holds one x: Spark says null for variance and stddev, 0 for the population
    forms; so does the imported plan (not NaN)."""
    from pyspark.sql import functions as F

    from toolkit import plan
    from toolkit import spark as tks

    df = frame.where("g = 3").groupBy("g").agg(F.variance("x").alias("vs"),
                                               F.var_pop("x").alias("vp"))
    assert [tuple(r) for r in df.collect()] == [(3, None, 0.0)]
    runnable = Collected().scans_from_memory(plan.optimize(tks.from_spark(df)))
    got = plan.create_physical_plan(runnable).collect()
    assert got.to_pylist() == [{"g": 3, "vs": None, "vp": 0.0}]


def test_the_legacy_nan_for_one_value_is_refused_saying_why(spark, frame):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    spark.conf.set("spark.sql.legacy.statisticalAggregate", "true")
    try:
        df = frame.groupBy("g").agg(F.stddev("x"))
        with pytest.raises(SparkImportError) as caught:
            tks.from_spark(df)
    finally:
        spark.conf.unset("spark.sql.legacy.statisticalAggregate")
    assert caught.value.spark_class == "StddevSamp"
    assert "NaN" in str(caught.value) and "legacy" in str(caught.value)


def test_the_legacy_nan_for_one_value_is_refused_over_a_window_too(spark, frame):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from tests.spark.settings import spark_settings
    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    with spark_settings(spark, {"spark.sql.legacy.statisticalAggregate": "true"}):
        df = frame.select("g", F.variance("x").over(Window.partitionBy("g")).alias("vs"))
        with pytest.raises(SparkImportError) as caught:
            tks.from_spark(df)
    assert caught.value.spark_class == "VarianceSamp"
    assert "NaN" in str(caught.value) and "legacy" in str(caught.value)
