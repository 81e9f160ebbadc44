"""DISTINCT aggregates beside others (`agg(sum(n), countDistinct(s))`), over several
arguments, and under FILTER clauses: imported as Spark's RewriteDistinctAggregates
computes them (copies of the rows, two aggregates) and run in both modes to Spark's own
rows, on groups with nulls, NaN, decimals and repeated values. A decimal average keeps
Spark's four more digits."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

pytestmark = pytest.mark.spark

D = decimal.Decimal


@pytest.fixture(scope="module")
def table(spark):
    from toolkit import spark as tks

    data = pa.table({
        "g": pa.array([1, 1, 1, 2, 2, None, None, 3, 3, 3, 3, 4], pa.int64()),
        "n": pa.array([3, 3, None, -4, 0, 12, 5, 5, 5, None, 7, None], pa.int32()),
        "x": pa.array([1.5, None, 1.5, float("nan"), 0.0, 7.0, float("nan"), 2.0, -1.0,
                       None, 2.0, None]),
        "s": pa.array(["a", "b", "a", None, "c", "", "d", "e", "e", "f", None, None]),
        "m": pa.array([D("1.25"), None, D("-3.50"), D("100.00"), D("0.01"), D("2.00"),
                       D("5.55"), D("7.77"), D("7.77"), None, D("0.10"), None],
                      pa.decimal128(10, 2))})
    df = tks.dataframe(data, spark)
    df.createOrReplaceTempView("distinct_t")
    return df


QUERIES = [
    "SELECT g, sum(n), avg(x), count(*), count(DISTINCT s), max(m) FROM distinct_t GROUP BY g",
    "SELECT g, count(DISTINCT s), sum(DISTINCT n), max(x) FROM distinct_t GROUP BY g",
    "SELECT count(DISTINCT s), count(n), sum(n) / count(DISTINCT g) AS ratio FROM distinct_t",
    "SELECT n % 2 AS par, count(DISTINCT g), sum(m), stddev(x) FROM distinct_t GROUP BY n % 2",
    "SELECT g, count(DISTINCT s), count(DISTINCT n), avg(m), count(*) FROM distinct_t GROUP BY g",
    "SELECT g, avg(DISTINCT m), min(DISTINCT x), count(x) FROM distinct_t GROUP BY g",
    "SELECT g, count(*) FILTER (WHERE n > 2) AS c, sum(x) FILTER (WHERE s LIKE '%a%') AS sx, "
    "max(x) FILTER (WHERE n > 0) AS mx FROM distinct_t GROUP BY g",
    "SELECT count(DISTINCT s) FILTER (WHERE n > 0) AS cs, count(DISTINCT s), count(n) "
    "FROM distinct_t",
    "SELECT g, avg(m) FROM distinct_t GROUP BY g",
    "SELECT g, count(DISTINCT s) FILTER (WHERE n > 0) AS cs FROM distinct_t GROUP BY g",
    "SELECT count(DISTINCT n % 3) AS residues, count(DISTINCT upper(s)) FROM distinct_t",
]


@pytest.mark.parametrize("mode", ["engine", "native"])
@pytest.mark.parametrize("sql", QUERIES)
def test_distinct_aggregates_beside_others_give_sparks_rows(spark, table, sql, mode):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = spark.sql(sql)
    got = tks.run(tks.from_spark(df), mode=mode, trace=False).to_arrow()
    comparison = tables_differences(df.toArrow(), got)
    assert comparison.equal, str(comparison)


def test_the_plan_shows_the_copies_and_the_two_aggregates(spark, table):
    from toolkit import spark as tks

    text = tks.from_spark(spark.sql(QUERIES[1])).explain()
    assert text.count("Aggregate:") == 2
    assert "Union: 3 inputs" in text  # the plain copy and one per distinct argument
    assert "0 AS _gid" in text and "2 AS _gid" in text


def test_a_decimal_average_keeps_sparks_four_more_digits(spark, table):
    from toolkit import spark as tks

    df = spark.sql("SELECT g, avg(m) AS a FROM distinct_t WHERE g = 3 GROUP BY g")
    got = tks.run(tks.from_spark(df), mode="engine", trace=False).to_arrow()
    assert got.column("a").type == pa.decimal128(14, 6)
    assert got.column("a").to_pylist() == [D("5.213333")] == [r.a for r in df.collect()]


def test_a_distinct_count_of_several_columns_is_refused_saying_why(spark, table):
    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    df = spark.sql("SELECT g, count(DISTINCT s, n), sum(n) FROM distinct_t GROUP BY g")
    with pytest.raises(SparkImportError, match="several arguments"):
        tks.from_spark(df)
