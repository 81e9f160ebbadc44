"""Joins, groups and DISTINCT on float and double keys holding NaN, -0.0, 0.0, nulls and
infinities, imported from Spark, against Spark's own rows.

Spark normalizes float keys (NormalizeFloatingNumbers: every NaN one key, -0.0 the
same key as 0.0), so its joins pair NaN with NaN; exprscope's own joins follow IEEE
(NaN matches nothing). The import marks its joins `float_keys=normalized`, and every
join exec honours it: engine mode (broadcast and shuffled), the imported plan run by
exprscope alone, semi and anti joins, IN / NOT IN / EXISTS subqueries, INTERSECT
and EXCEPT.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.spark.collected import Collected
from tests.spark.settings import spark_settings
from toolkit import plan
from toolkit.plan.float_keys import NORMALIZED
from toolkit.plan.logical_plan import JOIN_NODES

pytestmark = pytest.mark.spark

NAN = float("nan")
INF = float("inf")
# a NaN whose payload bits differ from the canonical NaN's: Spark pairs it with NaN too
OTHER_NAN = np.frombuffer(np.array([0x7FF8000000000001], np.uint64).tobytes(), np.float64)[0]
KINDS = ["inner", "left", "right", "full", "left_semi", "left_anti"]
TYPES = {"double": pa.float64(), "float": pa.float32()}
LEFT_KEYS = [NAN, -0.0, 0.0, None, INF, -INF, 1.5, OTHER_NAN, 2.0, NAN]
RIGHT_KEYS = [NAN, 0.0, None, INF, 1.5, -0.0, NAN, -INF, 3.0]
PARTITIONS = 3


@pytest.fixture(scope="module")
def collected():
    return Collected()


def _frame(spark, name: str, keys: list, spark_type: str):
    """A Spark DataFrame of two partitions: {name}k of `spark_type`, {name}v bigint."""
    from toolkit import spark as tks

    table = pa.table({f"{name}k": pa.array(keys, TYPES[spark_type]),
                      f"{name}v": pa.array(range(len(keys)), pa.int64())})
    return tks.dataframe(table, spark).repartition(2)


def _shuffled(spark):
    """Engine mode's joins shuffled (never broadcast), over PARTITIONS partitions."""
    return spark_settings(spark, {"spark.exprscope.broadcastThreshold": "-1",
                                  "spark.sql.shuffle.partitions": str(PARTITIONS)})


def _engine_rows_are_sparks(df, expected: pa.Table | None = None):
    """Imports `df`, runs it in engine mode, checks the rows are Spark's; the imported plan."""
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    expected = df.toArrow() if expected is None else expected
    imported = tks.from_spark(df)
    run = tks.run(imported, mode="engine", trace=False)
    got = run.to_arrow().rename_columns(expected.schema.names)
    check = tables_differences(expected, got.cast(expected.schema))
    assert check.equal, f"{check}\nplan:\n{imported.explain()}\nstages: {run.stages}"
    return imported


def _joins(logical):
    return [n for n in logical.walk() if isinstance(n, JOIN_NODES)]


def test_every_join_kind_on_double_keys_pairs_nan_with_nan_as_spark(spark, collected):
    """Each kind in engine mode (broadcast) and as exprscope's own run of the imported
    plan over Spark's rows; the imported join says how it compares float keys."""
    a = _frame(spark, "a", LEFT_KEYS, "double")
    b = _frame(spark, "b", RIGHT_KEYS, "double")
    for kind in KINDS:
        df = a.join(b, a.ak == b.bk, kind)
        expected = collected.rows(df)
        imported = _engine_rows_are_sparks(df, expected)
        collected.assert_same_rows(df, imported)  # exprscope alone, the optimizer first
        (join,) = _joins(imported)
        assert join.float_keys == NORMALIZED
        assert "float_keys=normalized" in imported.explain()
        physical = plan.create_physical_plan(plan.optimize(imported))
        assert "float_keys=normalized" in physical.explain()
    nan_pairs = collected.rows(a.join(b, a.ak == b.bk, "inner").filter("isnan(ak)"))
    assert nan_pairs.num_rows == 3 * 2  # three NaN rows (one other payload) meet two


