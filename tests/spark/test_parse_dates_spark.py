"""to_date and to_timestamp import as what Spark rewrites them into (a cast). Text cast
to a date is read as Spark reads it (`2024-3-5`, `2024-03-05 10:11:12`, ` 2024`); text
cast to a timestamp is a wall-clock time in the session's zone, as Spark reads it (a
DST gap moves the time forward by the gap, an overlap takes the earlier offset).
Against Spark's rows, in both modes; a timestamp's text that Arrow's ISO parser does
not read (`2024-3-5 10:00`) fails in engine mode, naming the value, where Spark reads
it."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pytest

pytestmark = pytest.mark.spark

TEXTS = ["2024-03-05", None, "2024-03-05 10:11:12", "2020-02-29", "1999-12-31 23:59:59.123456",
         "2024-03-10 02:30:00", "2024-11-03 01:30:00", "1970-01-01"]


@pytest.fixture(scope="module")
def frame(spark):
    from toolkit import spark as tks

    stamps = [None if t is None else datetime.datetime.fromisoformat(t) for t in TEXTS]
    return tks.dataframe(pa.table({"s": pa.array(TEXTS),
                                   "t": pa.array(stamps, pa.timestamp("us"))}), spark)


@pytest.mark.parametrize("mode, zone", [("engine", "UTC"), ("native", "UTC"),
                                        ("engine", "America/New_York")])
def test_to_date_and_to_timestamp_give_sparks_values(spark, frame, mode, zone):
    """Outside UTC the wall-clock reading runs in engine mode only (Spark has no function
    the native translation could write for it)."""
    from pyspark.sql import functions as F

    from tests.spark.settings import spark_settings
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    with spark_settings(spark, {"spark.sql.session.timeZone": zone}):
        df = frame.select("s", F.to_date("s").alias("day"), F.to_timestamp("s").alias("at"),
                          F.to_date("t").alias("tday"), F.col("s").cast("timestamp").alias("c"))
        expected = df.toArrow()
        got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(expected, got, rel_tol=0, abs_tol=0)
    assert comparison.equal, str(comparison)


LOOSE = ["2024-3-5", " 2024-01-31 ", "1999-12-31T23:59:59", "2024", "2024-07", "2024-07-4T",
         "2024-03-05 10:11:12", None, "0001-01-01", "9999-12-31"]


@pytest.mark.parametrize("mode", ["engine", "native"])
def test_text_is_read_as_a_date_as_spark_reads_it(spark, mode):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = tks.dataframe(pa.table({"s": LOOSE}), spark).select(
        "s", F.to_date("s").alias("d"), F.col("s").cast("date").alias("c"))
    got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(df.toArrow(), got, rel_tol=0, abs_tol=0)
    assert comparison.equal, str(comparison)


@pytest.mark.parametrize("text", ["2024-02-30", "x2024", "2024-13-01"])
def test_text_that_is_no_date_fails_naming_it_as_in_spark(spark, text):
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F

    from toolkit import ExprscopeError
    from toolkit import spark as tks

    df = tks.dataframe(pa.table({"s": [text]}), spark).select(F.to_date("s"))
    with pytest.raises(PySparkException):
        df.collect()  # ANSI: Spark refuses it too
    with pytest.raises(ExprscopeError, match=text):
        tks.run(tks.from_spark(df), mode="engine", trace=False).to_arrow()


def test_timestamp_text_the_iso_parser_does_not_read_fails_naming_it(spark):
    from pyspark.sql import functions as F

    from toolkit import ExprscopeError
    from toolkit import spark as tks

    df = tks.dataframe(pa.table({"s": ["2024-3-5 10:00"]}), spark).select(F.to_timestamp("s"))
    with pytest.raises(ExprscopeError, match="2024-3-5"):
        tks.run(tks.from_spark(df), mode="engine", trace=False).to_arrow()
