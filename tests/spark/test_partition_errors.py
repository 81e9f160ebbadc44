"""A kernel failing inside a Spark partition (engine mode) is exprscope's KernelError.

Local evaluation names the node and the row; inside Spark the same error comes
back through pyspark's exception, and the driver raises the KernelError again,
saying which partition and which row of it, counted over every Arrow batch
Spark handed that partition. The oracle for node, message and row is a local
evaluation of the same partition's rows.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit import spark as tks
from toolkit.spark.running.partition_errors import (
    MARKER,
    PartitionPlace,
    kernel_error_from,
    marked,
)

pytestmark = pytest.mark.spark

ROWS, PARTITIONS, BATCH_ROWS = 100_000, 4, 10_000
PER_PARTITION = ROWS // PARTITIONS
ZERO_AT = 62_345  # partition 2, row 12,345 of it: in its second Arrow batch
BAD_TEXT_AT = 37_777  # partition 1, row 12,777


def _columns(ids: pa.Array) -> dict:
    """a, z (0 only at ZERO_AT), s (the id as text, "x" only at BAD_TEXT_AT), from the ids."""
    import pyarrow.compute as pc

    return {"a": ids,
            "z": pc.if_else(pc.equal(ids, ZERO_AT), 0, 1).cast(pa.int64()),
            "s": pc.if_else(pc.equal(ids, BAD_TEXT_AT), "x", ids.cast(pa.string()))}


@pytest.fixture(scope="module")
def ranged(spark):
    """100,000 rows in 4 partitions of consecutive ids, handed over in 10,000-row batches."""
    from pyspark.sql import functions as F

    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key)
    spark.conf.set(key, str(BATCH_ROWS))
    ids = F.col("id")
    df = spark.range(0, ROWS, numPartitions=PARTITIONS).select(
        ids.alias("a"),
        F.when(ids == ZERO_AT, 0).otherwise(1).cast("long").alias("z"),
        F.when(ids == BAD_TEXT_AT, "x").otherwise(ids.cast("string")).alias("s"))
    yield df
    spark.conf.set(key, before)


def _local_error(expr, partition: int) -> tk.KernelError:
    """The KernelError local evaluation raises over that partition's rows."""
    ids = pa.array(range(partition * PER_PARTITION, (partition + 1) * PER_PARTITION),
                   pa.int64())
    table = pa.table(_columns(ids))
    with pytest.raises(tk.KernelError) as info:
        tk.evaluate(tk.bind(expr, table.schema), table)
    return info.value


DIVIDE = tk.call("divide", [tk.field("a"), tk.field("z")])
CAST = tk.field("s").cast(pa.int64())
CASES = {"divide by zero": (DIVIDE, ZERO_AT), "checked cast": (CAST, BAD_TEXT_AT)}


@pytest.mark.parametrize("as_plan", [False, True], ids=["expression", "plan"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_error_names_the_node_the_partition_and_its_row(ranged, case, as_plan):
    expr, bad_id = CASES[case]
    runnable = plan.scan("t", ranged).project([expr], names=["out"]) if as_plan else expr
    with pytest.raises(tk.KernelError) as info:
        tks.run(runnable, ranged, mode="engine").to_arrow()
    err = info.value
    partition, row = divmod(bad_id, PER_PARTITION)
    assert (err.partition, err.row, err.batch) == (partition, row, None)
    local = _local_error(expr, partition)
    relation = "t" if as_plan else "input"  # Spark's plan names its columns by relation
    qualified = (str(local.node).replace("(a, z)", f"({relation}.a, {relation}.z)")
                 .replace("cast(s,", f"cast({relation}.s,"))
    assert err.node == qualified and err.path == local.path == ()
    assert local.row == row
    local_message = str(local)[:str(local).index(f" in {local.node}")]
    assert str(err) == f"{local_message} in {qualified} at row {row} of Spark partition {partition}"
    assert "Traceback" not in str(err) and "PythonException" not in str(err)


def test_behind_a_filter_the_row_counts_over_one_batch_and_says_so(ranged):
    # the filter keeps every row, but exprscope cannot know which rows it kept
    p = (plan.scan("t", ranged).filter(tk.field("a") >= 0)
         .project([DIVIDE], names=["out"]))
    with pytest.raises(tk.KernelError) as info:
        tks.run(p, ranged, mode="engine").to_arrow()
    err = info.value
    partition, row = divmod(ZERO_AT, PER_PARTITION)
    batch, row_in_batch = divmod(row, BATCH_ROWS)
    assert (err.partition, err.batch, err.row) == (partition, batch, row_in_batch)
    assert str(err).endswith(f"at row {row_in_batch} of the rows that reached it from "
                             f"Arrow batch {batch} of Spark partition {partition}")


@pytest.fixture(scope="module")
def shuffled(spark):
    table = pa.table({"a": list(range(40)), "z": [1] * 30 + [0] * 10})
    return spark.createDataFrame(table.to_pandas()).repartition(4)


def test_a_shuffled_partition_names_a_row_that_is_a_zero(shuffled):
    with pytest.raises(tk.KernelError) as info:
        tks.run(DIVIDE, shuffled, mode="engine").to_arrow()
    err = info.value
    rows = (shuffled.rdd.mapPartitionsWithIndex(lambda i, it: [(i, list(it))])
            .collect())
    partition_rows = dict(rows)[err.partition]
    assert partition_rows[err.row]["z"] == 0
    assert all(r["z"] != 0 for r in partition_rows[:err.row])


def test_the_marked_line_round_trips_and_strangers_text_is_ignored():
    node_text = 'is_in(s, {"a in b", "c\\nd"})'
    original = tk.KernelError("cast failed: Failed to parse \"a in b\"", node=node_text,
                              path=(1, 0), row=7)
    line = marked(original, PartitionPlace(3, rows_before=20))
    assert "\n" not in line
    text = f"PythonException: Traceback...\nRuntimeError: {line}\n  at ..."
    back = kernel_error_from(RuntimeError(text))
    assert (back.row, back.path, back.partition, back.batch) == (27, (1, 0), 3, None)
    assert back.node == node_text
    assert str(back) == (f'cast failed: Failed to parse "a in b" in {node_text} '
                         "at row 27 of Spark partition 3")
    batch_line = marked(original, PartitionPlace(3, batch=2))
    assert str(kernel_error_from(RuntimeError(batch_line))).endswith(
        "at row 7 of the rows that reached it from Arrow batch 2 of Spark partition 3")
    assert kernel_error_from(RuntimeError("something else")) is None
    assert kernel_error_from(RuntimeError(MARKER + "{not json")) is None
    assert kernel_error_from(RuntimeError(MARKER + "[1]\n")) is None


def test_the_marked_line_is_bounded():
    huge = tk.KernelError("failed: " + "v" * 100_000, node="n" * 100_000,
                          path=range(5_000), row=1)
    line = marked(huge, PartitionPlace(0, rows_before=0))
    facts = json.loads(line[len(MARKER):])
    assert len(line) < 20_000 and len(facts["path"]) == 1_000
    back = kernel_error_from(RuntimeError(line))
    assert back.row == 1 and len(back.node) == 4_000