def test_every_join_kind_on_float_keys_shuffled_pairs_nan_with_nan_as_spark(spark):
    """The shuffled join, on float (32-bit) keys: every NaN, whatever its bits, and both
    zeros meet in one partition."""
    a = _frame(spark, "a", LEFT_KEYS * 2, "float")
    b = _frame(spark, "b", RIGHT_KEYS, "float")
    with _shuffled(spark):
        for kind in KINDS:
            _engine_rows_are_sparks(a.join(b, a.ak == b.bk, kind))


def test_a_join_on_a_float_and_an_integer_key_pair_and_a_residual(spark, collected):
    """Two key pairs (one float, one integer) and a residual condition: the float pair
    still pairs NaN with NaN."""
    from pyspark.sql import functions as F

    a = _frame(spark, "a", LEFT_KEYS, "double").withColumn("ai", F.col("av") % 2)
    b = _frame(spark, "b", RIGHT_KEYS, "double").withColumn("bi", F.col("bv") % 2)
    df = a.join(b, (a.ak == b.bk) & (a.ai == b.bi) & (a.av <= b.bv + 4), "left")
    imported = _engine_rows_are_sparks(df, collected.rows(df))
    collected.assert_same_rows(df, imported)


def test_in_not_in_and_exists_subqueries_on_doubles_pair_nan_with_nan(spark, collected):
    a = _frame(spark, "a", LEFT_KEYS, "double")
    b = _frame(spark, "b", RIGHT_KEYS, "double")
    a.createOrReplaceTempView("nan_a")
    b.createOrReplaceTempView("nan_b")
    queries = [
        "SELECT * FROM nan_a WHERE ak IN (SELECT bk FROM nan_b)",
        "SELECT * FROM nan_a WHERE ak NOT IN (SELECT bk FROM nan_b WHERE bk IS NOT NULL)",
        "SELECT * FROM nan_a WHERE EXISTS (SELECT 1 FROM nan_b WHERE bk = ak)",
        "SELECT * FROM nan_a WHERE NOT EXISTS (SELECT 1 FROM nan_b WHERE bk = ak)",
        "SELECT ak, (SELECT max(bv) FROM nan_b WHERE bk = ak) AS m FROM nan_a",
    ]
    for sql in queries:
        df = spark.sql(sql)
        imported = _engine_rows_are_sparks(df, collected.rows(df))
        collected.assert_same_rows(df, imported)
    # FROM a, b WHERE a.k = b.k: a filter over a cross join, whose Spark `=` of doubles
    # (NaN = NaN) the optimizer makes the key of a normalized join, not a cross product
    df = spark.sql("SELECT * FROM nan_a, nan_b WHERE ak = bk")
    imported = _engine_rows_are_sparks(df, collected.rows(df))
    text = plan.optimize(imported).explain()
    assert "float_keys=normalized" in text and "Cross" not in text, text


def test_intersect_and_except_on_floats_as_spark(spark, collected):
    """A nullable double column (a null-safe residual) and a float column no side holds
    null in (a hash join key, normalized): NaN meets NaN, -0.0 meets 0.0."""
    from pyspark.sql import functions as F

    spark_type = "float"
    a = _frame(spark, "a", LEFT_KEYS, spark_type)
    b = _frame(spark, "b", RIGHT_KEYS, spark_type)
    da = _frame(spark, "a", LEFT_KEYS, "double")
    db = _frame(spark, "b", RIGHT_KEYS, "double")
    never_null = F.coalesce(F.col("ak"), F.lit(7.0).cast(spark_type)).alias("k")
    left = a.select(never_null)
    # another name: exprscope's join needs its two sides' unqualified names apart
    right = b.select(F.coalesce(F.col("bk"), F.lit(7.0).cast(spark_type)).alias("k2"))
    for df in (da.select("ak").intersect(db.select("bk")),
               da.select("ak").subtract(db.select("bk")),
               left.intersect(right), left.subtract(right)):
        imported = _engine_rows_are_sparks(df, collected.rows(df))
        collected.assert_same_rows(df, imported)
    keyed = _joins(tks_import(left.intersect(right)))
    assert [(j.on != (), j.float_keys) for j in keyed] == [(True, NORMALIZED)]


