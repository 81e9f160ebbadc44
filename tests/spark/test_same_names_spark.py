"""Joins and set operations of inputs that share a column's name with no relation to tell
them apart (a computed column of both sides, `x * 2 AS y`; the two sides of a self join):
Spark tells them apart by exprId, the imported plan renames the right one (`y_1`), and
the rows are Spark's, in both stages and both modes."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.spark.collected import Collected
from toolkit import plan

pytestmark = pytest.mark.spark

LEFT = pa.table({"k": pa.array([1, 2, 3, None, 2], pa.int64()),
                 "x": pa.array([1.0, 2.0, 3.0, 4.0, None])})
RIGHT = pa.table({"k": pa.array([2, 3, 4, None], pa.int64()),
                  "x": pa.array([2.0, 5.0, 3.0, 1.0])})


def _shapes(a, b):
    from pyspark.sql import functions as F

    return {
        "intersect of computed columns": a.select((a.k + 1).alias("k"))
        .intersect(b.select((b.k + 1).alias("k"))),
        "except of computed columns": a.select((a.x * 2).alias("y"), "k")
        .subtract(b.select((b.x * 2).alias("y"), "k")),
        "join using, a computed column on both sides": a.select("k", (a.x * 2).alias("y"))
        .join(b.select("k", (b.x * 2).alias("y")), "k"),
        "semi join of computed keys": a.select((a.k * 2).alias("z"))
        .join(b.select((b.k * 2).alias("z")), "z", "left_semi"),
        "self join": a.alias("l").join(a.alias("r"), F.col("l.k") == F.col("r.k"))
        .select(F.col("l.x").alias("lx"), F.col("r.x").alias("rx")),
        "an aggregate named twice (avg and mean)": a.groupBy("k").agg(
            F.avg("x"), F.sum("x"), F.mean("x")),
        "a mixed DISTINCT aggregate named twice": a.groupBy("k").agg(
            F.countDistinct("x"), F.count_distinct("x")),
        "a join on equal columns keeping both": a.join(b, a.k == b.k, "full"),
        "a null column": a.select("k", F.lit(None).alias("z")),
    }


def _same_rows(expected: pa.Table, got: pa.Table, name: str):
    from toolkit.spark.running.compare import tables_differences

    assert got.num_columns == expected.num_columns, name
    names = [f"c{i}" for i in range(got.num_columns)]  # Spark may repeat a name
    comparison = tables_differences(expected.rename_columns(names), got.rename_columns(names))
    assert comparison.equal, f"{name}: {comparison}"


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_inputs_sharing_a_name_import_and_give_sparks_rows(spark, stage):
    from toolkit import spark as tks

    a, b = tks.dataframe(LEFT, spark), tks.dataframe(RIGHT, spark)
    collected = Collected()
    for name, df in _shapes(a, b).items():
        imported = tks.from_spark(df, stage=stage)
        runnable = collected.scans_from_memory(plan.optimize(imported))
        _same_rows(collected.rows(df), plan.create_physical_plan(runnable).collect(), name)
        if stage == "optimized" and name.startswith("join using"):
            names = imported.schema.names
            assert names == ["k", "y", "y_1"], names
            got = tks.run(imported, mode="engine", trace=False).to_arrow()
            _same_rows(collected.rows(df), got, name)
