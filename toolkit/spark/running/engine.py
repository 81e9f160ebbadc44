"""Engine mode: exprscope's own physical plan, run inside Spark's partitions by `mapInArrow`.

The physical plan is cut into stages at its blocking nodes. Spark does only
the data movement; every expression, filter, aggregate, join, sort and limit
is computed by exprscope:

- a chain of filters and projections runs per partition, fused with the node
  below it into one `mapInArrow` (a scan of plain Parquet files is read by the
  Python workers themselves, `parquet_scan.py`; any other scan's chain reads
  Spark's own partitions, pre-filtered by Spark where that provably keeps every
  row the filter keeps: `scan_prefilter.py`);
- a hash aggregate runs partially in its input's fragment, then finally per
  partition after Spark repartitions the partial rows by its group keys; one
  that cannot be split runs whole after Spark repartitions its input by its
  group keys (plain columns), or on one partition for a global aggregate or
  computed keys;
- a hash join broadcasts its right input (collected as Arrow) and joins each
  partition of the left input against it (exact for inner, cross, left, semi and
  anti joins) in the left input's own fragment, so a chain of such joins over a
  scan is one `mapInArrow`, when the right input is at most
  `spark.exprscope.broadcastThreshold` (256MB unless set); a larger one, and every
  right or full join with keys, runs shuffled: Spark repartitions both inputs by
  the join keys in one shuffle and each partition joins its rows of both sides
  (`shuffled_join`, which states the rule); a right or full join without keys
  joins the left input on one partition against the broadcast right input;
- a sort, and a limit after a per-partition limit, run on one partition;
- a union is Spark's union of its inputs' partitions, by position.

Each `mapInArrow` declares the StructType of its fragment's physical schema
and checks on every batch that the output schema equals the plan's; counters
of what was evaluated travel back in an accumulator (see `engine_trace`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import pyarrow as pa

import toolkit as tk

from ...errors import KernelError
from ...execution.parallel import serial
from ...observe import observing
from ...plan.invariants import current_mode
from ...plan.physical_plan import (
    EmptyExec,
    FilterExec,
    HashAggregateExec,
    HashJoinExec,
    LimitExec,
    ProjectionExec,
    ScanExec,
    SortExec,
    UnionExec,
    WindowExec,
)
from ...plan.schema_problems import schema_problems
from ...plan.sources import Source, TableSource
from ..errors import SparkPartitionError, SparkSchemaMismatch, SparkTranslationError
from ..translate.types import spark_compatible_schema, to_struct_type
from . import shipping
from .engine_trace import CounterParam, PartitionObserver
from .inputs import scan_dataframe
from .parquet_scan import JvmScan, ScanInput, UnitsReader, WorkerScan, plan_worker_scan
from .partial_aggregate import split_aggregate
from .partition_errors import PartitionPlace, collect_arrow, marked
from .scan_prefilter import describe as describe_prefilter
from .scan_prefilter import prefilter_column, prefilter_conjuncts
from .shuffled_join import (
    CoPartitionSource,
    RightRowsSource,
    broadcast_threshold,
    choose_strategy,
    co_partitioned,
    right_input,
)

__all__ = ["BroadcastSource", "EngineFrames", "PartitionSource", "engine_dataframe"]


class PartitionSource(Source):
    """The batches Spark hands one partition, cast to the types the plan declared."""

    kind = "SparkPartition"

    def __init__(self, schema: pa.Schema, stage: str, reader=None):
        self.schema = schema
        self.stage = stage
        self.reader = reader  # turns what Spark hands the partition into the rows (parquet_scan)
        self._batches: Iterator[pa.RecordBatch] = iter(())
        self.rows_in = 0
        self.batches_in = 0
        self.rows_before = 0  # rows of the batches handed out before the latest one

    def feed(self, batches: Iterator[pa.RecordBatch]) -> None:
        self._batches = batches if self.reader is None else self.reader(batches)

    def batches(self, columns=None, limit=None):
        left = limit
        for batch in self._batches:
            if left is not None and left <= 0:
                return
            self.batches_in += 1
            self.rows_before = self.rows_in
            self.rows_in += batch.num_rows
            arrays = [column if column.type == field.type else column.cast(field.type)
                      for column, field in zip(batch.columns, self.schema)]
            out = pa.RecordBatch.from_arrays(arrays, schema=self.schema)
            if columns is not None:
                out = out.select(list(columns))
            if left is not None:
                out = out.slice(0, left)
                left -= out.num_rows
            yield out

    def describe(self) -> str:
        return f"stage={self.stage}"


class BroadcastSource(Source):
    """A table every partition reads whole: the build side of a broadcast hash join."""

    kind = "SparkBroadcast"

    def __init__(self, broadcast, schema: pa.Schema):
        self.broadcast = broadcast
        self.schema = schema

    def batches(self, columns=None, limit=None):
        table = pa.ipc.open_stream(self.broadcast.value).read_all()
        arrays = [c if c.type == f.type else c.cast(f.type)
                  for c, f in zip(table.columns, self.schema)]
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        if columns is not None:
            table = table.select(list(columns))
        if limit is not None:
            table = table.slice(0, limit)
        return iter(table.to_batches())

    def describe(self) -> str:
        return "broadcast"


# the sources a stage's partition function feeds Spark's batches to (one per fragment)
FED_SOURCES = (PartitionSource, CoPartitionSource)


def _positional(schema: pa.Schema) -> pa.Schema:
    """Spark-side names c0, c1, ...: unique even when the plan's names repeat (after a join)."""
    compatible = spark_compatible_schema(schema)
    return pa.schema([f.with_name(f"c{i}") for i, f in enumerate(compatible)])


