"""Physical plans: one node per logical node, streaming Arrow record batches.

`execute()` yields `pa.RecordBatch`es; `collect()` gathers them into a Table;
`schema` is a `pa.Schema` (names without relations: the physical plane knows no
qualifiers). Expressions run through `toolkit.evaluate`; the blocking nodes use
pyarrow's own kernels (`Table.group_by`, `Table.join`, `sort_indices`).

Every batch a node emits passes two CAN checks (see `invariants` for when they
run): its arrays match the declared types and nullability, and its schema
equals the node's. Nodes label their output with their declared schema only
when the arrays' types agree with it, so a node that produces the wrong data
is caught by the checks, not hidden.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..execution import evaluate
from ..model.expression import Expression
from ..support import late
from ..support.visible_text import visible
from .aggregates import VARIANCE_FUNCTIONS
from .float_keys import IEEE, checked_float_keys, group_key, join_key
from .frozen import FrozenNode
from .invariants import (
    BATCH_SCHEMA_IS_PLAN_SCHEMA,
    DATA_MATCHES_SCHEMA,
    FUNCTION_RETURNS_DECLARED,
    current_mode,
    report,
    runs,
)
from .nan_order import SortColumn, sql_sort_columns
from .percentiles import group_percentiles
from .physical_expr import evaluate_expression
from .plan_text import expression_text, fields_text, plan_text
from .schema_problems import schema_problems
from .sources import BATCH_ROWS, Source
from .tree import depth
from .window_kernels import SortedInputs, WindowSort, compute_window

__all__ = [
    "EmptyExec",
    "ExecutionContext",
    "FilterExec",
    "HashAggregateExec",
    "HashJoinExec",
    "LimitExec",
    "PhysicalPlan",
    "ProjectionExec",
    "ScanExec",
    "SortExec",
    "UnionExec",
    "WindowExec",
]


@dataclass
class ExecutionContext:
    """What one run of a plan shares: the validation mode and the explicit observer."""

    mode: str
    observer: object = None


def _data_problems(schema: pa.Schema, batch: pa.RecordBatch) -> list[str]:
    problems = []
    if batch.num_columns != len(schema):
        problems.append(f"{batch.num_columns} columns, declared {len(schema)}")
    for i, (field, column) in enumerate(zip(schema, batch.columns)):
        if column.type != field.type:
            problems.append(f"column {i} '{field.name}' is {column.type}, declared {field.type}")
        elif not field.nullable and column.null_count:
            problems.append(f"column {i} '{field.name}' has {column.null_count} nulls, "
                            "declared NOT NULL")
    return problems


class PhysicalPlan(FrozenNode, abc.ABC):
    """Base of the physical nodes: `execute()`, `collect()`, `schema`, `children`, `label()`.

    Nodes are immutable: a rule or the planner builds new ones. `validation` is the
    mode the planner was asked for, kept on the plan it returns (its root) and
    read once, when that plan runs; from there the mode travels down in the
    `ExecutionContext`, never from node to node.
    """

    children: tuple[PhysicalPlan, ...] = ()
    schema: pa.Schema
    validation: str | None = None  # the planner's mode; None: the block's at execution

    def with_validation(self, mode: str | None) -> PhysicalPlan:
        """The same node, run under `mode` unless `execute` names another."""
        return self.replaced(validation=mode)

    @abc.abstractmethod
    def label(self) -> str:
        """One line saying what the node does."""

    @abc.abstractmethod
    def _batches(self, ctx: ExecutionContext) -> Iterator[pa.RecordBatch]:
        """The node's output, before the per-batch checks."""

    def with_new_children(self, children: Sequence[PhysicalPlan]) -> PhysicalPlan:
        return self

    # -- running ---------------------------------------------------------------
    def execute(self, validation: str | None = None, observer=None) -> Iterator[pa.RecordBatch]:
        """Stream the result, batch by batch.

        Operators stream through nested generators, and every level of a plan is a
        Python frame while a batch passes up; a plan deeper than `STREAM_DEPTH` runs
        level by level instead, each level's batches handed to the one above, so a
        plan of thousands of stacked operators runs without RecursionError.
        """
        mode = current_mode(validation if validation is not None else self.validation)
        ctx = ExecutionContext(mode, observer)
        if depth(self) > STREAM_DEPTH:
            return _run_level_by_level(self, ctx)
        return self._run(ctx)

    def collect(self, validation: str | None = None, observer=None) -> pa.Table:
        """The whole result as one Table with the plan's schema."""
        return pa.Table.from_batches(list(self.execute(validation, observer)), schema=self.schema)

    def _run(self, ctx: ExecutionContext) -> Iterator[pa.RecordBatch]:
        """The node's batches, each checked as the validation mode asks."""
        subject = self.label
        for i, batch in enumerate(self._batches(ctx)):
            first = i == 0
            if runs(DATA_MATCHES_SCHEMA, ctx.mode, first):
                problems = _data_problems(self.schema, batch)
                report(DATA_MATCHES_SCHEMA, subject, not problems,
                       details="; ".join(problems) if problems else
                       f"batch {i}: {batch.num_rows} rows match the declared types",
                       expected=fields_text(self.schema) if problems else None,
                       actual=", ".join(f"{n}:{c.type} ({c.null_count} nulls)" for n, c in
                                        zip(batch.schema.names, batch.columns))
                       if problems else None, observer=ctx.observer)
            if runs(BATCH_SCHEMA_IS_PLAN_SCHEMA, ctx.mode, first):
                problems = schema_problems(self.schema, batch.schema)
                report(BATCH_SCHEMA_IS_PLAN_SCHEMA, subject, not problems,
                       details="; ".join(problems) if problems else
                       f"batch {i}: schema equals the plan's",
                       expected=fields_text(self.schema) if problems else None,
                       actual=fields_text(batch.schema) if problems else None,
                       observer=ctx.observer)
            yield batch

    def _check_functions(self, ctx: ExecutionContext, first: bool) -> bool:
        return runs(FUNCTION_RETURNS_DECLARED, ctx.mode, first)

    def _make_batch(self, arrays: Sequence[pa.Array]) -> pa.RecordBatch:
        """A batch labelled with the declared schema when the arrays' types agree with it."""
        arrays = list(arrays)
        if len(arrays) == len(self.schema) and all(
                a.type == f.type for a, f in zip(arrays, self.schema)):
            return pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        names = (self.schema.names if len(arrays) == len(self.schema)
                 else [f"column_{i}" for i in range(len(arrays))])
        return pa.RecordBatch.from_arrays(arrays, names=names)

    def _input_table(self, child: PhysicalPlan, ctx: ExecutionContext,
                     names: Sequence[str] | None = None) -> pa.Table:
        """Everything a child produces, as one Table (blocking nodes need it all)."""
        batches = list(child._run(ctx))
        schema = child.schema
        if names is not None:
            batches = [b.rename_columns(list(names)) for b in batches]
            schema = pa.schema([f.with_name(n) for f, n in zip(schema, names)])
        if not batches:
            return schema.empty_table()
        return pa.Table.from_batches(batches)

    # -- display ---------------------------------------------------------------
    def explain(self, schema: bool = False) -> str:
        return plan_text(self, show_schema=schema)

    def __str__(self) -> str:
        return self.explain()

    def __repr__(self) -> str:
        return f"<PhysicalPlan {visible(self.label())}>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return late.mimebundle(self)




