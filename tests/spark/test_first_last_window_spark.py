"""first / last / first_value / last_value over ordered windows (IGNORE NULLS or not,
Spark's default frame, sliding and shrinking ROWS frames, RANGE frames, an empty frame):
imported at both stages and run in both `tks.run` modes to Spark's own rows. The order
keys are unique within a partition (ties are broken by id), so the frame's first and
last rows are Spark's as well as exprscope's; without an order they stay refused."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.spark.collected import Collected

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def table(spark):
    from toolkit import spark as tks

    data = pa.table({
        "id": pa.array(range(10), pa.int64()),
        "g": pa.array([1, 1, 1, 1, 2, 2, 2, None, None, 3], pa.int64()),
        "k": pa.array([1, 2, 2, 5, None, 3, 7, 4, 4, 1], pa.int32()),
        "s": pa.array([None, "a", None, "b", "c", None, None, "d", None, None]),
        "f": pa.array([0.5, float("nan"), None, 1.5, None, 2.0, -1.0, 3.0, None, None])})
    return tks.dataframe(data, spark)


@pytest.fixture(scope="module")
def collected():
    return Collected()


def _windows(df):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    ordered = Window.partitionBy("g").orderBy("k", "id")
    by_id = Window.partitionBy("g").orderBy(F.col("id").desc())
    return df.select(
        "id", "g", "k", "s", "f",
        F.first("s").over(ordered).alias("first_s"),
        F.first("s", ignorenulls=True).over(ordered).alias("first_s_nn"),
        F.last("s").over(ordered).alias("last_s"),
        F.last("s", ignorenulls=True).over(ordered).alias("last_s_nn"),
        F.first_value(F.col("f"), F.lit(True)).over(ordered.rowsBetween(1, 2)).alias("ahead"),
        F.last_value(F.col("f")).over(ordered.rowsBetween(-1, Window.unboundedFollowing))
        .alias("to_end"),
        F.last("f", ignorenulls=True).over(by_id.rowsBetween(Window.unboundedPreceding, -1))
        .alias("before"),
        F.first("s", ignorenulls=True).over(Window.partitionBy("g").orderBy("id")
                                            .rangeBetween(-1, 1)).alias("near"))


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_first_and_last_import_to_sparks_rows(table, collected, stage):
    from toolkit import spark as tks

    df = _windows(table)
    imported = tks.from_spark(df, stage=stage)
    text = imported.explain()
    assert "first_value(" in text and "last_value(" in text and "IGNORE NULLS" in text
    collected.assert_same_rows(df, imported)


@pytest.mark.parametrize("mode", ["native", "engine"])
def test_first_and_last_run_in_both_modes(table, collected, mode):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = _windows(table)
    got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(collected.rows(df), got)
    assert comparison.equal, str(comparison)


def test_first_without_an_order_stays_refused(table):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    for df in (table.select(F.first("s").over(Window.partitionBy("g"))),
               table.groupBy("g").agg(F.first("s"))):
        with pytest.raises(SparkImportError) as caught:
            tks.from_spark(df)
        assert caught.value.spark_class == "First"
        assert "nondeterministic" in str(caught.value)