def _partition_function(fragment, stage: str, accumulator, trace: bool, mode: str):
    """The function `mapInArrow` runs on each partition (the fragment travels as bytes).

    `mode` is the validation mode, settled on the driver: a worker has none of the
    driver's `plan.validation` blocks.
    """
    out_schema = _positional(fragment.schema)
    shipped = shipping.dumps(fragment)
    aligned = _rows_align(fragment)

    def run_partition(batches):
        fragment = shipping.loads(shipped)
        source = next(n.source for n in _walk(fragment)
                      if isinstance(getattr(n, "source", None), FED_SOURCES))
        source.feed(batches)
        # a Spark task is already one core's worker: exprscope's own threads would oversubscribe
        with serial():
            try:
                yield from _run_partition(fragment, source)
            except KernelError as exc:  # the driver turns this line back into the KernelError
                if aligned:  # the error's row counts over the latest batch the source handed out
                    where = PartitionPlace(_partition_id(), rows_before=source.rows_before)
                else:
                    where = PartitionPlace(_partition_id(), batch=source.batches_in - 1)
                raise SparkPartitionError(marked(exc, where)) from None

    def _run_partition(fragment, source):
        if not trace:
            yield from _checked_batches(fragment, stage, None, out_schema, mode)
            return
        observer = PartitionObserver(stage)
        rows_out = batches_out = 0
        # a block observer, not an explicit one: evaluate() inside the plan reports to the block's
        with observing(observer):
            for batch in _checked_batches(fragment, stage, observer, out_schema, mode):
                rows_out += batch.num_rows
                batches_out += 1
                yield batch
        observer.count("stage", stage, "batches_in", n=source.batches_in)
        observer.count("stage", stage, "rows_in", n=source.rows_in)
        observer.count("stage", stage, "batches_out", n=batches_out)
        observer.count("stage", stage, "rows_out", n=rows_out)
        observer.count("stage", stage, "partitions", n=1)
        accumulator.add(dict(observer.counts))

    return run_partition


def _rows_align(fragment) -> bool:
    """Whether a kernel error's row in the fragment is a row of the source's latest batch:
    so when only projections stand above the source (an expression runs as one)."""
    node = fragment
    while isinstance(node, ProjectionExec):
        node = node.children[0]
    return isinstance(getattr(node, "source", None), PartitionSource)


def _partition_id() -> int | None:
    from pyspark import TaskContext  # pyspark: only here, inside a Spark worker

    context = TaskContext.get()
    return context.partitionId() if context is not None else None