class ScanExec(PhysicalPlan):
    """Streams a source's batches (only the projected columns; at most `fetch` rows)."""

    def __init__(self, relation: str, source: Source, columns: Sequence[str] | None,
                 fetch: int | None = None):
        self.relation = relation
        self.source = source
        self.columns = None if columns is None else tuple(columns)
        self.fetch = fetch
        by_name = {f.name: f for f in source.schema}
        self.schema = (source.schema if columns is None
                       else pa.schema([by_name[c] for c in self.columns]))

    def label(self) -> str:
        text = f"{self.source.exec_name}: {self.relation} {self.source.describe()}"
        if self.columns is not None:
            text += f" projection=[{', '.join(self.columns)}]"
        if self.fetch is not None:
            text += f" fetch={self.fetch}"
        return text

    def with_fetch(self, fetch: int | None) -> ScanExec:
        scan = ScanExec(self.relation, self.source, self.columns, fetch)
        return scan

    def _batches(self, ctx):
        for batch in self.source.batches(self.columns, self.fetch):
            yield self._make_batch(batch.columns)


class ProjectionExec(PhysicalPlan):
    """Evaluates one expression per output column on every batch."""

    def __init__(self, input: PhysicalPlan, exprs: Sequence[Expression], names: Sequence[str],
                 nullables: Sequence[bool], input_names: Sequence[str]):
        self.children = (input,)
        self.exprs = tuple(exprs)
        self.names = tuple(names)
        self.nullables = tuple(nullables)
        self.input_names = tuple(input_names)
        self.schema = pa.schema([pa.field(n, e.type, nl) for n, e, nl in
                                 zip(self.names, self.exprs, self.nullables)])

    def label(self) -> str:
        return "ProjectionExec: expr=[" + ", ".join(
            f"{expression_text(e)} as {n}" for e, n in zip(self.exprs, self.names)) + "]"

    def with_new_children(self, children):
        node = ProjectionExec(children[0], self.exprs, self.names, self.nullables,
                              self.input_names)
        return node

    def _batches(self, ctx):
        subject = self.label
        for i, batch in enumerate(self.children[0]._run(ctx)):
            batch = batch.rename_columns(list(self.input_names))
            check = self._check_functions(ctx, i == 0)
            arrays = [evaluate_expression(e, nl, batch, subject, check, ctx.observer)
                      for e, nl in zip(self.exprs, self.nullables)]
            yield self._make_batch(arrays)


