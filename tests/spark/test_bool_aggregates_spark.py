"""count_if, bool_and / every and bool_or / some / any imported from Spark at both stages
(analyzed: Spark's CountIf, BoolAnd, BoolOr; optimized: the count, min and max Spark
replaces them with), from the DataFrame API and SQL, with a FILTER, run in both modes,
against Spark's own rows: groups of nulls (null for bool_and and bool_or, 0 for
count_if), null conditions, a global aggregate."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.spark.collected import Collected

pytestmark = pytest.mark.spark

ROWS = pa.table({
    "g": pa.array([1, 1, 1, 2, 2, 3, None, 4, 4, 5], pa.int64()),
    "b": pa.array([True, None, False, True, True, None, False, None, None, False]),
    "x": pa.array([1.0, 2.0, None, 5.0, float("nan"), 7.0, 3.0, None, 8.0, 1.0]),
})


@pytest.fixture(scope="module")
def frame(spark):
    from toolkit import spark as tks

    df = tks.dataframe(ROWS, spark)
    df.createOrReplaceTempView("bool_rows")
    return df


def _queries(spark, df):
    from pyspark.sql import functions as F

    calls = [F.count_if(F.col("x") > 2).alias("big"), F.bool_and("b").alias("all_b"),
             F.bool_or("b").alias("any_b"), F.every(F.col("x") > 0).alias("pos"),
             F.some(F.col("x").isNull()).alias("hole")]
    return {
        "grouped": df.groupBy("g").agg(*calls),
        "global": df.agg(*calls),
        "sql": spark.sql("SELECT g, count_if(b) c, bool_and(b) a, bool_or(b) o, any(x > 4) y, "
                         "count_if(x > 1) FILTER (WHERE b) f FROM bool_rows GROUP BY g"),
        "with other aggregates": df.groupBy("g").agg(F.sum("x"), F.count_if("b"),
                                                     F.countDistinct("x"), F.bool_or("b")),
    }


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_boolean_aggregates_import_and_run_equal_to_spark(spark, frame, stage):
    from toolkit import spark as tks

    collected = Collected()
    for name, df in _queries(spark, frame).items():
        imported = tks.from_spark(df, stage=stage)
        collected.assert_same_rows(df, imported)
        if stage == "optimized" or name == "with other aggregates":
            continue  # a Spark job per mode: the analyzed stage's queries keep the file quick
        collected.assert_runs_as_spark(df, imported, name)


def test_the_plan_says_bool_and_and_counts_the_rows_where_the_condition_holds(frame):
    from pyspark.sql import functions as F

    from toolkit import spark as tks

    df = frame.groupBy("g").agg(F.bool_and("b"), F.count_if(F.col("x") > 2))
    text = tks.from_spark(df).explain()
    assert "bool_and(" in text
    assert "count(if_else(" in text


def test_min_by_is_refused_saying_why(frame):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    with pytest.raises(SparkImportError) as caught:
        tks.from_spark(frame.groupBy("g").agg(F.min_by("x", "b")))
    assert caught.value.spark_class == "MinBy"
    assert "share" in str(caught.value)