def _checked_batches(fragment, stage: str, observer, out_schema: pa.Schema, mode: str):
    """The fragment's batches, each checked against the plan's schema, renamed for Spark."""
    for batch in fragment.execute(validation=mode):
        problems = schema_problems(fragment.schema, batch.schema, noun="column",
                                   declared_by="the plan says", nullable_may_narrow=True)
        if observer is not None:
            observer.count("check", stage, "output schema equals plan schema",
                           "failed" if problems else "passed")
        if problems:
            raise SparkSchemaMismatch(
                f"engine {stage}: a batch of {fragment.label()} does not have the plan's "
                "schema: " + "; ".join(problems))
        arrays = [c if c.type == f.type else c.cast(f.type)
                  for c, f in zip(batch.columns, out_schema)]
        yield pa.RecordBatch.from_arrays(arrays, schema=out_schema)


@dataclass
class _Piece:
    """A node computed per partition: the DataFrame whose partitions feed one `mapInArrow`,
    and the fragment computing the node from them (it reads one PartitionSource)."""

    df: object
    fragment: object
    what: str  # how the stage reads and computes, for SparkRun.stages
    computes: bool  # False: the fragment only hands on Spark's rows (no mapInArrow needed)


class _Stages:
    """Turns a physical plan into Spark DataFrames, one `mapInArrow` per fused fragment.

    A fragment runs as far up as rows can stream within a partition: filters and
    projections, and the probe side of every broadcast hash join, so a chain of
    joins over one scan crosses from the JVM into Python once (as Spark's own
    whole-stage code runs its broadcast joins in the scan's stage). A shuffle (of
    an aggregate's rows, or of both inputs of a shuffled join), a collect onto one
    partition or a broadcast ends a fragment.
    """

    def __init__(self, spark, inputs, trace: bool, mode: str, partial_aggregates: bool = True,
                 prefilter: bool = True, worker_scans: bool = True):
        self.mode = mode
        self.worker_scans = worker_scans
        self.partial_aggregates = partial_aggregates
        self.prefilter = prefilter
        self.spark = spark
        self.inputs = inputs
        self.trace = trace
        self.accumulator = spark.sparkContext.accumulator({}, CounterParam())
        self.count = 0
        self.descriptions: list[str] = []
        self.scans: list[ScanInput] = []  # how each scan's rows enter Python
        self.cached: list = []  # right inputs of joins computed and cached to be measured

    def dataframe(self, node):
        """The DataFrame computing `node`, its columns named c0, c1, ..."""
        stage = f"stage {self.count}"
        self.count += 1
        piece = (self._scan_piece(node, [], stage, bare=True) if isinstance(node, ScanExec)
                 else self._piece(node, stage))
        if not piece.computes:  # Spark's rows as they are: said, as the scan's path is
            self.descriptions.append(f"{stage}: {piece.what} (no mapInArrow)")
            return piece.df.toDF(*[f"c{i}" for i in range(len(node.schema))])
        self.descriptions.append(f"{stage}: {piece.what}")
        return self._map(piece.df, piece.fragment, stage)

    def _piece(self, node, stage: str) -> _Piece:
        chain = []
        base = node
        while isinstance(base, (ProjectionExec, FilterExec)):
            chain.append(base)
            base = base.children[0]
        if isinstance(base, ScanExec):
            piece = self._scan_piece(base, chain, stage)
        elif isinstance(base, HashJoinExec) and (base.on or base.how not in ("right", "full")):
            swapped = self._smaller_side_built(base)
            if swapped is not base:  # the same rows, the larger input streaming
                return self._piece(_with_chain(swapped, chain), stage)
            threshold = broadcast_threshold(self.spark)
            right = right_input(self.dataframe(base.children[1]), threshold,
                                self._estimated_bytes(base.children[1]))
            strategy = choose_strategy(base, right, threshold)
            if strategy.kind == "shuffled":
                if right.measured is not None:  # cached: the run reads it from there
                    self.cached.append(right.df)
                piece = self._shuffled_join(base, right.df, strategy, stage)
            else:  # the probe side streams on: each left partition joins the whole right input
                left = self._piece(base.children[0], stage)
                build, rows = self._broadcast(right.df, base.children[1].schema)
                if right.measured is not None:  # collected: the cache has served
                    right.df.unpersist()
                piece = _Piece(left.df, base.with_new_children([left.fragment, build]),
                               f"{left.what}; {base.label()} with its right input broadcast "
                               f"({rows} rows): {strategy.reason}", True)
        else:
            piece = self._boundary(base, stage)
        if chain:
            fragment = piece.fragment
            for above in reversed(chain):
                fragment = above.with_new_children([fragment])
            what = piece.what + " + " + ", ".join(n.label().split(":")[0]
                                                  for n in reversed(chain))
            piece = _Piece(piece.df, fragment, what, True)
        return piece

    def _scan_piece(self, scan, chain, stage: str, bare: bool = False) -> _Piece:
        """A scan read from its Parquet files by the Python workers where that is exact
        (see parquet_scan.py), else Spark's own partitions of it, pre-filtered by the filter
        right above it where that is exact (see scan_prefilter.py).

        `bare`: nothing runs over the scan in its own partitions (Spark shuffles, collects
        or broadcasts its rows), so no Python worker needs them: the JVM reads it."""
        whole = scan_dataframe(scan, self.inputs, self.spark)
        columns = list(scan.columns) if scan.columns is not None else list(scan.schema.names)
        if scan.fetch is not None:
            path = JvmScan("a scan with a row limit (Spark's limit picks the rows)")
        elif bare:
            path = JvmScan("Spark moves its rows on without exprscope computing over them")
        elif not self.worker_scans:
            path = JvmScan("worker scans are off")
        else:
            path = plan_worker_scan(whole, columns, scan.schema, self.spark)
        if isinstance(path, WorkerScan):
            reader = UnitsReader(path, scan.schema, self._batch_rows())
            parts = len(path.partitions)
            df = self.spark.range(0, parts, 1, parts)
            self.scans.append(ScanInput(df, reader))
            source = PartitionSource(scan.schema, stage, reader)
            return _Piece(df, self._scan(source), f"{scan.label()} {path.describe()}", True)
        df = whole.select(*[whole[c] for c in columns])
        pushed = ""
        if scan.fetch is not None:
            df = df.limit(scan.fetch)
        elif self.prefilter and chain and isinstance(chain[-1], FilterExec):
            conjuncts = prefilter_conjuncts(chain[-1].predicate, scan.schema)
            if conjuncts:
                df = df.filter(prefilter_column(conjuncts))
                pushed = f" (Spark pre-filters the scan: {describe_prefilter(conjuncts)})"
        self.scans.append(ScanInput(df, None))
        source = PartitionSource(scan.schema, stage)
        return _Piece(df, self._scan(source), f"{scan.label()} in Spark's partitions{pushed}, "
                      f"{path.describe()}", False)

    def _batch_rows(self) -> int:
        """Rows per batch a worker scan hands on: as many as Spark's own Arrow batches."""
        text = self.spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", "10000")
        rows = int(text)
        return rows if rows > 0 else 10_000

    def _smaller_side_built(self, join):
        """An inner join with its inputs swapped when Spark estimates the right one larger
        (the right input is collected whole and sent to every partition), its columns put
        back in order by a projection; else the join itself."""
        if join.how != "inner" or join.filter is not None or not join.on:
            return join
        left, right = join.children
        if self._estimated_bytes(right) <= self._estimated_bytes(left):
            return join
        n_left = len(left.schema)
        swapped = HashJoinExec(right, left, [(r, l) for l, r in join.on], "inner",
                               pa.schema([*right.schema, *left.schema]),
                               [(r, l) for l, r in join.key_names],
                               float_keys=join.float_keys)
        order = [len(right.schema) + i for i in range(n_left)] + list(range(len(right.schema)))
        exprs = [tk.bind(tk.field(i), swapped.schema) for i in order]
        return ProjectionExec(swapped, exprs, join.schema.names,
                              [f.nullable for f in join.schema], swapped.schema.names)

    def _estimated_bytes(self, node) -> int:
        """Spark's estimate of the largest table an input scans (its optimizer's size
        statistics, read without running anything)."""
        sizes = [0]
        for scan in _walk(node):
            if not isinstance(scan, ScanExec) or isinstance(scan.source, BroadcastSource):
                continue
            if isinstance(scan.source, TableSource) and scan.relation not in (self.inputs or {}):
                sizes.append(scan.source.table.nbytes)  # in memory: its size, exactly
            else:
                jdf = getattr(scan_dataframe(scan, self.inputs, self.spark), "_jdf", None)
                if jdf is not None:  # Spark Connect's DataFrames have no statistics to read
                    stats = jdf.queryExecution().optimizedPlan().stats()
                    sizes.append(int(str(stats.sizeInBytes())))  # a Scala BigInt
        return max(sizes)

    def _broadcast(self, df, schema: pa.Schema):
        """(a scan of `df`'s whole result broadcast to every partition, its row count)."""
        table = self._collect(df, schema)
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        broadcast = self.spark.sparkContext.broadcast(sink.getvalue())
        return ScanExec("broadcast", BroadcastSource(broadcast, schema), None), table.num_rows

    def _shuffled_join(self, join, right, strategy, stage: str) -> _Piece:
        """Both inputs repartitioned by the join keys in one shuffle, each partition's pair
        joined by `join` (see shuffled_join.py)."""
        left = self.dataframe(join.children[0])
        partitions = int(self.spark.conf.get("spark.sql.shuffle.partitions"))
        df = co_partitioned(left, right, join.on, partitions)
        source = CoPartitionSource(join.children[0].schema, join.children[1].schema, stage)
        fragment = join.with_new_children([ScanExec("partition", source, None),
                                           ScanExec("partition", RightRowsSource(source), None)])
        return _Piece(df, fragment, f"{join.label()} shuffled: both inputs repartitioned by "
                      f"its keys into {partitions} partitions, each partition's pair joined "
                      f"({strategy.reason})", True)

    def _boundary(self, base, stage: str) -> _Piece:
        """A node whose input Spark must move first (a shuffle, one partition, a broadcast)."""
        if isinstance(base, EmptyExec):
            df = self.spark.createDataFrame([], to_struct_type(_positional(base.schema)))
            return _Piece(df, self._scan(PartitionSource(base.schema, stage)), "EmptyExec",
                          False)
        if isinstance(base, HashAggregateExec):
            return self._aggregate(base, stage)
        if isinstance(base, HashJoinExec):  # right or full without keys: the right side's
            df = self.dataframe(base.children[0]).repartition(1)  # unmatched rows, on one
            strategy = choose_strategy(base, None, -1)  # partition
            build, rows = self._broadcast(self.dataframe(base.children[1]),
                                          base.children[1].schema)
            source = PartitionSource(base.children[0].schema, stage)
            return _Piece(df, base.with_new_children([self._scan(source), build]),
                          f"{base.label()} with its right input broadcast ({rows} rows) "
                          f"on one partition: {strategy.reason}", True)
        if isinstance(base, LimitExec) and base.fetch is not None:
            child = base.children[0]
            wanted = base.fetch + base.skip
            local = LimitExec(self._scan(PartitionSource(child.schema, stage + " local")),
                              wanted, 0)
            df = self._map(self.dataframe(child), local, stage + " local").repartition(1)
            fragment = base.with_new_children([self._scan(PartitionSource(child.schema, stage))])
            return _Piece(df, fragment, f"{base.label()} on one partition after a limit of "
                          f"{wanted} per partition", True)
        if isinstance(base, UnionExec):  # Spark appends the inputs' partitions
            columns = [f"c{i}" for i in range(len(base.schema))]
            frames = [self.dataframe(c).toDF(*columns) for c in base.children]
            df = frames[0]
            for other in frames[1:]:
                df = df.union(other)
            return _Piece(df, self._scan(PartitionSource(base.schema, stage)),
                          f"{base.label()}: Spark's union of their partitions", False)
        if isinstance(base, (SortExec, WindowExec)) or isinstance(base, LimitExec):
            # whole partitions (all rows at once; an offset counts from the first row)
            child = base.children[0]
            df = self.dataframe(child).repartition(1)
            fragment = base.with_new_children([self._scan(PartitionSource(child.schema, stage))])
            return _Piece(df, fragment, f"{base.label()} on one partition", True)
        raise SparkTranslationError(
            f"cannot run {type(base).__name__} in engine mode on Spark")

    def _aggregate(self, base, stage: str) -> _Piece:
        """A partial aggregate in the input's own fragment, the final one after the shuffle
        (or, when it cannot be split, the whole aggregate after the input is shuffled)."""
        child = base.children[0]
        split = split_aggregate(base) if self.partial_aggregates else None
        if split is not None:
            partial, final = split
            below = self._piece(child, stage + " partial")
            df = self._map(below.df, partial.with_new_children([below.fragment]),
                           stage + " partial")
            self.descriptions.append(f"{stage} partial: {partial.label()} per partition "
                                     f"over {below.what}")
            keys = [f"c{i}" for i in range(len(base.group_exprs))]
            df = df.repartition(*keys) if keys else df.repartition(1)
            fragment = final(self._scan(PartitionSource(partial.schema, stage)))
            how = "merging the partial aggregates " + (
                "repartitioned by group" if keys else "on one partition")
            return _Piece(df, fragment, f"{base.label()} {how}", True)
        df = self.dataframe(child)
        keys = [e.path.indices[0] for e in base.group_exprs
                if e.is_field and e.path is not None and len(e.path.indices) == 1]
        if base.group_exprs and len(keys) == len(base.group_exprs):
            df = df.repartition(*[df.columns[k] for k in keys])
            how = "repartitioned by its group keys"
        else:
            df = df.repartition(1)
            how = "on one partition"
        fragment = base.with_new_children([self._scan(PartitionSource(child.schema, stage))])
        return _Piece(df, fragment, f"{base.label()} {how}", True)

    def _scan(self, source: PartitionSource):
        return ScanExec("partition", source, None)

    def _map(self, df, fragment, stage: str):
        fn = _partition_function(fragment, stage, self.accumulator, self.trace, self.mode)
        return df.mapInArrow(fn, to_struct_type(_positional(fragment.schema)))

    def _collect(self, df, schema: pa.Schema) -> pa.Table:
        table = collect_arrow(df)
        arrays = [c if c.type == f.type else c.cast(f.type)
                  for c, f in zip(table.columns, schema)]
        return pa.Table.from_arrays(arrays, schema=schema)