class FilterExec(PhysicalPlan):
    """Keeps the rows where the predicate is true."""

    def __init__(self, input: PhysicalPlan, predicate: Expression, nullable: bool,
                 input_names: Sequence[str]):
        self.children = (input,)
        self.predicate = predicate
        self.nullable = nullable
        self.input_names = tuple(input_names)
        self.schema = input.schema

    def label(self) -> str:
        return f"FilterExec: {expression_text(self.predicate)}"

    def with_new_children(self, children):
        node = FilterExec(children[0], self.predicate, self.nullable, self.input_names)
        return node

    def _batches(self, ctx):
        subject = self.label
        for i, batch in enumerate(self.children[0]._run(ctx)):
            named = batch.rename_columns(list(self.input_names))
            mask = evaluate_expression(self.predicate, self.nullable, named, subject,
                                       self._check_functions(ctx, i == 0), ctx.observer)
            if pa.types.is_null(mask.type):
                continue
            # a batch whose every row passes (as after Spark's pre-filter) is kept as it is:
            # filtering would copy every column to drop nothing
            kept = batch if mask.null_count == 0 and pc.all(mask).as_py() else batch.filter(mask)
            if kept.num_rows:
                yield self._make_batch(kept.columns)


@dataclass(frozen=True)
class PhysicalAggregate:
    func: str
    arg: Expression | None
    nullable_arg: bool
    out_type: pa.DataType
    fraction: float | None = None  # percentile's


def _aggregated_type(aggregate: PhysicalAggregate) -> pa.DataType:
    """The type an aggregate's kernel reads: the variances read doubles, as SQL computes
    them (Arrow's variance of a decimal would keep the decimal's scale)."""
    if aggregate.func in VARIANCE_FUNCTIONS:
        return pa.float64()
    return aggregate.arg.type


def _aggregated(aggregate: PhysicalAggregate, values):
    wanted = _aggregated_type(aggregate)
    # a long past 2**53 rounds to the nearest double, as SQL's cast does
    return values if values.type == wanted else pc.cast(values, wanted, safe=False)


_ROW = "__row"


def _group_rows(result: pa.Table, keys: list[str], n: int) -> tuple[pa.Array, np.ndarray]:
    """The input's row numbers listed group by group (the hash aggregate's "list" of them)
    and each listed row's group number; without keys, every row in the one group."""
    if not keys:
        return pa.array(np.arange(n)), np.zeros(n, dtype=np.int64)
    lists = result.column(f"{_ROW}_list").combine_chunks()
    lengths = pc.list_value_length(lists).to_numpy(zero_copy_only=False)
    group_of_row = np.repeat(np.arange(len(lists), dtype=np.int64), lengths)
    return lists.flatten(), group_of_row


