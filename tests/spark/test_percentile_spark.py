"""median, percentile(x, p) and percentile_cont(p) WITHIN GROUP (ORDER BY x [DESC])
imported from Spark at both stages and run in both modes, against Spark's own rows:
interpolation between two values, NaN (above every number in Spark), nulls skipped,
groups of nulls (null), a group of one value, longs and decimals, a global aggregate."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest

from tests.spark.collected import Collected

pytestmark = pytest.mark.spark

NAN = float("nan")
ROWS = pa.table({
    "g": pa.array([1, 1, 1, 1, 2, 2, 3, None, 4, 4, 5, 5, 5], pa.int64()),
    "x": pa.array([4.0, 1.0, 2.0, 10.0, None, NAN, 7.0, 3.0, None, None, 1e9 + 1, 1e9 + 2,
                   -0.5]),
    "i": pa.array([5, 1, 2, 4, 4, 5, 6, 7, 8, 9, 2**62, 2**62 + 1, 3], pa.int64()),
    "d": pa.array([Decimal(v) for v in ("1.25", "2", "3.5", "4", "5", "6", "7", "8", "9",
                                          "10", "11.75", "12", "0.01")], pa.decimal128(12, 2)),
})


@pytest.fixture(scope="module")
def frame(spark):
    from toolkit import spark as tks

    df = tks.dataframe(ROWS, spark)
    df.createOrReplaceTempView("percentile_rows")
    return df


def _queries(spark, df):
    from pyspark.sql import functions as F

    calls = [F.median("x").alias("m"), F.percentile("x", 0.25).alias("q1"),
             F.percentile("i", 0.9).alias("p9"), F.percentile("d", 0.0).alias("lo"),
             F.percentile("x", 1.0).alias("hi"), F.median("d").alias("md")]
    return {
        "grouped": df.groupBy("g").agg(*calls),
        "global": df.agg(*calls),
        "sql": spark.sql("SELECT g, percentile_cont(0.3) WITHIN GROUP (ORDER BY x) a, "
                         "percentile_cont(0.3) WITHIN GROUP (ORDER BY x DESC) b, "
                         "median(i) FILTER (WHERE x > 1) c FROM percentile_rows GROUP BY g"),
        "with other aggregates": df.groupBy("g").agg(F.avg("x"), F.median("i"),
                                                     F.countDistinct("d")),
    }


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_percentiles_import_and_run_equal_to_spark(spark, frame, stage):
    from toolkit import spark as tks

    collected = Collected()
    for name, df in _queries(spark, frame).items():
        imported = tks.from_spark(df, stage=stage)
        collected.assert_same_rows(df, imported)
        if stage == "optimized" or name == "with other aggregates":
            continue  # a Spark job per mode: the analyzed stage's queries keep the file quick
        collected.assert_runs_as_spark(df, imported, name)


def test_percentile_approx_stays_refused(frame):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    with pytest.raises(SparkImportError) as caught:
        tks.from_spark(frame.groupBy("g").agg(F.percentile_approx("x", 0.5)))
    assert caught.value.spark_class == "ApproximatePercentile"


def test_an_array_of_fractions_is_refused_saying_why(frame):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    with pytest.raises(SparkImportError) as caught:
        tks.from_spark(frame.groupBy("g").agg(F.percentile("x", [0.1, 0.5])))
    assert "one constant fraction" in str(caught.value)
