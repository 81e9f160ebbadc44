"""Spark's numeric casts imported with Spark's meaning (ANSI, Spark 4's default): a long
becomes the nearest double or float, a double, float or decimal becomes an integer by
dropping its fraction; a value out of the target's range fails in both. Arrow's safe
cast refuses the first two, so an import that kept it failed where Spark answers."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest

from tests.spark.collected import Collected
from toolkit import plan

pytestmark = pytest.mark.spark

ROWS = pa.table({
    "d": pa.array([1.5, -1.5, 2.0, None, -0.0, 2147483647.9, -2147483648.9, 0.999]),
    "f": pa.array([2.5, -2.75, None, 1e4, 0.5, -0.5, 3.0, 7.25], pa.float32()),
    "l": pa.array([2**62 + 1, 3, None, 7, 2**53 + 1, -(2**63), 2**63 - 1, 0], pa.int64()),
    "m": pa.array([v and Decimal(v) for v in ("1.25", "-1.75", "0.99", None, "-0.01", "123456.78",
                                        "-9.5", "2")], pa.decimal128(10, 2)),
})
CASTS = ["cast(d as int) di", "cast(d as bigint) dl", "cast(f as int) fi",
         "cast(f as smallint) fs", "cast(l as double) ld", "cast(l as float) lf",
         "cast(m as int) mi", "cast(m as bigint) ml", "cast(m * 3 as int) m3"]


def test_numeric_casts_import_and_run_equal_to_spark(spark):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = tks.dataframe(ROWS, spark).selectExpr(*CASTS)
    collected = Collected()
    for stage in ("analyzed", "optimized"):
        collected.assert_same_rows(df, tks.from_spark(df, stage=stage), same_types=True)
    expected = collected.rows(df)
    for mode in ("engine", "native"):
        got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
        comparison = tables_differences(expected, got, rel_tol=0, abs_tol=0)
        assert comparison.equal, f"{mode}: {comparison}"


@pytest.mark.parametrize("cast", ["cast(d * 1e10 as int)", "cast(l as int)",
                                  "cast(m * 1000000 as smallint)"])
def test_a_value_out_of_range_fails_in_both(spark, cast):
    from pyspark.errors import PySparkException

    from toolkit import ExprscopeError
    from toolkit import spark as tks

    df = tks.dataframe(ROWS, spark).selectExpr(f"{cast} v")
    with pytest.raises((PySparkException, Exception)) as spark_said:
        df.collect()
    assert "CAST_OVERFLOW" in str(spark_said.value) or "overflow" in str(spark_said.value).lower()
    runnable = Collected().scans_from_memory(plan.optimize(tks.from_spark(df)))
    with pytest.raises(ExprscopeError):
        plan.create_physical_plan(runnable).collect()


ROUNDED = ["floor(d) fd", "ceil(d) cd", "floor(f) ff", "ceil(l) cl", "floor(m) fm",
           "ceil(m) cm", "floor(d * double('NaN')) fz"]
PAST_THE_RANGE = ["ceil(d * double('Infinity')) ci", "floor(d * 1e300) fi"]


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_floor_and_ceil_are_sparks_longs(spark, ansi):
    """Spark's FLOOR and CEIL of a double are longs (Arrow's are doubles): NaN is 0, and
    beyond the long range (an infinity) the result is the range's end without ANSI and
    a failure with it; of a long, the long itself (no trip through a double); of a
    decimal, a decimal of scale 0."""
    from tests.spark.settings import spark_settings
    from toolkit import ExprscopeError
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    with spark_settings(spark, {"spark.sql.ansi.enabled": ansi}):
        finite = tks.dataframe(ROWS, spark).where("d is null or abs(d) < 1e9")
        df = finite.selectExpr(*ROUNDED, *(PAST_THE_RANGE if ansi == "false" else []))
        expected = df.toArrow()
        assert expected.column("fd").type == pa.int64()
        for mode in ("engine", "native"):
            got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
            assert got.schema.types == expected.schema.types, mode
            comparison = tables_differences(expected, got, rel_tol=0, abs_tol=0)
            assert comparison.equal, f"{mode}: {comparison}"
        if ansi == "true":
            past = finite.selectExpr("floor(d * 1e300) f")
            with pytest.raises(ExprscopeError, match="int64"):
                tks.run(tks.from_spark(past), mode="engine", trace=False).to_arrow()