class HashAggregateExec(PhysicalPlan):
    """Groups with pyarrow's hash aggregation (`Table.group_by`); blocking."""

    def __init__(self, input: PhysicalPlan, group_exprs: Sequence[Expression],
                 group_nullables: Sequence[bool], aggregates: Sequence[PhysicalAggregate],
                 schema: pa.Schema, input_names: Sequence[str]):
        self.children = (input,)
        self.group_exprs = tuple(group_exprs)
        self.group_nullables = tuple(group_nullables)
        self.aggregates = tuple(aggregates)
        self.input_names = tuple(input_names)
        self.schema = schema

    def label(self) -> str:
        groups = ", ".join(expression_text(e) for e in self.group_exprs)
        aggs = ", ".join(f"{a.func}({'*' if a.arg is None else expression_text(a.arg)}"
                         f"{'' if a.fraction is None else f', {a.fraction!r}'}) as {f.name}"
                         for a, f in zip(self.aggregates, list(self.schema)[len(self.group_exprs):]))
        return f"HashAggregateExec: gby=[{groups}], aggr=[{aggs}]"

    def with_new_children(self, children):
        node = HashAggregateExec(children[0], self.group_exprs, self.group_nullables,
                                 self.aggregates, self.schema, self.input_names)
        return node

    def _temp_schema(self) -> pa.Schema:
        fields = [pa.field(f"k{i}", e.type) for i, e in enumerate(self.group_exprs)]
        fields += [pa.field(f"a{i}", pa.int8() if a.arg is None else _aggregated_type(a))
                   for i, a in enumerate(self.aggregates)]
        return pa.schema(fields)

    def _temp_batches(self, ctx) -> Iterator[pa.RecordBatch]:
        subject = self.label
        schema = self._temp_schema()
        for i, batch in enumerate(self.children[0]._run(ctx)):
            batch = batch.rename_columns(list(self.input_names))
            check = self._check_functions(ctx, i == 0)
            arrays = [group_key(evaluate_expression(e, nl, batch, subject, check,
                                                    ctx.observer))
                      for e, nl in zip(self.group_exprs, self.group_nullables)]
            for a in self.aggregates:
                arrays.append(pa.nulls(batch.num_rows, pa.int8()) if a.arg is None else
                              _aggregated(a, evaluate_expression(a.arg, a.nullable_arg, batch,
                                                                 subject, check,
                                                                 ctx.observer)))
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)

    def _batches(self, ctx):
        schema = self._temp_schema()
        table = pa.Table.from_batches(list(self._temp_batches(ctx)), schema=schema)
        keys = [f"k{i}" for i in range(len(self.group_exprs))]
        specs = []
        for i, a in enumerate(self.aggregates):
            if a.func == "count":
                mode = "all" if a.arg is None else "only_valid"
                specs.append((f"a{i}", "count", pc.CountOptions(mode=mode)))
            elif a.func in VARIANCE_FUNCTIONS:
                kernel, ddof = VARIANCE_FUNCTIONS[a.func]
                specs.append((f"a{i}", kernel, pc.VarianceOptions(ddof=ddof)))
            elif a.func in ("bool_and", "bool_or"):  # nulls skipped; a group of nulls: null
                specs.append((f"a{i}", "all" if a.func == "bool_and" else "any",
                              pc.ScalarAggregateOptions(skip_nulls=True, min_count=1)))
            elif a.func == "percentile":
                specs.append((f"a{i}", "count"))  # a stand-in: computed below, by group
            else:
                specs.append((f"a{i}", a.func))
        percentiles = any(a.func == "percentile" for a in self.aggregates)
        if percentiles:  # each group's row numbers, to sort its values
            table = table.append_column(_ROW, pa.array(np.arange(table.num_rows)))
            if keys:
                specs.append((_ROW, "list"))
        result = table.group_by(keys, use_threads=False).aggregate(specs)
        columns = [result.column(k) for k in keys]
        columns += [result.column(f"a{i}_{spec[1]}") for i, spec in
                    enumerate(specs[:len(self.aggregates)])]
        if percentiles:
            rows, group_of_row = _group_rows(result, keys, table.num_rows)
            for i, a in enumerate(self.aggregates):
                if a.func == "percentile":
                    columns[len(keys) + i] = group_percentiles(
                        table.column(f"a{i}").take(rows), group_of_row, result.num_rows,
                        a.fraction)
        out = pa.Table.from_arrays(columns, names=[f"c{i}" for i in range(len(columns))])
        for batch in out.combine_chunks().to_batches(max_chunksize=BATCH_ROWS):
            yield self._make_batch(batch.columns)


