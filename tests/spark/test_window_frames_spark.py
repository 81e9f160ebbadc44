"""Spark's RANGE frames with offsets, lag and lead with a default, decimal window sums
and averages, and variances and standard deviations over growing, sliding and shrinking
frames: imported at both stages and run by exprscope's plan (and in both `tks.run`
modes) to Spark's own rows, on keys with nulls, ties and NaN."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from tests.spark.collected import Collected

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def table(spark):
    from toolkit import spark as tks

    D = decimal.Decimal
    data = pa.table({
        "id": pa.array(range(9), pa.int64()),
        "g": pa.array([1, 1, 1, 1, 2, 2, 2, None, None], pa.int64()),
        "k": pa.array([1, 2, 2, 5, None, 3, 7, 4, 4], pa.int32()),
        "f": pa.array([0.5, float("nan"), 1.5, None, 2.0, 2.0, -1.0, 3.0, None]),
        "v": pa.array([10, None, 3, -4, 8, 1, 2, None, 6], pa.int64()),
        "d": pa.array([D("1.25"), D("-0.05"), None, D("99.99"), D("0.01"), D("2.50"),
                       D("-3.33"), None, D("7.77")], pa.decimal128(7, 2))})
    return tks.dataframe(data, spark)


@pytest.fixture(scope="module")
def collected():
    return Collected()


def _windows(df):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    by_k = Window.partitionBy("g").orderBy("k")
    in_order = Window.partitionBy("g").orderBy("k", "id")  # rows apart: ties broken
    return df.select(
        "id", "g", "k", "f", "v", "d",
        F.sum("v").over(by_k.rangeBetween(-1, 2)).alias("near"),
        F.count("v").over(Window.orderBy(F.col("k").desc_nulls_first())
                          .rangeBetween(-2, Window.currentRow)).alias("behind"),
        F.max("d").over(by_k.rangeBetween(Window.currentRow, 3)).alias("ahead"),
        F.min("v").over(Window.orderBy("f").rangeBetween(-1, 1)).alias("around_f"),
        F.sum("d").over(Window.partitionBy("g")).alias("dsum"),
        F.avg("d").over(in_order.rowsBetween(-1, 1)).alias("davg"),
        F.lag("v", 1, -1).over(in_order).alias("prev"),
        F.lead("v", 2, 0).over(in_order).alias("next2"),
        F.lag("d", 1, decimal.Decimal("0.00")).over(in_order).alias("dprev"),
        F.stddev("f").over(by_k).alias("fsd"),
        F.var_pop("v").over(in_order.rowsBetween(-1, 1)).alias("vpop"),
        F.variance("v").over(Window.partitionBy("g")).alias("vsamp"),
        F.stddev_pop("d").over(in_order.rowsBetween(-1, Window.unboundedFollowing))
        .alias("dsd"))


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_range_frames_defaults_and_decimals_import_to_sparks_rows(table, collected, stage):
    from toolkit import spark as tks

    df = _windows(table)
    imported = tks.from_spark(df, stage=stage)
    text = imported.explain()
    assert "RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING" in text
    assert "lag(" in text and ", -1)" in text
    collected.assert_same_rows(df, imported)


@pytest.mark.parametrize("mode", ["native", "engine"])
def test_range_frames_defaults_and_decimals_run_in_both_modes(table, collected, mode):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = _windows(table)
    got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(collected.rows(df), got)
    assert comparison.equal, str(comparison)


def test_a_default_read_from_the_row_runs_natively(table, collected):
    """Spark's lag takes a constant default; a plan's default may be any expression of the
    current row, and native mode still gives exprscope's own rows."""
    from toolkit import plan
    from toolkit import spark as tks

    p = tks.from_spark(table).window(
        [{"func": "lead", "arg": "v", "offset": 1, "default": "v",
          "partition_by": ["g"], "order_by": ["k", "id"]}], ["w"])
    ours = plan.create_physical_plan(collected.scans_from_memory(p)).collect()
    native = tks.run(p, mode="native", trace=False).to_arrow()
    assert (native.sort_by("id").column("w").to_pylist()
            == ours.sort_by("id").column("w").to_pylist())
