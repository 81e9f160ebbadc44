"""Engine mode's shuffled hash join (toolkit/spark/running/shuffled_join.py) against Spark.

A low `spark.exprscope.broadcastThreshold` (-1: never broadcast) forces small
tables down the shuffled path, over three shuffle partitions, so the keys really
spread over partitions. Every join kind,
with and without a residual filter, null keys and keys of different integer
widths: exprscope's rows must be Spark's own.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.spark.collected import Collected
from tests.spark.settings import spark_settings
from toolkit import plan

pytestmark = pytest.mark.spark

KINDS = ["inner", "left", "right", "full", "left_semi", "left_anti"]
WIDTHS = {"byte": pa.int8(), "short": pa.int16(), "int": pa.int32(), "bigint": pa.int64()}
PARTITIONS = 3


def _shuffled(spark, threshold: str = "-1"):
    """Joins shuffled (no broadcast below `threshold`), over PARTITIONS partitions."""
    return spark_settings(spark, {"spark.exprscope.broadcastThreshold": threshold,
                                  "spark.sql.shuffle.partitions": str(PARTITIONS)})


def _frame(spark, name: str, keys: list, values: list, width: str):
    """A Spark DataFrame of two partitions: {name}k of type `width`, {name}v bigint."""
    table = pa.table({f"{name}k": pa.array(keys, WIDTHS[width]),
                      f"{name}v": pa.array(values, pa.int64())})
    df = spark.createDataFrame(table, schema=f"{name}k {width}, {name}v bigint")
    return df.repartition(2)


def _exprscope_join(a, b, kind: str, residual: bool):
    """a JOIN b ON ak = bk [AND av < bv + 3] as an exprscope plan over the two DataFrames;
    a key narrower than the other is cast to the wider type in a projection below the join
    (Spark's analyzer casts it the same way)."""
    left, right = plan.scan("a", a), plan.scan("b", b)
    ta, tb = left.schema.field("ak").type, right.schema.field("bk").type
    if ta != tb:
        wide = ta if ta.bit_width > tb.bit_width else tb
        if wide != ta:
            left = left.project([tk.field("ak").cast(wide), "av"], names=["ak", "av"])
        else:
            right = right.project([tk.field("bk").cast(wide), "bv"], names=["bk", "bv"])
    condition = (tk.field("av") < tk.field("bv") + 3) if residual else None
    how = {"left_semi": "semi", "left_anti": "anti"}.get(kind, kind)
    return left.join(right, on=[("ak", "bk")], how=how, condition=condition)


def _spark_join(a, b, kind: str, residual: bool):
    """The same join as Spark runs it: the oracle."""
    condition = a.ak == b.bk
    if residual:
        condition = condition & (a.av < b.bv + 3)
    return a.join(b, condition, kind)


def _engine_equals_spark(a, b, kind: str, residual: bool):
    """Runs the join in engine mode, checks its rows are Spark's; returns the run."""
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    expected = _spark_join(a, b, kind, residual).toArrow()
    run = tks.run(_exprscope_join(a, b, kind, residual), mode="engine")
    got = run.to_arrow().rename_columns(expected.schema.names)
    check = tables_differences(expected, got.cast(expected.schema))
    assert check.equal, f"{check}\nstages: {run.stages}"
    return run


@pytest.mark.parametrize("residual", [False, True], ids=["keys", "keys+filter"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_join_kind_shuffled_returns_sparks_rows(spark, kind, residual):
    """Null keys on both sides, a byte key against a bigint one, many rows per key."""
    keys_a = [None, 1, 2, 2, 3, 5, None, 7, 8, 8, 9, -4, 0, 11, 12, 13]
    keys_b = [2, 2, None, 3, 4, 5, 5, None, 8, 10, -4, 0, 0, 13, 14, 15, 16]
    a = _frame(spark, "a", keys_a, list(range(len(keys_a))), "byte")
    b = _frame(spark, "b", keys_b, [v * 2 - 10 for v in range(len(keys_b))], "bigint")
    with _shuffled(spark):
        run = _engine_equals_spark(a, b, kind, residual)
    (join,) = [s for s in run.stages if "HashJoinExec" in s]
    assert f"shuffled: both inputs repartitioned by its keys into {PARTITIONS} partitions" in join
    assert ("must see every row of a key of both sides together" if kind in ("right", "full")
            else "broadcastThreshold=-1 turns broadcasts off") in join
    stage = join.split(":")[0]
    assert run.trace.batches[stage]["partitions"] == PARTITIONS  # spread, not on one


@settings(max_examples=6, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_tables_join_shuffled_as_spark_joins_them(spark, data):
    """Random small tables, keys of random widths with nulls, a random kind and filter."""
    key = st.one_of(st.none(), st.integers(-3, 6))
    keys_a = data.draw(st.lists(key, max_size=30), "left keys")
    keys_b = data.draw(st.lists(key, max_size=30), "right keys")
    width_a = data.draw(st.sampled_from(sorted(WIDTHS)), "left key type")
    width_b = data.draw(st.sampled_from(sorted(WIDTHS)), "right key type")
    kind = data.draw(st.sampled_from(KINDS), "kind")
    residual = data.draw(st.booleans(), "residual filter")
    a = _frame(spark, "a", keys_a, [i * 3 % 7 for i in range(len(keys_a))], width_a)
    b = _frame(spark, "b", keys_b, [i * 5 % 11 for i in range(len(keys_b))], width_b)
    with _shuffled(spark):
        _engine_equals_spark(a, b, kind, residual)


def test_a_join_below_the_threshold_still_broadcasts_and_says_why(spark):
    a = _frame(spark, "a", [1, 2, None], [1, 2, 3], "int")
    b = _frame(spark, "b", [2, 3], [4, 5], "int")
    with _shuffled(spark, threshold="10MB"):
        run = _engine_equals_spark(a, b, "left_semi", False)
    (join,) = [s for s in run.stages if "HashJoinExec" in s]
    assert "with its right input broadcast (2 rows): Spark estimates the right input at" in join
    assert "at most spark.exprscope.broadcastThreshold=10485760" in join


def test_a_right_input_spark_overestimates_is_measured_then_broadcast(spark):
    """Spark's estimate of a filtered input is the unfiltered size: above the threshold,
    the input is computed and cached, and its real size (3 rows) lets it broadcast."""
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    a = _frame(spark, "a", [1, 2, None, 2], [1, 2, 3, 4], "bigint")
    b = spark.range(200_000).selectExpr("id as bk", "id * 2 as bv").filter("bk < 3")
    q = plan.scan("a", a).join(plan.scan("b", b), on=[("ak", "bk")], how="semi")
    with _shuffled(spark, threshold="100KB"):
        run = tks.run(q, mode="engine", trace=False)
        got = run.to_arrow()
    (join,) = [s for s in run.stages if "HashJoinExec" in s]
    assert "with its right input broadcast (3 rows)" in join
    measured = re.search(r"estimated the right input at (\d+) bytes, above "
                         r"spark.exprscope.broadcastThreshold=102400; computed, it is "
                         r"(\d+) bytes, at most the threshold", join)
    assert measured and int(measured[2]) < 102_400 < int(measured[1]), join
    expected = a.join(b, a.ak == b.bk, "left_semi").toArrow()
    assert tables_differences(expected, got.rename_columns(expected.schema.names)).equal


@pytest.fixture(scope="module")
def tpch_views(spark):
    from toolkit.spark import tpch, tpch_sql

    return tpch_sql.register_views(spark, tpch.tables(0.01, tpch.ALL_TABLES))


# the join kinds the 22 queries plan: inner chains (21), a left join with a residual
# filter (13), a semi join (4, 21), anti joins with NOT IN's null rule (16) and for NOT
# EXISTS (21, 22), a keyless left join of a scalar subquery (22, which stays broadcast)
@pytest.mark.parametrize("n", [4, 13, 16, 21, 22])
def test_tpch_query_with_every_join_shuffled_returns_sparks_rows(spark, tpch_views, n):
    from toolkit import spark as tks
    from toolkit.spark import tpch_sql
    from toolkit.spark.running.compare import tables_differences

    df = spark.sql(tpch_sql.SQL[n])
    expected = Collected().rows(df)
    with _shuffled(spark):
        run = tks.run(tks.from_spark(df), mode="engine", trace=False)
        got = run.to_arrow()
    check = tables_differences(expected, got, rel_tol=1e-9, abs_tol=1e-6)
    assert check.equal, str(check)
    joins = [s for s in run.stages if "HashJoinExec" in s]
    assert any("shuffled" in s for s in joins), run.stages
    assert not any("broadcast (" in s and "no keys" not in s for s in joins), run.stages


def test_the_threshold_setting_reads_as_spark_writes_it():
    from toolkit.spark.errors import SparkArgumentError
    from toolkit.spark.running.shuffled_join import parse_bytes

    assert parse_bytes("10485760b") == parse_bytes("10MB") == parse_bytes("10m") == 10 << 20
    assert parse_bytes("-1") == -1 and parse_bytes("0") == 0
    with pytest.raises(SparkArgumentError, match="broadcastThreshold is .ten megabytes., not a size such as 256MB"):
        parse_bytes("ten megabytes")


def test_a_right_input_the_workers_scan_is_sized_by_its_files(spark, tmp_path):
    """To Spark, a Parquet scan the Python workers read is a `range` of work units (an
    estimate of a few bytes): the join takes the files' size instead, so a right input
    of 2 MB of Parquet is measured against a 100 KB threshold, and shuffled (a semi
    join: an inner one would stream the larger side instead)."""
    import numpy as np
    import pyarrow.parquet as pq

    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    rng = np.random.default_rng(3)
    keys = rng.integers(0, 1 << 40, 250_000)
    pq.write_table(pa.table({"bk": keys, "bv": rng.random(250_000)}), tmp_path / "b.parquet")
    a = _frame(spark, "a", [int(keys[0]), int(keys[7]), None, 5], [1, 2, 3, 4], "bigint")
    b = spark.read.parquet(str(tmp_path / "b.parquet"))
    right = plan.scan("b", b).filter(tk.field("bv") < 0.9)  # the workers filter their scan
    q = plan.scan("a", a).join(right, on=[("ak", "bk")], how="semi")
    with _shuffled(spark, threshold="100KB"):
        run = tks.run(q, mode="engine", trace=False)
        got = run.to_arrow()
    (join,) = [s for s in run.stages if "HashJoinExec" in s]
    assert "shuffled" in join and "computed, it is" in join, join
    expected = a.join(b.filter("bv < 0.9"), a.ak == b.bk, "left_semi").toArrow()
    assert tables_differences(expected, got.rename_columns(expected.schema.names)).equal