class HashJoinExec(PhysicalPlan):
    """A join of any kind (see `ConditionJoin`); blocking on both sides.

    pyarrow's hash join (`Table.join`) pairs the rows whose keys are equal (no keys:
    every pair), by row number only; the residual `filter` then runs on the pairs;
    the unmatched rows of an outer side are added null-extended, and a semi or anti
    join keeps the left rows found (or not) among the pairs. Every step is a kernel
    over whole columns (`take`, `is_in`), never a loop over rows.
    """

    def __init__(self, left: PhysicalPlan, right: PhysicalPlan,
                 on: Sequence[tuple[int, int]], how: str, schema: pa.Schema,
                 key_names: Sequence[tuple[str, str]] = (), filter: Expression | None = None,
                 filter_nullable: bool = True, input_names: Sequence[str] = (),
                 float_keys: str = IEEE):
        self.children = (left, right)
        self.on = tuple(on)
        self.float_keys = checked_float_keys(float_keys)  # how float keys compare: float_keys.py
        self.how = how
        self.schema = schema
        self.key_names = tuple(key_names)
        self.filter = filter
        self.filter_nullable = filter_nullable
        self.input_names = tuple(input_names)  # the filter's names for left + right columns

    def label(self) -> str:
        keys = ", ".join(f"({lk}, {rk})" for lk, rk in self.key_names) or str(list(self.on))
        kind = {"semi": "LeftSemi", "anti": "LeftAnti"}.get(self.how, self.how.capitalize())
        text = f"HashJoinExec: mode=CollectLeft, join_type={kind}, on=[{keys}]"
        text += f", filter={self.filter}" if self.filter is not None else ""
        return text + ("" if self.float_keys == IEEE else f", float_keys={self.float_keys}")

    def with_new_children(self, children):
        return HashJoinExec(children[0], children[1], self.on, self.how, self.schema,
                            self.key_names, self.filter, self.filter_nullable, self.input_names,
                            self.float_keys)

    def _pairs(self, ltable: pa.Table, rtable: pa.Table) -> tuple[pa.Array, pa.Array]:
        """(left row, right row) of every pair whose keys are equal."""
        nl, nr = ltable.num_rows, rtable.num_rows
        if not self.on:
            left_rows = np.repeat(np.arange(nl, dtype=np.int64), nr)
            right_rows = np.tile(np.arange(nr, dtype=np.int64), nl)
            return pa.array(left_rows), pa.array(right_rows)
        lkeys = [join_key(ltable.column(i), self.float_keys) for i, _ in self.on]
        rkeys = [join_key(rtable.column(j), self.float_keys) for _, j in self.on]
        lkeys = pa.Table.from_arrays(
            [*lkeys, pa.array(np.arange(nl, dtype=np.int64))],
            names=[f"k{i}" for i in range(len(self.on))] + ["__left_row"])
        rkeys = pa.Table.from_arrays(
            [*rkeys, pa.array(np.arange(nr, dtype=np.int64))],
            names=[f"k{i}" for i in range(len(self.on))] + ["__right_row"])
        keys = [f"k{i}" for i in range(len(self.on))]
        pairs = lkeys.join(rkeys, keys=keys, join_type="inner", use_threads=False)
        return (pairs.column("__left_row").combine_chunks(),
                pairs.column("__right_row").combine_chunks())

    def _batches(self, ctx):
        left, right = self.children
        ltable = self._input_table(left, ctx).combine_chunks()
        rtable = self._input_table(right, ctx).combine_chunks()
        left_rows, right_rows = self._pairs(ltable, rtable)
        if self.filter is not None and len(left_rows):
            both = pa.Table.from_arrays(
                [*ltable.take(left_rows).columns, *rtable.take(right_rows).columns],
                names=list(self.input_names))
            batch = both.combine_chunks().to_batches()[0]
            keep = evaluate_expression(self.filter, self.filter_nullable, batch, self.label,
                                       self._check_functions(ctx, True), ctx.observer)
            keep = pc.fill_null(keep, False) if not pa.types.is_null(keep.type) else \
                pa.repeat(pa.scalar(False), len(left_rows))
            left_rows, right_rows = left_rows.filter(keep), right_rows.filter(keep)
        if self.how in ("semi", "anti"):
            found = pc.is_in(pa.array(np.arange(ltable.num_rows, dtype=np.int64)),
                             value_set=pc.unique(left_rows))
            result = ltable.filter(found if self.how == "semi" else pc.invert(found))
        else:
            if self.how in ("left", "full"):
                missing = _unmatched(ltable.num_rows, left_rows)
                left_rows = pa.concat_arrays([left_rows, missing])
                right_rows = pa.concat_arrays([right_rows, pa.nulls(len(missing), pa.int64())])
            if self.how in ("right", "full"):
                missing = _unmatched(rtable.num_rows, right_rows)
                right_rows = pa.concat_arrays([right_rows, missing])
                left_rows = pa.concat_arrays([left_rows, pa.nulls(len(missing), pa.int64())])
            result = pa.Table.from_arrays(
                [*ltable.take(left_rows).columns, *rtable.take(right_rows).columns],
                names=[f"c{i}" for i in range(ltable.num_columns + rtable.num_columns)])
        for batch in result.combine_chunks().to_batches(max_chunksize=BATCH_ROWS):
            yield self._make_batch(batch.columns)


