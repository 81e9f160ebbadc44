"""Engine mode's shuffled hash join: Spark moves both inputs by key, exprscope joins.

Which strategy a hash join takes (`choose_strategy`), as Spark's own planner
chooses between a broadcast hash join and a shuffled one:

- no keys (a cross join, or a join on a condition only): the right input is
  broadcast; a right or full one runs on one partition, where it sees every row;
- a right or full join with keys: shuffled, whatever the sizes (broadcasting
  the right input would need every left row on one partition to find the right
  rows without a match, which is a shuffle of the whole left input anyway);
- otherwise broadcast when Spark's estimate of the right input's size
  (`sizeInBytes` of the optimized plan of the DataFrame computing it, the figure
  Spark's planner compares) is at most the session's
  `spark.sql.autoBroadcastJoinThreshold` (-1: never), else shuffled. Without an
  estimate (Spark Connect has no statistics to read) the join broadcasts.

A shuffled join is one shuffle: each input's rows are tagged with their side
(0 left, 1 right) and padded with nulls for the other side's columns, the two
are unioned, and Spark repartitions the union by each key pair's value
(`coalesce(left key, right key)` cast to the key's type, floats with -0.0 as
0.0, as the join compares them), so equal keys of both sides meet in one
partition, whatever partition count Spark settles on. Each partition then
splits its rows by the tag (`CoPartitionSource`) and runs exprscope's
HashJoinExec on the two parts: exact for every join kind, since every row whose
key could match one of a partition's rows is in that partition, and a row with
a null key (which matches nothing) is unmatched wherever it lands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ...plan.sources import Source

__all__ = ["CoPartitionSource", "JoinStrategy", "RightRowsSource", "broadcast_threshold",
           "choose_strategy", "co_partitioned", "estimated_bytes"]

SIDE = "side"  # the union's tag column: 0 for a left row, 1 for a right row


@dataclass(frozen=True)
class JoinStrategy:
    """How a hash join runs, and why (the stage description says both)."""

    kind: str  # "broadcast", "shuffled" or "one partition"
    reason: str


def broadcast_threshold(spark) -> int:
    """The session's `spark.sql.autoBroadcastJoinThreshold` in bytes (-1: never broadcast)."""
    text = spark.conf.get("spark.sql.autoBroadcastJoinThreshold", "10MB")
    return parse_bytes(text)


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "g": 1 << 30, "gb": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50}


def parse_bytes(text: str) -> int:
    """A Spark byte-size setting ("10485760b", "10MB", "-1") as a number of bytes."""
    match = re.fullmatch(r"\s*(-?\d+)\s*([a-zA-Z]*)\s*", str(text))
    if match is None or match[2].lower() not in _UNITS:
        from ..errors import SparkArgumentError

        raise SparkArgumentError(
            f"spark.sql.autoBroadcastJoinThreshold is {text!r}, not a size such as 10MB or -1")
    n = int(match[1])
    return n if n < 0 else n * _UNITS[match[2].lower()]


def estimated_bytes(df) -> int | None:
    """Spark's estimate of `df`'s size (its optimizer's statistics, read without running
    anything); None where there are none to read (Spark Connect)."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None:
        return None
    return int(str(jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))  # a BigInt


def choose_strategy(join, build_bytes: int | None, threshold: int) -> JoinStrategy:
    """The strategy of `join` (a HashJoinExec) given Spark's estimate of its right input."""
    outer = join.how in ("right", "full")
    if not join.on:
        if outer:
            return JoinStrategy("one partition", "no keys to shuffle by, and a "
                                f"{join.how} join must see every left row")
        return JoinStrategy("broadcast", "no keys to shuffle by")
    if outer:
        return JoinStrategy("shuffled", f"a {join.how} join must see every row of a key "
                            "of both sides together")
    if build_bytes is None:
        return JoinStrategy("broadcast", "Spark has no size estimate of the right input")
    size = f"Spark estimates the right input at {build_bytes} bytes"
    if 0 <= build_bytes <= threshold:
        return JoinStrategy("broadcast", f"{size}, at most "
                            f"spark.sql.autoBroadcastJoinThreshold={threshold}")
    if threshold < 0:
        return JoinStrategy("shuffled", f"{size}; spark.sql.autoBroadcastJoinThreshold="
                            f"{threshold} turns broadcasts off")
    return JoinStrategy("shuffled", f"{size}, above "
                        f"spark.sql.autoBroadcastJoinThreshold={threshold}")


