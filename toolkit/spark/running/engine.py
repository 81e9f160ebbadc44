"""Engine mode: exprscope's own physical plan, run inside Spark's partitions by `mapInArrow`.

The physical plan is cut into stages at its blocking nodes. Spark does only
the data movement; every expression, filter, aggregate, join, sort and limit
is computed by exprscope:

- a chain of filters and projections runs per partition, fused with the node
  below it into one `mapInArrow` (a scan's chain reads Spark's own partitions,
  pre-filtered by Spark where that provably keeps every row the filter keeps:
  `scan_prefilter.py`);
- a hash aggregate runs per partition after Spark repartitions the rows by
  its group keys (plain columns), or on one partition for a global aggregate
  or computed keys;
- a hash join broadcasts its right input (collected as Arrow) and joins each
  partition of the left input against it (exact for inner, cross, left, semi and
  anti joins); a right or full join, which must see every left row to know which
  right rows had no match, joins the left input on one partition;
- a sort, and a limit after a per-partition limit, run on one partition;
- a union is Spark's union of its inputs' partitions, by position.

Each `mapInArrow` declares the StructType of its fragment's physical schema
and checks on every batch that the output schema equals the plan's; counters
of what was evaluated travel back in an accumulator (see `engine_trace`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pyarrow as pa

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
from ...plan.sources import Source
from ..errors import SparkPartitionError, SparkSchemaMismatch, SparkTranslationError
from ..translate.types import spark_compatible_schema, to_struct_type
from . import shipping
from .engine_trace import CounterParam, PartitionObserver
from .inputs import scan_dataframe
from .partial_aggregate import split_aggregate
from .partition_errors import PartitionPlace, collect_arrow, marked
from .scan_prefilter import describe as describe_prefilter
from .scan_prefilter import prefilter_column, prefilter_conjuncts

__all__ = ["BroadcastSource", "PartitionSource", "engine_dataframe"]


class PartitionSource(Source):
    """The batches Spark hands one partition, cast to the types the plan declared."""

    kind = "SparkPartition"

    def __init__(self, schema: pa.Schema, stage: str):
        self.schema = schema
        self.stage = stage
        self._batches: Iterator[pa.RecordBatch] = iter(())
        self.rows_in = 0
        self.batches_in = 0
        self.rows_before = 0  # rows of the batches handed out before the latest one

    def feed(self, batches: Iterator[pa.RecordBatch]) -> None:
        self._batches = batches

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
                      if isinstance(getattr(n, "source", None), PartitionSource))
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


class _Stages:
    """Turns a physical plan into Spark DataFrames, one `mapInArrow` per fused fragment."""

    def __init__(self, spark, inputs, trace: bool, mode: str, partial_aggregates: bool = True,
                 prefilter: bool = True):
        self.mode = mode
        self.partial_aggregates = partial_aggregates
        self.prefilter = prefilter
        self.spark = spark
        self.inputs = inputs
        self.trace = trace
        self.accumulator = spark.sparkContext.accumulator({}, CounterParam())
        self.count = 0
        self.descriptions: list[str] = []

    def dataframe(self, node):
        chain = []
        base = node
        while isinstance(base, (ProjectionExec, FilterExec)):
            chain.append(base)
            base = base.children[0]
        stage = f"stage {self.count}"
        self.count += 1
        if isinstance(base, EmptyExec):
            return self.spark.createDataFrame([], to_struct_type(_positional(node.schema)))
        if isinstance(base, ScanExec):
            df = scan_dataframe(base, self.inputs, self.spark)
            columns = list(base.columns) if base.columns is not None else list(base.schema.names)
            df = df.select(*[df[c] for c in columns])
            if base.fetch is not None:
                df = df.limit(base.fetch)
            if not chain:
                return df.toDF(*[f"c{i}" for i in range(len(columns))])
            df, pushed = self._prefilter(df, chain, base)
            source = PartitionSource(base.schema, stage)
            fragment = ScanExec(base.relation, source, None)
            what = f"{base.label()} in Spark's partitions{pushed}"
        elif isinstance(base, HashAggregateExec):
            child = base.children[0]
            split = split_aggregate(base) if self.partial_aggregates else None
            if split is not None:
                partial, final = split
                df, below, what_below = self._input_fragment(child, stage + " partial")
                df = self._map(df, partial.with_new_children([below]), stage + " partial")
                self.descriptions.append(f"{stage} partial: {partial.label()} per partition "
                                         f"over {what_below}")
                keys = [f"c{i}" for i in range(len(base.group_exprs))]
                df = df.repartition(*keys) if keys else df.repartition(1)
                source = PartitionSource(partial.schema, stage)
                fragment = final(self._scan(source, base))
                how = "merging the partial aggregates " + (
                    "repartitioned by group" if keys else "on one partition")
            else:
                df = self.dataframe(child)
                keys = [e.path.indices[0] for e in base.group_exprs
                        if e.is_field and e.path is not None and len(e.path.indices) == 1]
                if base.group_exprs and len(keys) == len(base.group_exprs):
                    df = df.repartition(*[df.columns[k] for k in keys])
                    how = "repartitioned by its group keys"
                else:
                    df = df.repartition(1)
                    how = "on one partition"
                source = PartitionSource(child.schema, stage)
                fragment = base.with_new_children([self._scan(source, base)])
            what = f"{base.label()} {how}"
        elif isinstance(base, HashJoinExec):
            left, right = base.children
            df = self.dataframe(left)
            if base.how in ("right", "full"):  # the right side's unmatched rows: seen once
                df = df.repartition(1)
            right_table = self._collect(self.dataframe(right), right.schema)
            sink = io.BytesIO()
            with pa.ipc.new_stream(sink, right_table.schema) as writer:
                writer.write_table(right_table)
            broadcast = self.spark.sparkContext.broadcast(sink.getvalue())

            build = ScanExec("broadcast", BroadcastSource(broadcast, right.schema), None)
            source = PartitionSource(left.schema, stage)
            fragment = base.with_new_children([self._scan(source, base), build])
            what = f"{base.label()} with its right input broadcast ({right_table.num_rows} rows)"
            if base.how in ("right", "full"):
                what += " on one partition"
        elif isinstance(base, LimitExec):
            child = base.children[0]
            wanted = base.fetch + base.skip
            local = LimitExec(self._scan(PartitionSource(child.schema, stage + " local"), base),
                              wanted, 0)
            df = self._map(self.dataframe(child), local, stage + " local")
            df = df.repartition(1)
            source = PartitionSource(child.schema, stage)
            fragment = base.with_new_children([self._scan(source, base)])
            what = f"{base.label()} on one partition after a limit of {wanted} per partition"
        elif isinstance(base, UnionExec):  # Spark appends the inputs' partitions
            frames = [self.dataframe(c) for c in base.children]
            columns = [f"c{i}" for i in range(len(base.schema))]
            df = frames[0].toDF(*columns)
            for other in frames[1:]:
                df = df.union(other.toDF(*columns))
            fragment = self._scan(PartitionSource(base.schema, stage), base)
            what = f"{base.label()}: Spark's union of their partitions"
        elif isinstance(base, (SortExec, WindowExec)):  # whole partitions: all rows at once
            child = base.children[0]
            df = self.dataframe(child).repartition(1)
            source = PartitionSource(child.schema, stage)
            fragment = base.with_new_children([self._scan(source, base)])
            what = f"{base.label()} on one partition"
        else:
            raise SparkTranslationError(
                f"cannot run {type(base).__name__} in engine mode on Spark")
        for above in reversed(chain):
            fragment = above.with_new_children([fragment])
        if chain:
            what += " + " + ", ".join(n.label().split(":")[0] for n in reversed(chain))
        self.descriptions.append(f"{stage}: {what}")
        return self._map(df, fragment, stage)

    def _input_fragment(self, node, stage: str):
        """(DataFrame, fragment computing `node` from it per partition, what it reads).

        A chain of filters/projections over a scan reads the scan's DataFrame
        directly; anything else is its own stage, read as it comes.
        """
        chain, base = [], node
        while isinstance(base, (ProjectionExec, FilterExec)):
            chain.append(base)
            base = base.children[0]
        if isinstance(base, ScanExec) and base.fetch is None:
            df = scan_dataframe(base, self.inputs, self.spark)
            columns = list(base.columns) if base.columns is not None else list(base.schema.names)
            df = df.select(*[df[c] for c in columns])
            df, pushed = self._prefilter(df, chain, base)
            fragment = self._scan(PartitionSource(base.schema, stage), base)
            for above in reversed(chain):
                fragment = above.with_new_children([fragment])
            return df, fragment, base.label() + pushed
        return (self.dataframe(node), self._scan(PartitionSource(node.schema, stage), node),
                "the stage below")

    def _prefilter(self, df, chain, scan):
        """Spark's scan pre-filtered by the filter right above it, where that is exact
        (see scan_prefilter.py); exprscope's filter still runs on every row that arrives."""
        if not (self.prefilter and chain and isinstance(chain[-1], FilterExec)
                and scan.fetch is None):
            return df, ""
        conjuncts = prefilter_conjuncts(chain[-1].predicate, scan.schema)
        if not conjuncts:
            return df, ""
        return (df.filter(prefilter_column(conjuncts)),
                f" (Spark pre-filters the scan: {describe_prefilter(conjuncts)})")

    def _scan(self, source: PartitionSource, like):
        return ScanExec("partition", source, None)

    def _map(self, df, fragment, stage: str):
        fn = _partition_function(fragment, stage, self.accumulator, self.trace, self.mode)
        return df.mapInArrow(fn, to_struct_type(_positional(fragment.schema)))

    def _collect(self, df, schema: pa.Schema) -> pa.Table:
        table = collect_arrow(df)
        arrays = [c if c.type == f.type else c.cast(f.type)
                  for c, f in zip(table.columns, schema)]
        return pa.Table.from_arrays(arrays, schema=schema)


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def engine_dataframe(physical, spark, inputs=None, trace: bool = True, prefilter: bool = True):
    """(DataFrame named as the plan's output, its accumulator, the stage descriptions).

    `prefilter=False` hands every scanned row to exprscope (see scan_prefilter.py).
    """
    stages = _Stages(spark, inputs, trace, current_mode(physical.validation),
                     prefilter=prefilter)
    df = stages.dataframe(physical)
    return df.toDF(*physical.schema.names), stages.accumulator, stages.descriptions