def _unmatched(n: int, matched: pa.Array) -> pa.Array:
    """The row numbers below `n` that `matched` does not hold."""
    rows = pa.array(np.arange(n, dtype=np.int64))
    return rows.filter(pc.invert(pc.is_in(rows, value_set=pc.unique(pc.drop_null(matched)))))


class SortExec(PhysicalPlan):
    """A stable sort of everything its input produces; blocking."""

    def __init__(self, input: PhysicalPlan, keys: Sequence[tuple[Expression, bool, bool]],
                 input_names: Sequence[str]):
        self.children = (input,)
        self.keys = tuple(keys)  # (expr, ascending, nulls_first)
        self.input_names = tuple(input_names)
        self.schema = input.schema

    def label(self) -> str:
        return "SortExec: expr=[" + ", ".join(
            f"{expression_text(e)} {'ASC' if asc else 'DESC'} NULLS {'FIRST' if nf else 'LAST'}"
            for e, asc, nf in self.keys) + "]"

    def with_new_children(self, children):
        node = SortExec(children[0], self.keys, self.input_names)
        return node

    def _batches(self, ctx):
        table = self._input_table(self.children[0], ctx)
        if table.num_rows == 0:
            return
        named = table.rename_columns(list(self.input_names))
        key_columns = [evaluate(e, named) for e, _, _ in self.keys]
        key_columns = [pa.chunked_array([pa.repeat(k, table.num_rows)])
                       if isinstance(k, pa.Scalar) else k for k in key_columns]
        sort_columns = sql_sort_columns([SortColumn(column, asc, nf) for column, (_, asc, nf)
                                         in zip(key_columns, self.keys)])
        keys = pa.Table.from_arrays([c.values for c in sort_columns],
                                    names=[f"s{i}" for i in range(len(sort_columns))])
        try:  # pyarrow >= 25: null placement per key
            indices = pc.sort_indices(keys, sort_keys=[
                (f"s{i}", "ascending" if c.ascending else "descending",
                 "at_start" if c.nulls_first else "at_end")
                for i, c in enumerate(sort_columns)])
        except (TypeError, ValueError, pa.ArrowException):  # older: stable pass per key
            indices = pa.array(np.arange(table.num_rows, dtype=np.uint64))
            for i in reversed(range(len(sort_columns))):
                c = sort_columns[i]
                column = keys.column(i).take(indices)
                step = pc.sort_indices(column, sort_keys=[
                    ("", "ascending" if c.ascending else "descending")],
                    null_placement="at_start" if c.nulls_first else "at_end")
                indices = indices.take(step)
        result = table.take(indices).combine_chunks()
        for batch in result.to_batches(max_chunksize=BATCH_ROWS):
            yield self._make_batch(batch.columns)


class LimitExec(PhysicalPlan):
    """Skips `skip` rows then passes `fetch` (None: all the rest); stops pulling its
    input when done."""

    def __init__(self, input: PhysicalPlan, fetch: int | None, skip: int = 0):
        self.children = (input,)
        self.fetch = fetch
        self.skip = skip
        self.schema = input.schema

    def label(self) -> str:
        return (f"GlobalLimitExec: skip={self.skip}, "
                f"fetch={'all' if self.fetch is None else self.fetch}")

    def with_new_children(self, children):
        node = LimitExec(children[0], self.fetch, self.skip)
        return node

    def _batches(self, ctx):
        skip = self.skip
        left = float("inf") if self.fetch is None else self.fetch
        if left == 0:
            return
        stream = self.children[0]._run(ctx)
        try:
            for batch in stream:
                if skip >= batch.num_rows:
                    skip -= batch.num_rows
                    continue
                batch = batch.slice(skip, int(min(left, batch.num_rows - skip)))
                skip = 0
                left -= batch.num_rows
                if batch.num_rows:
                    yield batch
                if left <= 0:
                    return
        finally:
            stream.close()