def tks_import(df):
    from toolkit import spark as tks

    return tks.from_spark(df)


@pytest.mark.parametrize("spark_type", sorted(TYPES))
def test_group_by_and_distinct_on_floats_as_spark(spark, collected, spark_type):
    """Spark groups every NaN together and -0.0 with 0.0, and names the zero group 0.0."""
    from pyspark.sql import functions as F

    a = _frame(spark, "a", LEFT_KEYS + RIGHT_KEYS, spark_type)
    for df in (a.groupBy("ak").agg(F.count("*").alias("n"), F.sum("av").alias("s")),
               a.select("ak").distinct(), a.select("ak").dropDuplicates()):
        expected = collected.rows(df)
        imported = _engine_rows_are_sparks(df, expected)
        got = plan.create_physical_plan(collected.scans_from_memory(imported)).collect()
        for table in (expected, got):
            keys = [k for k in table.column(0).to_pylist() if k is not None]
            assert sum(math.isnan(k) for k in keys) == 1
            zeros = [k for k in keys if k == 0]
            assert len(zeros) == 1 and math.copysign(1, zeros[0]) == 1  # 0.0, not -0.0


float_key = st.sampled_from([NAN, OTHER_NAN, -0.0, 0.0, None, INF, -INF, 1.5, -1.5])


@settings(max_examples=6, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_float_key_tables_join_and_group_in_engine_mode_as_spark(spark, data):
    """Random small tables of such keys, a random type, join kind and strategy: one
    join and one group-by over it, run in engine mode, are Spark's rows."""
    from pyspark.sql import functions as F

    left = data.draw(st.lists(float_key, max_size=14), "left keys")
    right = data.draw(st.lists(float_key, max_size=14), "right keys")
    spark_type = data.draw(st.sampled_from(sorted(TYPES)), "key type")
    kind = data.draw(st.sampled_from(KINDS), "kind")
    shuffled = data.draw(st.booleans(), "shuffled")
    a = _frame(spark, "a", left, spark_type)
    b = _frame(spark, "b", right, spark_type)
    joined = a.join(b, a.ak == b.bk, kind)
    grouped = joined.groupBy("ak").agg(F.count("*").alias("n"))
    with _shuffled(spark) if shuffled else contextlib.nullcontext():
        _engine_rows_are_sparks(joined)
        _engine_rows_are_sparks(grouped)


def test_exprscope_own_join_keeps_ieee_keys_in_both_modes(spark):
    """A join built in exprscope (float_keys ieee, the default) pairs NaN with nothing
    whether exprscope runs it inside Spark or Spark runs it natively, though Spark's own
    `==` pairs NaN with NaN."""
    from toolkit import spark as tks

    a = _frame(spark, "a", LEFT_KEYS, "double")
    b = _frame(spark, "b", RIGHT_KEYS, "double")
    own = plan.scan("a", a).join(plan.scan("b", b), on=[("ak", "bk")], how="inner")
    assert own.float_keys == "ieee" and "float_keys" not in own.explain()
    for mode in ("engine", "native"):
        got = tks.run(own, mode=mode, trace=False).to_arrow()
        keys = got.column("ak").to_pylist()
        assert not any(math.isnan(k) for k in keys), mode
        assert sorted(keys) == [-INF, -0.0, -0.0, 0.0, 0.0, 1.5, INF], mode