def co_partitioned(left_df, right_df, on):
    """The union of both inputs, each row tagged with its side, repartitioned by the keys.

    Columns: `side`, then l0.. (the left input's columns), then r0.. (the right
    input's); a row's other side's columns are null. `on` pairs left and right
    column positions.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    left_types = [f.dataType for f in left_df.schema.fields]
    right_types = [f.dataType for f in right_df.schema.fields]

    def tagged(df, side: int):
        own = [df[c] for c in df.columns]
        tag = F.lit(side).cast(T.ByteType()).alias(SIDE)
        lefts = [c.alias(f"l{i}") for i, c in enumerate(own)] if side == 0 else \
            [F.lit(None).cast(t).alias(f"l{i}") for i, t in enumerate(left_types)]
        rights = [c.alias(f"r{j}") for j, c in enumerate(own)] if side == 1 else \
            [F.lit(None).cast(t).alias(f"r{j}") for j, t in enumerate(right_types)]
        return df.select(tag, *lefts, *rights)

    union = tagged(left_df, 0).union(tagged(right_df, 1))
    keys = []
    for a, b in on:
        key_type = left_types[a]
        key = F.coalesce(F.col(f"l{a}"), F.col(f"r{b}")).cast(key_type)
        if isinstance(key_type, (T.FloatType, T.DoubleType)):  # -0.0 and 0.0 are one key
            key = F.when(key == 0, F.lit(0.0).cast(key_type)).otherwise(key)
        keys.append(key)
    return union.repartition(*keys)


class CoPartitionSource(Source):
    """One partition of a co-partitioned union: the left input's rows (the right input
    reads its rows through `RightRowsSource`), each cast to the types the plan declared.

    Fed the partition's batches as a PartitionSource is; it reads them all on the first
    read of either side (a hash join reads both whole), split by the side tag.
    """

    kind = "SparkCoPartition"

    def __init__(self, left_schema: pa.Schema, right_schema: pa.Schema, stage: str):
        self.schema = left_schema
        self.right_schema = right_schema
        self.stage = stage
        self._batches = iter(())
        self._sides: tuple[list, list] | None = None
        self.rows_in = 0
        self.batches_in = 0
        self.rows_before = 0

    def feed(self, batches) -> None:
        self._batches = batches
        self._sides = None

    def side(self, which: int) -> list[pa.RecordBatch]:
        """The batches of one side (0 left, 1 right) of the partition."""
        if self._sides is None:
            self._sides = self._split()
        return self._sides[which]

    def _split(self) -> tuple[list, list]:
        left, right = [], []
        n_left = len(self.schema)
        for batch in self._batches:
            self.batches_in += 1
            self.rows_before = self.rows_in
            self.rows_in += batch.num_rows
            tag = batch.column(0)
            for side, out, schema, first in ((0, left, self.schema, 1),
                                             (1, right, self.right_schema, 1 + n_left)):
                rows = batch.filter(pc.equal(tag, side))
                if rows.num_rows:
                    out.append(_cast(rows.columns[first:first + len(schema)], schema))
        return left, right

    def batches(self, columns=None, limit=None):
        return _read(self.side(0), columns, limit)

    def describe(self) -> str:
        return f"stage={self.stage}, left rows"


class RightRowsSource(Source):
    """The right input's rows of the partition a CoPartitionSource was fed."""

    kind = "SparkCoPartition"

    def __init__(self, partition: CoPartitionSource):
        self.partition = partition
        self.schema = partition.right_schema

    def batches(self, columns=None, limit=None):
        return _read(self.partition.side(1), columns, limit)

    def describe(self) -> str:
        return f"stage={self.partition.stage}, right rows"


def _cast(columns, schema: pa.Schema) -> pa.RecordBatch:
    arrays = [c if c.type == f.type else c.cast(f.type) for c, f in zip(columns, schema)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _read(batches: list, columns, limit):
    left = limit
    for batch in batches:
        if left is not None and left <= 0:
            return
        if columns is not None:
            batch = batch.select(list(columns))
        if left is not None:
            batch = batch.slice(0, left)
            left -= batch.num_rows
        yield batch