STREAM_DEPTH = 200  # levels that stream through nested generators (~2 frames a level)



class _Computed(PhysicalPlan):
    """A level already run: its batches, handed to the operator above it as its input."""

    def __init__(self, like: PhysicalPlan, batches: list[pa.RecordBatch]):
        self.schema = like.schema
        self.batches = batches

    def label(self) -> str:
        return "computed batches"

    def _run(self, ctx):  # checked when they were made; a generator, as consumers close it
        yield from self.batches

    def _batches(self, ctx):
        yield from self.batches


def _run_level_by_level(plan: PhysicalPlan, ctx: ExecutionContext) -> Iterator[pa.RecordBatch]:
    """Each node after its inputs, iteratively, over its inputs' finished batches."""
    done: dict[int, list[pa.RecordBatch]] = {}
    stack = [(plan, False)]
    while stack:
        node, expanded = stack.pop()
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children)
            continue
        level = node
        if node.children:
            level = node.with_new_children(
                [_Computed(c, done.pop(id(c))) for c in node.children])
        done[id(node)] = list(level._run(ctx))
    return iter(done[id(plan)])


class UnionExec(PhysicalPlan):
    """Streams each input's batches in turn, relabelled with the union's names."""

    def __init__(self, inputs: Sequence[PhysicalPlan], schema: pa.Schema):
        self.children = tuple(inputs)
        self.schema = schema

    def label(self) -> str:
        return f"UnionExec: {len(self.children)} inputs"

    def with_new_children(self, children):
        return UnionExec(children, self.schema)

    def _batches(self, ctx):
        for child in self.children:
            stream = child._run(ctx)
            try:
                for batch in stream:
                    yield self._make_batch(batch.columns)
            finally:
                stream.close()


class EmptyExec(PhysicalPlan):
    """Produces no rows."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema

    def label(self) -> str:
        return "EmptyExec"

    def _batches(self, ctx):
        return iter(())


class WindowExec(PhysicalPlan):
    """The input's rows with one more column per window function; blocking.

    Each function's rows are sorted by its partition and order keys, computed with
    vector kernels (window_kernels), and put back in the input's order, so the
    output rows are the input rows in their order.
    """

    def __init__(self, input: PhysicalPlan, functions: Sequence, schema: pa.Schema,
                 input_names: Sequence[str]):
        self.children = (input,)
        self.functions = tuple(functions)  # WindowExprs bound to the physical input
        self.schema = schema
        self.input_names = tuple(input_names)

    def label(self) -> str:
        added = list(self.schema.names)[len(self.input_names):]
        return "WindowAggExec: wdw=[" + ", ".join(
            f"{n}: {w.to_string()}" for w, n in zip(self.functions, added)) + "]"

    def with_new_children(self, children):
        return WindowExec(children[0], self.functions, self.schema, self.input_names)

    def _batches(self, ctx):
        table = self._input_table(self.children[0], ctx).combine_chunks()
        n = table.num_rows
        named = table.rename_columns(list(self.input_names))

        def column(expr):
            value = evaluate(expr, named)
            if isinstance(value, pa.Scalar):
                return pa.repeat(value, n)
            return value.combine_chunks() if isinstance(value, pa.ChunkedArray) else value

        out = list(table.columns)
        sorts: dict[tuple, WindowSort] = {}  # functions over the same keys share one sort
        for w, field in zip(self.functions, list(self.schema)[len(self.input_names):]):
            keys = (tuple(e.to_string() for e in w.partition_by),
                    tuple(k.to_string() for k in w.order_by))
            if keys not in sorts:
                partition = [column(e) for e in w.partition_by]
                order = [(column(k.expr), k.ascending, k.nulls_first) for k in w.order_by]
                sorts[keys] = WindowSort.of(partition, order, n)
            done = sorts[keys]
            inputs = SortedInputs(
                None if w.arg is None else column(w.arg).take(done.taken),
                None if w.default is None else column(w.default).take(done.taken),
                done.order_keys[0] if done.order_keys else None)
            result = compute_window(w, inputs, done.bounds, n, field.type)
            out.append(result.take(done.back))
        result = pa.Table.from_arrays(out, names=list(self.schema.names)).combine_chunks()
        for batch in result.to_batches(max_chunksize=BATCH_ROWS):
            yield self._make_batch(batch.columns)
