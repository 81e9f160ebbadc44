"""`date ± interval` over columns, imported from Spark and computed per row by exprscope,
against Spark's own rows: dates at month ends, leap days, the first and last years,
negative and large month counts, nulls."""

from __future__ import annotations

import datetime

import pytest

pytestmark = pytest.mark.spark

YEARS = [1, 1582, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9990]
COUNTS = [-1200, -25, -13, -12, -1, 0, 1, 2, 11, 12, 13, 48, None]
EXPRESSIONS = [
    "d + make_ym_interval(0, n)", "add_months(d, n)", "d + interval 1 month",
    "d - interval '1' month", "d + interval '1-2' year to month", "d + n * interval '1' month",
    "d - make_ym_interval(n, 1)", "d - interval '3' day", "d + interval 40 days",
    "date_add(d, n)", "date_sub(d, n)", "ts + interval '1' day", "ts - interval '36' hour",
    "ts + make_dt_interval(n, 1, 30, 1.000001)", "make_dt_interval(n, -n, n, n * 0.5)",
    "ts - make_dt_interval(0, n)",
]


def _dates() -> list:
    out = [None]
    for year in YEARS:
        for month in range(1, 13):
            first = datetime.date(year, month, 1)
            last = (first.replace(day=28) + datetime.timedelta(days=4)).replace(day=1) \
                - datetime.timedelta(days=1)
            out += sorted({first, first.replace(day=15), last - datetime.timedelta(days=2),
                           last - datetime.timedelta(days=1), last})
    return out


@pytest.fixture(scope="module")
def rows(spark):
    dates = _dates()
    data = [(x, c, None if x is None else datetime.datetime(x.year, x.month, x.day, 10, 30))
            for x in dates for c in COUNTS]
    return spark.createDataFrame(data, "d date, n int, ts timestamp")


def test_date_plus_interval_per_row_equals_sparks(spark, rows):
    """Every expression in one query (one Spark job for Spark's rows, one per scan for
    exprscope's), each output column compared with Spark's."""
    from toolkit import plan
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = rows.selectExpr("d", "n", *[f"{e} AS r{i}" for i, e in enumerate(EXPRESSIONS)])
    imported = tks.from_spark(df)
    got = plan.create_physical_plan(plan.optimize(imported)).collect()
    want = df.toArrow()
    assert len(want) > 3000
    for i, expression in enumerate(EXPRESSIONS):
        column = f"r{i}"
        assert got.schema.field(column).type == want.schema.field(column).type, expression
        pair = [t.select(["d", "n", column]) for t in (want, got)]
        comparison = tables_differences(*pair)
        assert comparison.equal, f"{expression}: {comparison}"
        assert want.column(column).null_count < len(want)


TIMESTAMP_EXPRESSIONS = ["ts + interval 1 month", "ts - make_ym_interval(0, n)",
                         "ts + interval '1-2' year to month", "tz + n * interval '1' month",
                         "tz - interval 11 month"]


def _timestamps_plus_months(spark, zone: str):
    """exprscope's and Spark's rows of TIMESTAMP_EXPRESSIONS, with the session in `zone`:
    wall-clock times at month ends, in the hour a daylight-saving change skips or repeats."""
    from toolkit import plan
    from toolkit import spark as tks

    walls = [f"{day} {time}" for day in ("2024-01-31", "2024-02-10", "2024-02-29", "2023-10-05",
                                         "2024-10-03", "1969-12-31", "2036-03-31")
             for time in ("00:00:00", "01:30:00", "02:30:00", "23:59:59.999999")]
    counts = [-13, -1, 0, 1, 8, None]
    previous = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        values = ", ".join(f"(timestamp'{w}', timestamp_ntz'{w}', {'NULL' if c is None else c})"
                           for w in walls for c in counts)
        df = spark.sql(f"SELECT ts, tz, n, {', '.join(f'{e} AS r{i}' for i, e in enumerate(TIMESTAMP_EXPRESSIONS))} "
                       f"FROM VALUES {values} AS t(ts, tz, n)")
        want = df.toArrow()
        got = plan.create_physical_plan(plan.optimize(tks.from_spark(df))).collect()
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)
    return want, got


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Australia/Lord_Howe"])
def test_timestamp_plus_months_per_row_equals_sparks(spark, zone):
    """Spark moves the wall-clock date in the session's zone and keeps the time of day; in
    a skipped hour the time moves later by the gap, in a repeated one it takes the earlier
    offset (Lord Howe's change is half an hour). Results up to 2037: Arrow's time zone
    kernels read no daylight-saving rule past the last transition the zone file lists
    (see date_interval.py)."""
    from toolkit.spark.running.compare import tables_differences

    want, got = _timestamps_plus_months(spark, zone)
    for i, expression in enumerate(TIMESTAMP_EXPRESSIONS):
        column = f"r{i}"
        assert got.schema.field(column).type == want.schema.field(column).type, expression
        pair = [t.select(["ts", "n", column]) for t in (want, got)]
        comparison = tables_differences(*pair)
        assert comparison.equal, f"{zone}: {expression}: {comparison}"
        assert want.column(column).null_count < len(want)


def test_what_is_not_a_date_interval_yet_is_refused_by_name(spark, rows):
    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    with pytest.raises(SparkImportError, match="only whole numbers"):
        tks.from_spark(rows.selectExpr("d + (n / 2) * interval '1' month AS r"))


@pytest.mark.parametrize("mode", ["native", "engine"])
def test_date_add_and_sub_run_in_both_modes(spark, rows, mode):
    """date_add / date_sub import as day numbers (Arrow casts a date to its day number);
    run natively, that cast is Spark's unix_date and date_from_unix_date."""
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = rows.where("n between -1000 and 1000").select(
        "d", "n", F.date_add("d", 10).alias("plus"), F.date_sub("d", F.col("n")).alias("minus"))
    got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(df.toArrow(), got)
    assert comparison.equal, str(comparison)