def _with_chain(node, chain):
    """`node` under the filters and projections of `chain` (nearest last)."""
    for above in reversed(chain):
        node = above.with_new_children([node])
    return node


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


class EngineFrames(NamedTuple):
    """A physical plan as Spark DataFrames."""

    df: object  # the result, named as the plan's output
    accumulator: object  # the partitions' counters (see engine_trace)
    stages: list[str]  # what each mapInArrow runs
    scans: list  # ScanInput: how each scan's rows enter Python (pre-filtered, or read)
    cached: list  # DataFrames cached for the run (unpersist them once it has run)


def engine_dataframe(physical, spark, inputs=None, trace: bool = True,
                     prefilter: bool = True, worker_scans: bool = True) -> EngineFrames:
    """The plan run by exprscope inside Spark, as DataFrames (the broadcast inputs of its
    joins are computed now; the rest runs when the result is collected).

    `prefilter=False` hands every scanned row to exprscope (see scan_prefilter.py);
    `worker_scans=False` has Spark's JVM read every scan (see parquet_scan.py).
    """
    stages = _Stages(spark, inputs, trace, current_mode(physical.validation),
                     prefilter=prefilter, worker_scans=worker_scans)
    df = stages.dataframe(physical)
    return EngineFrames(df.toDF(*physical.schema.names), stages.accumulator,
                        stages.descriptions, stages.scans, stages.cached)
