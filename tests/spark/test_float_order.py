"""Float comparisons imported from Spark keep Spark's order: NaN equals NaN and is above
every other value (Arrow's kernels follow IEEE 754, where every comparison with NaN is
false). Every pair of special values, as doubles and as floats, against a literal and
in a filter, compared with Spark's own rows in both run modes."""

from __future__ import annotations

import itertools

import pytest

pytestmark = pytest.mark.spark

VALUES = ["double('NaN')", "-double('NaN')", "double('Infinity')", "-double('Infinity')",
          "0.0D", "-0.0D", "1.5D", "-1.5D", "1e308D", "NULL"]
COMPARISONS = ["x = y", "x < y", "x <= y", "x > y", "x >= y", "x != y", "x <=> y",
               "not (x <=> y)", "x > 1.5", "x >= double('NaN')", "double('NaN') <= x",
               "x = double('NaN')", "x < double('Infinity')", "cast(x as float) < cast(y as float)",
               "cast(x as float) = cast(y as float)", "x + 1 > y"]


@pytest.fixture(scope="module")
def pairs(spark):
    rows = ", ".join(f"({i}, {a}, {b})" for i, (a, b) in
                     enumerate(itertools.product(VALUES, VALUES)))
    return spark.sql(f"SELECT * FROM VALUES {rows} AS t(k, x, y)")


@pytest.mark.parametrize("mode", ["engine", "native"])
def test_every_comparison_of_special_floats_equals_sparks(spark, pairs, mode):
    from toolkit import spark as tks

    df = pairs.selectExpr("k", *[f"{c} AS c{i}" for i, c in enumerate(COMPARISONS)])
    want = {r["k"]: r for r in df.toArrow().to_pylist()}
    got = {r["k"]: r for r in tks.run(tks.from_spark(df), mode=mode).to_arrow().to_pylist()}
    assert len(want) == len(VALUES) ** 2
    for k, row in want.items():
        for i, comparison in enumerate(COMPARISONS):
            assert got[k][f"c{i}"] == row[f"c{i}"], \
                f"{comparison} with (x, y) = {VALUES[k // len(VALUES)]}, " \
                f"{VALUES[k % len(VALUES)]}: Spark {row[f'c{i}']}, exprscope {got[k][f'c{i}']}"


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_a_filter_keeps_the_rows_spark_keeps(spark, pairs, stage):
    from toolkit import spark as tks

    df = pairs.where("x = y or x > 1e300 or (x < y and y >= 1.5)").select("k")
    want = sorted(r.k for r in df.collect())
    assert want  # NaN rows among them
    for mode in ("engine", "native"):
        got = sorted(tks.run(tks.from_spark(df, stage=stage), mode=mode).to_arrow()
                     .column("k").to_pylist())
        assert got == want, mode


@pytest.mark.parametrize("mode", ["engine", "native"])
@pytest.mark.parametrize("order", ["x", "x DESC", "x ASC NULLS LAST", "x DESC NULLS FIRST",
                                   "cast(x as float) DESC"])
def test_an_order_by_lists_rows_in_sparks_order(spark, pairs, order, mode):
    """Spark sorts NaN above every number (first when descending); Arrow's sort puts it
    beside the nulls. A sort with a limit takes Spark's first rows, in Spark's order."""
    from toolkit import spark as tks

    pairs.createOrReplaceTempView("float_pairs")
    df = spark.sql(f"SELECT k, x FROM float_pairs WHERE y = 1.5D ORDER BY {order}, k LIMIT 7")
    want = [r.k for r in df.collect()]
    got = tks.run(tks.from_spark(df), mode=mode).to_arrow().column("k").to_pylist()
    assert got == want


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_max_of_floats_is_nan_wherever_a_nan_is_among_them(spark, pairs, stage):
    """Spark's max of doubles is NaN when a NaN is among the values (NaN is above every
    number); Arrow's max skips NaN. Grouped, ungrouped, and ranks over a float order."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    grouped = pairs.groupBy("y").agg(F.max("x").alias("hi"), F.min("x").alias("lo"),
                                     F.max(F.col("x").cast("float")).alias("hi32"))
    whole = pairs.where("x != 0").agg(F.max("x").alias("hi"), F.max(F.abs("y")).alias("ay"))
    ranked = pairs.select("k", F.rank().over(Window.partitionBy("y").orderBy(F.desc("x")))
                          .alias("r"), F.row_number().over(Window.orderBy("x", "k")).alias("n"))
    for df in (grouped, whole, ranked):
        want = df.toArrow()
        for mode in ("engine", "native"):
            got = tks.run(tks.from_spark(df, stage=stage), mode=mode).to_arrow()
            comparison = tables_differences(want, got)
            assert comparison.equal, f"{mode}: {comparison}"
