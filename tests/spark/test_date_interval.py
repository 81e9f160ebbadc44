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


def test_what_is_not_a_date_interval_yet_is_refused_by_name(spark, rows):
    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    with pytest.raises(SparkImportError) as info:
        tks.from_spark(rows.selectExpr("ts + interval 1 month AS r"))
    assert info.value.spark_class == "TimestampAddYMInterval"
    with pytest.raises(SparkImportError, match="only whole numbers"):
        tks.from_spark(rows.selectExpr("d + (n / 2) * interval '1' month AS r"))
