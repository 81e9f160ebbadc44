"""Engine mode's shuffled hash join: Spark moves both inputs by key, exprscope joins.

Which strategy a hash join takes (`choose_strategy`), as Spark's own planner
chooses between a broadcast hash join and a shuffled one:

- no keys (a cross join, or a join on a condition only): the right input is
  broadcast; a right or full one runs on one partition, where it sees every row;
- a right or full join with keys: shuffled, whatever the sizes (broadcasting
  the right input would need every left row on one partition to find the right
  rows without a match, which is a shuffle of the whole left input anyway);
- otherwise broadcast when the right input's size is at most the session's
  `spark.exprscope.broadcastThreshold` (256MB unless set; -1: never; see
  `broadcast_threshold` for why not Spark's 10MB), else shuffled. The size is
  Spark's estimate (`sizeInBytes` of the optimized plan of the DataFrame computing
  the right input, the figure Spark's planner compares); when that is above the
  threshold, the right input is computed and cached first and its real size
  decides (as Spark's adaptive execution turns a sort-merge join whose side turns
  out small into a broadcast), since Spark's estimate sees the width of rows but
  not how many a filter, join or aggregate keeps. Without an estimate (Spark
  Connect has no statistics to read) the join broadcasts.

A shuffled join is one shuffle: each input's rows are tagged with their side
(0 left, 1 right) and padded with nulls for the other side's columns, the two
are unioned, and Spark repartitions the union by each key pair's value
(`coalesce(left key, right key)` cast to the key's type, floats with -0.0 as
0.0 and every NaN as one NaN, as a join that compares float keys as Spark does
pairs them) into `spark.sql.shuffle.partitions` partitions
(a number, so adaptive execution does not coalesce them onto fewer cores), and
equal keys of both sides meet in one partition. Each partition then
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

from ...plan.sources import Source, limited_batches
from ..errors import SparkArgumentError
from .partition_errors import kernel_error_from

__all__ = [
    "THRESHOLD_SETTING",
    "CoPartitionSource",
    "JoinStrategy",
    "RightInput",
    "RightRowsSource",
    "broadcast_threshold",
    "choose_strategy",
    "co_partitioned",
    "estimated_bytes",
    "right_input",
]

SIDE = "side"  # the union's tag column: 0 for a left row, 1 for a right row


@dataclass(frozen=True)
class JoinStrategy:
    """How a hash join runs, and why (the stage description says both)."""

    kind: str  # "broadcast", "shuffled" or "one partition"
    reason: str


THRESHOLD_SETTING = "spark.exprscope.broadcastThreshold"
DEFAULT_THRESHOLD = "256MB"


def broadcast_threshold(spark) -> int:
    """The largest right input engine mode broadcasts, in bytes (-1: never broadcast):
    the session's `spark.exprscope.broadcastThreshold`, 256MB unless set.

    Not Spark's own `spark.sql.autoBroadcastJoinThreshold` (10MB): Spark's shuffle stays
    in the JVM, while a shuffled join in engine mode moves both inputs out to Python
    and back, which measured 1.5 to 2 times slower than broadcasting TPC-H Q4's 30 MB of
    keys; a broadcast is bounded by what the driver can collect."""
    return parse_bytes(spark.conf.get(THRESHOLD_SETTING, DEFAULT_THRESHOLD))


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "g": 1 << 30, "gb": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50}


def parse_bytes(text: str) -> int:
    """A Spark byte-size setting ("10485760b", "10MB", "-1") as a number of bytes."""
    match = re.fullmatch(r"\s*(-?\d+)\s*([a-zA-Z]*)\s*", str(text))
    if match is None or match[2].lower() not in _UNITS:
        raise SparkArgumentError(
            f"{THRESHOLD_SETTING} is {text!r}, not a size such as 256MB or -1")
    n = int(match[1])
    return n if n < 0 else n * _UNITS[match[2].lower()]


def estimated_bytes(df) -> int | None:
    """Spark's estimate of `df`'s size (its optimizer's statistics, read without running
    anything; a cached DataFrame's, once computed, are its cached bytes); None where there
    are none to read (Spark Connect)."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None:
        return None
    return int(str(jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))  # a BigInt


@dataclass
class RightInput:
    """A join's right input and what is known of its size."""

    df: object  # the DataFrame computing it (cached when `measured` is not None)
    estimate: int | None  # Spark's estimate before running anything
    measured: int | None = None  # the bytes Spark cached when it was computed


def right_input(df, threshold: int, scanned: int = 0) -> RightInput:
    """The right input, computed and cached when Spark's estimate is above `threshold`.

    Spark's estimate knows how wide rows are, not how many a filter, a join or an
    aggregate keeps, so a right input estimated large is measured the way Spark's
    adaptive execution measures a shuffle stage before it turns a sort-merge join into
    a broadcast: computed once (cached in memory and on disk, so neither strategy
    computes it again) and its real size read.

    `scanned` is Spark's estimate of the largest table the input reads. A scan the
    Python workers read themselves is a `range` of work units to Spark, which it
    estimates at a few bytes whatever the files hold; so the input is taken to be at
    least that large, and measured when that is above the threshold.
    """
    estimate = estimated_bytes(df)
    if estimate is not None:
        estimate = max(estimate, scanned)
    if estimate is None or threshold < 0 or estimate <= threshold:
        return RightInput(df, estimate)
    from pyspark import StorageLevel

    cached = df.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        cached.count()
    except Exception as exc:
        cached.unpersist()
        error = kernel_error_from(exc)  # a partition's kernel error, as collect_arrow says it
        if error is None:
            raise
        raise error from None
    # a new DataFrame over the same plan: its optimizer finds the cache, and reads its size
    return RightInput(cached, estimate, estimated_bytes(cached.select("*")))


def choose_strategy(join, right: RightInput | None, threshold: int) -> JoinStrategy:
    """The strategy of `join` (a HashJoinExec), given its right input's sizes."""
    outer = join.how in ("right", "full")
    if not join.on:
        if outer:
            return JoinStrategy("one partition", "no keys to shuffle by, and a "
                                f"{join.how} join must see every left row")
        return JoinStrategy("broadcast", "no keys to shuffle by")
    if outer:
        return JoinStrategy("shuffled", f"a {join.how} join must see every row of a key "
                            "of both sides together")
    if right is None or right.estimate is None:
        return JoinStrategy("broadcast", "Spark has no size estimate of the right input")
    setting = f"{THRESHOLD_SETTING}={threshold}"
    size = f"Spark estimates the right input at {right.estimate} bytes"
    if right.measured is not None:
        size = (f"Spark estimated the right input at {right.estimate} bytes, above {setting}; "
                f"computed, it is {right.measured} bytes")
        setting = "the threshold"
    size_now = right.estimate if right.measured is None else right.measured
    if threshold < 0:
        return JoinStrategy("shuffled", f"{size}; {setting} turns broadcasts off")
    if 0 <= size_now <= threshold:
        return JoinStrategy("broadcast", f"{size}, at most {setting}")
    return JoinStrategy("shuffled", f"{size}, above {setting}")


def co_partitioned(left_df, right_df, on, partitions: int):
    """The union of both inputs, each row tagged with its side, repartitioned by the keys.

    Columns: `side`, then l0.. (the left input's columns), then r0.. (the right
    input's); a row's other side's columns are null. `on` pairs left and right
    column positions; `partitions` is how many partitions the union is spread over.
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
        if isinstance(key_type, (T.FloatType, T.DoubleType)):  # -0.0 and 0.0 are one key,
            key = (F.when(key == 0, F.lit(0.0).cast(key_type))  # and so is every NaN
                   .when(F.isnan(key), F.lit(float("nan")).cast(key_type)).otherwise(key))
        keys.append(key)
    return union.repartition(partitions, *keys)


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
        sides = ((self.schema, 1), (self.right_schema, 1 + n_left))
        for batch in self._batches:
            self.batches_in += 1
            self.rows_before = self.rows_in
            self.rows_in += batch.num_rows
            if not batch.num_rows:
                continue
            tag = batch.column(0)
            # a partition reads each map task's rows in turn: most batches hold one side
            low, high = pc.min_max(tag).values()
            for side, out in ((0, left), (1, right)):
                if not low.as_py() <= side <= high.as_py():
                    continue
                schema, first = sides[side]
                rows = batch.select(list(range(first, first + len(schema))))
                if low != high:
                    rows = rows.filter(pc.equal(tag, side))
                out.append(_cast(rows.columns, schema))
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
    picked = batches if columns is None else (b.select(list(columns)) for b in batches)
    return limited_batches(iter(picked), limit)
