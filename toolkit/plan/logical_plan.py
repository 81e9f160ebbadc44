"""The logical plan nodes: TableScan, Projection, Filter, Aggregate, Join, Sort, Limit, Union,
EmptyRelation.

A node knows its inputs (`children`), its expressions (bound to its input's
binding schema, see `logical_schema`) and derives its `schema`. Every node that
creates a schema checks that its (relation, name) pairs are unique (a MUST,
docs/semantics.md §8) and reports the check. Nodes are immutable: optimizer rules build new
ones with `with_new_children` / `with_expressions`, which rebind the
expressions against the (possibly pruned) new inputs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import pyarrow as pa

from ..functions.bind import bind
from ..model.builders import literal
from ..model.expression import Expression
from ..support import late
from ..support.visible_text import visible
from . import builder
from .aggregates import AggregateExpr, aggregate_nullable, aggregate_type
from .errors import PlanError
from .float_keys import IEEE, checked_float_keys
from .frozen import FrozenNode
from .invariants import UNIQUE_NAMES, report
from .logical_fields import logical_field, nullable, output_name
from .logical_schema import LogicalField, LogicalSchema, describe_duplicates, duplicate_fields
from .plan_text import expression_text, plan_text
from .sources import Source, as_source
from .window import WindowExpr, check_window, window_nullable, window_type

__all__ = [
    "JOIN_KINDS",
    "JOIN_NODES",
    "JOIN_TYPES",
    "Aggregate",
    "ConditionJoin",
    "EmptyRelation",
    "Filter",
    "Join",
    "Limit",
    "LogicalPlan",
    "Projection",
    "ScalarSubquery",
    "Sort",
    "SortKey",
    "SubqueryFilter",
    "TableScan",
    "Union",
    "Window",
]

JOIN_TYPES = {"inner": "Inner", "left": "Left"}


def float_keys_text(mode: str) -> str:
    """What a join's label adds for its float_keys: nothing for the default (IEEE)."""
    return "" if mode == IEEE else f", float_keys={mode}"


def checked_schema(fields: Sequence[LogicalField], subject) -> LogicalSchema:
    """The node's schema, after the MUST check that (relation, name) pairs are unique."""
    dups = duplicate_fields(fields)
    report(UNIQUE_NAMES, subject, not dups,
           details=describe_duplicates(dups) + "; rename one (project(..., names=[...])) or "
           "scan that input under another relation name" if dups else
           f"{len(fields)} fields, all (relation, name) pairs unique",
           expected="unique (relation, name) pairs" if dups else None,
           actual=[f.qualified_name for f in fields] if dups else None)
    return LogicalSchema(fields)


def _bind_all(exprs, input: LogicalPlan) -> tuple[Expression, ...]:
    schema = input.schema.binding_schema()
    return tuple(bind(e, schema) for e in exprs)


def _exprs_equal(a: Sequence[Expression], b: Sequence[Expression]) -> bool:
    return len(a) == len(b) and all(x.equals(y) for x, y in zip(a, b))


def _aliased(expr: Expression, name: str) -> str:
    text = expression_text(expr)
    natural = output_name(expr)
    if natural == name or (expr.is_field and text.endswith("." + name)):
        return text
    return f"{text} AS {name}"


class LogicalPlan(FrozenNode):
    """Base of the logical nodes, with the fluent methods that grow a bigger plan on top.

    Nodes are immutable: the optimizer's rules build new ones.
    """

    children: tuple[LogicalPlan, ...] = ()
    schema: LogicalSchema

    def label(self) -> str:
        """One line saying what the node does, DataFusion's EXPLAIN style."""
        return type(self).__name__

    def expressions(self) -> list[Expression]:
        """The node's bound expressions, in a fixed order `with_expressions` accepts back."""
        return []

    def with_expressions(self, exprs: Sequence[Expression]) -> LogicalPlan:
        return self

    def with_new_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return self

    @property
    def input(self) -> LogicalPlan:
        return self.children[0]

    # -- growing a plan: each method resolves its arguments with plan/builder.py --
    def filter(self, predicate) -> LogicalPlan:
        """Keep the rows where `predicate` is true."""
        return Filter(self, builder.filter_predicate(self, predicate))

    def project(self, exprs: Sequence, names: Sequence[str] | None = None) -> LogicalPlan:
        """One output column per expression (or column name), named by `names` or the text."""
        return Projection(self, *builder.projection(self, exprs, names))

    def aggregate(self, group_by: Sequence, aggregates: Sequence[tuple]) -> LogicalPlan:
        """Group by `group_by` (expressions or column names) and compute the aggregates.

        Each aggregate is ``(func, expr, name)`` or ``(func, expr)`` with func one of sum,
        count, min, max, mean, var_samp, var_pop, stddev_samp, stddev_pop;
        ``("count", None, "n")`` counts rows.
        """
        return Aggregate(self, *builder.aggregation(self, group_by, aggregates))

    def join(self, other, on=(), how: str = "inner", condition=None,
             float_keys: str = IEEE) -> LogicalPlan:
        """Join with `other` on equal keys, plus an optional residual `condition`.

        `on` is [(left column, right column), ...] or shared names; `how` is one of
        inner, left, right, full, semi, anti, cross; `condition` is a predicate over
        both sides' columns, kept for a pair of rows only where it is true;
        `float_keys` is how float keys compare (see `float_keys`: "ieee", NaN matches
        nothing; "normalized", Spark's, NaN matches NaN).
        """
        pairs = builder.join_pairs(on)
        if how in JOIN_TYPES and condition is None and pairs:
            return Join(self, other, pairs, how, float_keys)
        if condition is not None:
            condition = builder.join_condition(self, other, condition)
        return ConditionJoin(self, other, pairs, how, condition, float_keys)

    def join_using(self, other, names, how: str = "inner") -> LogicalPlan:
        """SQL's `JOIN ... USING (names)` (Spark's `a.join(b, names, how)`): each key once,
        then the other columns of the left side, then those of the right side.

        The key is the left one for inner, left, semi and anti joins, the right one for
        a right join and the first non-null of both for a full join, as Spark does.
        """
        names = [names] if isinstance(names, str) else list(names)
        joined = self.join(other, [(n, n) for n in names], how)
        return joined.project(*builder.using_columns(self, other, joined, names, how))

    def sort(self, keys: Sequence) -> LogicalPlan:
        """Order by keys: a column/expression, or (key, "ascending"|"descending"[, nulls]).
        Floats sort as SQL's engines sort them: NaN above every number (`nan_order.py`)."""
        return Sort(self, [SortKey(*key) for key in builder.sort_keys(self, keys)])

    def limit(self, n: int | None, offset: int = 0) -> LogicalPlan:
        """At most `n` rows (None: every row), after skipping `offset`."""
        return Limit(self, n, offset)

    def union(self, *others: LogicalPlan, distinct: bool = False) -> LogicalPlan:
        """SQL's UNION ALL of this plan and `others`, column by column (by position);
        with `distinct=True`, UNION: each distinct row once."""
        out = Union([self, *others])
        return out.distinct() if distinct else out

    def distinct(self) -> LogicalPlan:
        """Each distinct row once (nulls equal to nulls), as DataFusion writes `Distinct`:
        an aggregate grouping by every column."""
        return Aggregate(self, *builder.aggregation(self, list(self.schema.qualified_names), []))

    def window(self, functions: Sequence, names: Sequence[str]) -> LogicalPlan:
        """The input's columns plus one column per window function, named by `names`.

        Each function is a dict (or `builder.WindowSpec`) with ``func`` (row_number, rank,
        dense_rank, lag, lead, sum, avg, min, max, count, var_samp, var_pop, stddev_samp,
        stddev_pop, first_value, last_value), ``arg`` (a column or expression; none for ranking functions and
        count(*)), ``partition_by`` (columns),
        ``order_by`` (sort keys as `sort` takes them), ``frame`` (None: SQL's default,
        or ("rows", start, end) with offsets in rows from the current row, -n PRECEDING,
        m FOLLOWING, None UNBOUNDED, or ("range", start, end) with offsets in the single
        numeric order key's values), ``offset`` (lag/lead, default 1) and ``default``
        (lag/lead's value where the offset row is outside the partition: an expression
        of the current row or a literal of the argument's type; default null) and
        ``ignore_nulls`` (first_value / last_value: the frame's first or last non-null).
        """
        functions = [replace(w, order_by=tuple(SortKey(*k) for k in w.order_by))
                     for w in builder.window_functions(self, functions)]
        return Window(self, functions, names)

    # -- structure -------------------------------------------------------------
    def equals(self, other: object) -> bool:
        """Structural equality: same node kinds, expressions, names and inputs."""
        if not isinstance(other, LogicalPlan):
            return False
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or len(a.children) != len(b.children):
                return False
            if not a._same_node(b):
                return False
            stack.extend(zip(a.children, b.children))
        return True

    def _same_node(self, other) -> bool:
        return self.schema == other.schema

    def walk(self) -> Iterator[LogicalPlan]:
        """Every node, pre-order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    # -- display ---------------------------------------------------------------
    def explain(self, verbose: bool = False, schema: bool = False, observer=None) -> str:
        """The plan as indented text; verbose: the plan after every optimizer rule that changed it."""
        if not verbose:
            return plan_text(self, show_schema=schema)
        return late.operation("explain_plan")(self, show_schema=schema, observer=observer)

    def to_substrait(self) -> bytes:
        """A Substrait Plan of this plan: bytes `pyarrow.substrait.run_query` runs, its
        tables named by relation; `plan.from_substrait` reads it back."""
        return late.operation("plan_to_substrait")(self)

    def explain_row(self, relation: str, row):
        """Where row `row` (a number or a predicate) of source `relation` goes in this plan,
        operator by operator, and why it is kept or dropped (a RowJourney)."""
        return late.operation("explain_plan_row")(self, relation, row)

    def why_not(self, predicate):
        """The source rows compatible with `predicate` (expected in the output), each with
        its journey: which operator dropped each and why."""
        return late.operation("why_not")(self, predicate)

    def __str__(self) -> str:
        return plan_text(self)

    def __repr__(self) -> str:
        return f"<LogicalPlan {visible(self.label())}>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return late.mimebundle(self)


def scan(relation: str, source) -> TableScan:
    """A TableScan of a pyarrow Table, pandas DataFrame, .parquet/.csv path or Spark DataFrame."""
    return TableScan(relation, as_source(source))


class TableScan(LogicalPlan):
    """Reads a source under a relation name; `projection` keeps only some columns."""

    def __init__(self, relation: str, source: Source, projection: Sequence[str] | None = None):
        if not isinstance(relation, str) or not relation or "." in relation:
            raise PlanError(f"a relation name must be a non-empty string without dots, "
                            f"got {relation!r}")
        self.relation = relation
        self.source = source
        names = list(source.schema.names)
        if projection is not None:
            projection = tuple(projection)
            missing = [c for c in projection if c not in names]
            if missing:
                raise PlanError(f"TableScan {relation}: no columns {missing} in the source "
                                f"(it has {', '.join(names)})")
        self.projection = projection
        if projection is None:
            fields = [LogicalField(relation, f.name, f.type, f.nullable) for f in source.schema]
        else:
            by_name = {f.name: f for f in source.schema}
            fields = [LogicalField(relation, n, by_name[n].type, by_name[n].nullable)
                      for n in projection]
        self.schema = checked_schema(fields, self.label)

    def label(self) -> str:
        text = f"TableScan: {self.relation}"
        if self.projection is not None:
            text += f" projection=[{', '.join(self.projection)}]"
        return text

    def with_projection(self, projection: Sequence[str] | None) -> TableScan:
        return TableScan(self.relation, self.source, projection)

    def _same_node(self, other) -> bool:
        return (self.relation == other.relation and self.source is other.source
                and self.projection == other.projection)


class Projection(LogicalPlan):
    """Computes one column per expression, named `names`, qualified by `relations`."""

    def __init__(self, input: LogicalPlan, exprs: Sequence[Expression], names: Sequence[str],
                 relations: Sequence[str | None] | None = None):
        exprs, names = list(exprs), list(names)
        relations = [None] * len(exprs) if relations is None else list(relations)
        if not exprs:
            raise PlanError("a projection needs at least one expression")
        if not (len(exprs) == len(names) == len(relations)):
            raise PlanError(f"projection: {len(exprs)} expressions but {len(names)} names")
        self.children = (input,)
        self.exprs = _bind_all(exprs, input)
        self.names = tuple(names)
        self.relations = tuple(relations)
        fields = [logical_field(e, n, r) for e, n, r in zip(self.exprs, self.names, self.relations)]
        self.schema = checked_schema(fields, self.label)

    def label(self) -> str:
        return "Projection: " + ", ".join(_aliased(e, n) for e, n in zip(self.exprs, self.names))

    def expressions(self):
        return list(self.exprs)

    def with_expressions(self, exprs):
        return Projection(self.input, exprs, self.names, self.relations)

    def with_new_children(self, children):
        return Projection(children[0], self.exprs, self.names, self.relations)

    def _same_node(self, other) -> bool:
        return (self.names == other.names and self.relations == other.relations
                and _exprs_equal(self.exprs, other.exprs))


class Filter(LogicalPlan):
    """Keeps the rows where the predicate is true (null counts as false)."""

    def __init__(self, input: LogicalPlan, predicate: Expression):
        self.children = (input,)
        (self.predicate,) = _bind_all([predicate], input)
        t = self.predicate.type
        if not (pa.types.is_boolean(t) or pa.types.is_null(t)):
            raise PlanError(f"a filter predicate must be boolean, but {self.predicate} is {t}")
        self.schema = input.schema  # a filter creates no schema

    def label(self) -> str:
        return f"Filter: {expression_text(self.predicate)}"

    def expressions(self):
        return [self.predicate]

    def with_expressions(self, exprs):
        return Filter(self.input, exprs[0])

    def with_new_children(self, children):
        return Filter(children[0], self.predicate)

    def _same_node(self, other) -> bool:
        return self.predicate.equals(other.predicate)


class Aggregate(LogicalPlan):
    """Groups by the key expressions and computes the aggregates per group."""

    def __init__(self, input: LogicalPlan, group_exprs: Sequence[Expression],
                 group_names: Sequence[str], group_relations: Sequence[str | None],
                 aggregates: Sequence[AggregateExpr]):
        self.children = (input,)
        self.group_exprs = _bind_all(group_exprs, input)
        self.group_names = tuple(group_names)
        self.group_relations = tuple(group_relations)
        schema = input.schema.binding_schema()
        self.aggregates = tuple(
            replace(a, arg=None if a.arg is None else bind(a.arg, schema)) for a in aggregates)
        grouped = bool(self.group_exprs)
        fields = [logical_field(e, n, r) for e, n, r in
                  zip(self.group_exprs, self.group_names, self.group_relations)]
        for agg in self.aggregates:
            arg_type = None if agg.arg is None else agg.arg.type
            arg_nullable = False if agg.arg is None else nullable(agg.arg)
            fields.append(LogicalField(None, agg.name, aggregate_type(agg.func, arg_type),
                                       aggregate_nullable(agg.func, arg_nullable, grouped)))
        self.schema = checked_schema(fields, self.label)

    def label(self) -> str:
        groups = ", ".join(_aliased(e, n) for e, n in zip(self.group_exprs, self.group_names))
        aggs = ", ".join(f"{a.to_string(short=True)} AS {a.name}" for a in self.aggregates)
        return f"Aggregate: groupBy=[{groups}], aggr=[{aggs}]"

    def expressions(self):
        return list(self.group_exprs) + [a.arg for a in self.aggregates if a.arg is not None]

    def with_expressions(self, exprs):
        exprs = list(exprs)
        n = len(self.group_exprs)
        groups, rest = exprs[:n], iter(exprs[n:])
        aggs = [replace(a, arg=None if a.arg is None else next(rest)) for a in self.aggregates]
        return Aggregate(self.input, groups, self.group_names, self.group_relations, aggs)

    def with_new_children(self, children):
        return Aggregate(children[0], self.group_exprs, self.group_names, self.group_relations,
                         self.aggregates)

    def _same_node(self, other) -> bool:
        return (self.group_names == other.group_names
                and self.group_relations == other.group_relations
                and _exprs_equal(self.group_exprs, other.group_exprs)
                and len(self.aggregates) == len(other.aggregates)
                and all(a.equals(b) for a, b in zip(self.aggregates, other.aggregates)))


class Join(LogicalPlan):
    """An equi-join: `on` pairs a left column with a right column (qualified names);
    `float_keys` says how float keys compare (see `float_keys`)."""

    def __init__(self, left: LogicalPlan, right: LogicalPlan, on: Sequence[tuple[str, str]],
                 how: str = "inner", float_keys: str = IEEE):
        if how not in JOIN_TYPES:
            raise PlanError(f"join type must be one of {sorted(JOIN_TYPES)}, got {how!r}")
        if not on:
            raise PlanError("a join needs at least one pair of equal keys in `on`")
        self.children = (left, right)
        self.how = how
        self.float_keys = checked_float_keys(float_keys)
        self.on = tuple((left.schema.field(lk).qualified_name, right.schema.field(rk).qualified_name)
                        for lk, rk in on)
        for lk, rk in self.on:
            lt, rt = left.schema.field(lk).type, right.schema.field(rk).type
            if lt != rt:
                raise PlanError(f"join keys {lk} ({lt}) and {rk} ({rt}) have different types; "
                                "cast one side in a projection first")
        right_fields = list(right.schema)
        if how == "left":
            right_fields = [LogicalField(f.relation, f.name, f.type, True) for f in right_fields]
        self.schema = checked_schema(list(left.schema) + right_fields, self.label)

    @property
    def left(self) -> LogicalPlan:
        return self.children[0]

    @property
    def right(self) -> LogicalPlan:
        return self.children[1]

    def label(self) -> str:
        keys = ", ".join(f"{lk} = {rk}" for lk, rk in self.on)
        return f"{JOIN_TYPES[self.how]} Join: {keys}" + float_keys_text(self.float_keys)

    def with_new_children(self, children):
        return Join(children[0], children[1], self.on, self.how, self.float_keys)

    def _same_node(self, other) -> bool:
        return (self.on == other.on and self.how == other.how
                and self.float_keys == other.float_keys)


@dataclass(frozen=True, eq=False)
class SortKey:
    expr: Expression
    ascending: bool = True
    nulls_first: bool = False

    def to_string(self) -> str:
        return (f"{expression_text(self.expr)} {'ASC' if self.ascending else 'DESC'} "
                f"NULLS {'FIRST' if self.nulls_first else 'LAST'}")


class Sort(LogicalPlan):
    """Orders the rows by the keys (stable; nulls last unless asked otherwise)."""

    def __init__(self, input: LogicalPlan, keys: Sequence[SortKey]):
        if not keys:
            raise PlanError("a sort needs at least one key")
        self.children = (input,)
        exprs = _bind_all([k.expr for k in keys], input)
        self.keys = tuple(SortKey(e, k.ascending, k.nulls_first) for e, k in zip(exprs, keys))
        self.schema = input.schema

    def label(self) -> str:
        return "Sort: " + ", ".join(k.to_string() for k in self.keys)

    def expressions(self):
        return [k.expr for k in self.keys]

    def with_expressions(self, exprs):
        return Sort(self.input, [SortKey(e, k.ascending, k.nulls_first)
                                 for e, k in zip(exprs, self.keys)])

    def with_new_children(self, children):
        return Sort(children[0], self.keys)

    def _same_node(self, other) -> bool:
        return (len(self.keys) == len(other.keys)
                and all(a.ascending == b.ascending and a.nulls_first == b.nulls_first
                        and a.expr.equals(b.expr) for a, b in zip(self.keys, other.keys)))


class Limit(LogicalPlan):
    """Skips `skip` rows, then passes at most `fetch` rows (None: all the rest, SQL's
    OFFSET without a LIMIT)."""

    def __init__(self, input: LogicalPlan, fetch: int | None, skip: int = 0):
        if fetch is not None and (isinstance(fetch, bool) or not isinstance(fetch, int)
                                  or fetch < 0):
            raise PlanError(f"limit needs a row count >= 0 (or None: all), got {fetch!r}")
        if isinstance(skip, bool) or not isinstance(skip, int) or skip < 0:
            raise PlanError(f"limit's offset must be an integer >= 0, got {skip!r}")
        self.children = (input,)
        self.fetch = fetch
        self.skip = skip
        self.schema = input.schema

    def label(self) -> str:
        return f"Limit: skip={self.skip}, fetch={'all' if self.fetch is None else self.fetch}"

    def with_new_children(self, children):
        return Limit(children[0], self.fetch, self.skip)

    def _same_node(self, other) -> bool:
        return self.fetch == other.fetch and self.skip == other.skip


class EmptyRelation(LogicalPlan):
    """No rows, with a given schema (what an always-false filter becomes)."""

    def __init__(self, schema: LogicalSchema, reason: str = ""):
        self.schema = checked_schema(list(schema), "EmptyRelation")
        self.reason = reason

    def label(self) -> str:
        return "EmptyRelation" + (f": {self.reason}" if self.reason else "")


class Union(LogicalPlan):
    """The rows of every input, one after the other (UNION ALL), matched column by column.

    As DataFusion's Union: all inputs have the same number of columns and the same type
    in each position; the output has the first input's names, each column nullable when
    it is nullable in any input.
    """

    def __init__(self, inputs: Sequence[LogicalPlan]):
        inputs = tuple(inputs)
        if len(inputs) < 2:
            raise PlanError(f"a union needs at least two inputs, got {len(inputs)}")
        first = inputs[0].schema
        for i, other in enumerate(inputs[1:], start=1):
            if len(other.schema) != len(first):
                raise PlanError(
                    f"a union's inputs must have the same number of columns: input 0 has "
                    f"{len(first)} ({', '.join(first.names)}), input {i} has "
                    f"{len(other.schema)} ({', '.join(other.schema.names)})")
            for position, (a, b) in enumerate(zip(first, other.schema)):
                if a.type != b.type:
                    raise PlanError(
                        f"a union's column {position} has type {a.type} in input 0 ({a.name}) "
                        f"but {b.type} in input {i} ({b.name}); cast one in a projection first")
        self.children = inputs
        fields = [LogicalField(f.relation, f.name, f.type,
                               any(c.schema[p].nullable for c in inputs))
                  for p, f in enumerate(first)]
        self.schema = checked_schema(fields, self.label)

    def label(self) -> str:
        return f"Union: {len(self.children)} inputs"

    def with_new_children(self, children):
        return Union(children)


JOIN_KINDS = {"inner": "Inner", "left": "Left", "right": "Right", "full": "Full",
              "semi": "LeftSemi", "anti": "LeftAnti", "cross": "Cross"}


class ConditionJoin(LogicalPlan):
    """A join of any kind on equal keys (`on`, maybe none) plus a residual `condition`.

    DataFusion's Join: a pair of rows matches when every key pair is equal (nulls never
    are; -0.0 matches 0.0, and NaN matches nothing as `equal` has it, or every NaN when
    `float_keys` is "normalized", Spark's: see `float_keys`) and the condition is true. Inner and cross joins keep the matching pairs; left,
    right and full ones also keep the unmatched rows of their side(s), null-extended;
    semi and anti joins keep the left rows that have a match, or have none, and only the
    left columns. (Inner and left equi-joins without a condition are the `Join` node.)
    """

    def __init__(self, left: LogicalPlan, right: LogicalPlan, on: Sequence[tuple[str, str]],
                 how: str = "inner", condition: Expression | None = None,
                 float_keys: str = IEEE):
        if how not in JOIN_KINDS:
            raise PlanError(f"join type must be one of {sorted(JOIN_KINDS)}, got {how!r}")
        if how == "cross" and (on or condition is not None):
            raise PlanError("a cross join pairs every row with every row: it takes no keys and "
                            "no condition (use an inner join)")
        self.children = (left, right)
        self.how = how
        self.float_keys = checked_float_keys(float_keys)
        self.on = tuple((left.schema.field(lk).qualified_name,
                         right.schema.field(rk).qualified_name) for lk, rk in on)
        for lk, rk in self.on:
            lt, rt = left.schema.field(lk).type, right.schema.field(rk).type
            if lt != rt:
                raise PlanError(f"join keys {lk} ({lt}) and {rk} ({rt}) have different types; "
                                "cast one side in a projection first")
        self.condition = None  # the label, which the schema check may read, needs it
        both = checked_schema(list(left.schema) + list(right.schema), self.label)
        if condition is not None:
            self.condition = bind(condition, both.binding_schema())
            t = self.condition.type
            if not (pa.types.is_boolean(t) or pa.types.is_null(t)):
                raise PlanError(f"a join condition must be boolean, but {self.condition} is {t}")
        left_fields, right_fields = list(left.schema), list(right.schema)
        if how in ("right", "full"):
            left_fields = [LogicalField(f.relation, f.name, f.type, True) for f in left_fields]
        if how in ("left", "full"):
            right_fields = [LogicalField(f.relation, f.name, f.type, True) for f in right_fields]
        if how in ("semi", "anti"):
            right_fields = []
        self.schema = checked_schema(left_fields + right_fields, self.label)

    @property
    def left(self) -> LogicalPlan:
        return self.children[0]

    @property
    def right(self) -> LogicalPlan:
        return self.children[1]

    def label(self) -> str:
        parts = [f"{lk} = {rk}" for lk, rk in self.on]
        text = f"{JOIN_KINDS[self.how]} Join: " + ", ".join(parts)
        if self.condition is not None:
            text += (", " if parts else "") + f"condition={self.condition}"
        text = text.rstrip(": ") if not parts and self.condition is None else text
        return text + float_keys_text(self.float_keys)

    def expressions(self):
        return [] if self.condition is None else [self.condition]

    def with_expressions(self, exprs):
        return ConditionJoin(self.left, self.right, self.on, self.how,
                             exprs[0] if exprs else None, self.float_keys)

    def with_new_children(self, children):
        return ConditionJoin(children[0], children[1], self.on, self.how, self.condition,
                             self.float_keys)

    def _same_node(self, other) -> bool:
        return (self.on == other.on and self.how == other.how
                and self.float_keys == other.float_keys
                and (self.condition is None) == (other.condition is None)
                and (self.condition is None or self.condition.equals(other.condition)))


JOIN_NODES = (Join, ConditionJoin)  # every node that joins two inputs


SUBQUERY_KINDS = ("exists", "in")


class SubqueryFilter(LogicalPlan):
    """`WHERE [NOT] EXISTS (subquery)` or `WHERE x [NOT] IN (subquery)`: keeps the input rows
    for which the subquery has (or has no) row matching them.

    DataFusion's Filter over an `Exists` / `InSubquery` expression. The subquery is the
    second input; what ties its rows to an input row is `on` (input column = subquery
    column) plus `condition` over both inputs' columns: the subquery's correlation and,
    for IN, `x = y` (for NOT IN, `x = y OR (x = y) IS NULL`, SQL's null-aware rule). The
    rule decorrelate_predicate_subquery turns it into the semi (anti) join it means.
    """

    def __init__(self, input: LogicalPlan, subquery: LogicalPlan, kind: str, negated: bool,
                 on: Sequence[tuple[str, str]] = (), condition: Expression | None = None,
                 float_keys: str = IEEE):
        if kind not in SUBQUERY_KINDS:
            raise PlanError(f"a subquery predicate is one of {SUBQUERY_KINDS}, got {kind!r}")
        self.kind, self.negated = kind, bool(negated)
        self.as_join = ConditionJoin(input, subquery, on, "anti" if negated else "semi",
                                     condition, float_keys)
        self.float_keys = self.as_join.float_keys
        self.children = (input, subquery)
        self.on, self.condition = self.as_join.on, self.as_join.condition
        self.schema = self.as_join.schema

    def label(self) -> str:
        word = ("NOT " if self.negated else "") + self.kind.upper()
        ties = [f"{lk} = {rk}" for lk, rk in self.on]
        if self.condition is not None:
            ties.append(str(self.condition))
        return (f"Filter: {word} (subquery)" + (f" where {' AND '.join(ties)}" if ties else "")
                + float_keys_text(self.float_keys))

    def with_new_children(self, children):
        return SubqueryFilter(children[0], children[1], self.kind, self.negated, self.on,
                              self.condition, self.float_keys)

    def _same_node(self, other) -> bool:
        return (self.kind == other.kind and self.negated == other.negated
                and self.as_join._same_node(other.as_join))


class ScalarSubquery(LogicalPlan):
    """The input's rows, each with the value of a scalar subquery (null when it has no row):
    what an expression that reads `(SELECT ...)` needs below it.

    DataFusion's `ScalarSubquery` expression, as a node; the subquery is the second
    input and its first column the value. It comes in two forms:

    - grouped (`on`): the subquery's other columns are keys it is matched on (input
      column = subquery column; none when uncorrelated, and then it has at most one
      row). The rule scalar_subquery_to_join turns it into the left join it means.
    - correlated (`correlation`), as SQL writes `(SELECT agg(...) FROM s WHERE s.k =
      outer.k)`: the subquery is an aggregate without groups (under projections) whose
      input rows are, for each input row, those where every `(input column, column of
      the aggregate's input)` pair is equal (nulls never are). The rule
      decorrelate_scalar_subquery groups it by those columns (a count over no rows
      stays 0, not null) and leaves the grouped form.
    """

    def __init__(self, input: LogicalPlan, subquery: LogicalPlan,
                 on: Sequence[tuple[str, str]] = (),
                 correlation: Sequence[tuple[str, str]] = (), float_keys: str = IEEE):
        self.children = (input, subquery)
        self.float_keys = checked_float_keys(float_keys)
        if correlation:
            if on:
                raise PlanError("a scalar subquery is matched either on its output columns "
                                "(`on`) or by a correlation inside it, not both")
            if len(subquery.schema) != 1:
                raise PlanError(f"a correlated scalar subquery has one value column, but it "
                                f"has {len(subquery.schema)} "
                                f"({', '.join(subquery.schema.names)})")
            rows = correlated_aggregate(subquery).input
            self.correlation = tuple(
                (input.schema.field(outer).qualified_name, rows.schema.field(inner).qualified_name)
                for outer, inner in correlation)
            for outer, inner in self.correlation:
                ot, it = input.schema.field(outer).type, rows.schema.field(inner).type
                if ot != it:
                    raise PlanError(f"a correlated scalar subquery compares {inner} ({it}) with "
                                    f"the input's {outer} ({ot}); cast one side first")
            self.on, self.as_join = (), None
            value = subquery.schema[0]
            self.schema = checked_schema(
                list(input.schema) + [LogicalField(value.relation, value.name, value.type,
                                                   True)], self.label)
            return
        if len(subquery.schema) != 1 + len(on):
            raise PlanError(f"a scalar subquery has one value column (plus one per correlated "
                            f"key), but it has {len(subquery.schema)} columns "
                            f"({', '.join(subquery.schema.names)}) for {len(on)} keys")
        self.correlation = ()
        self.as_join = ConditionJoin(input, subquery, on, "left", None, float_keys)
        self.on = self.as_join.on
        self.schema = self.as_join.schema

    @property
    def subquery(self) -> LogicalPlan:
        return self.children[1]

    def label(self) -> str:
        value = self.children[1].schema.qualified_names[0]
        ties = " AND ".join([f"{lk} = {rk}" for lk, rk in self.on]
                            + [f"{inner} = outer {outer}" for outer, inner in self.correlation])
        kind = "correlated " if self.correlation else ""
        return (f"ScalarSubquery: {kind}{value}" + (f" where {ties}" if ties else "")
                + float_keys_text(self.float_keys))

    def with_new_children(self, children):
        return ScalarSubquery(children[0], children[1], self.on, self.correlation,
                              self.float_keys)

    def _same_node(self, other) -> bool:
        return (self.on == other.on and self.correlation == other.correlation
                and self.float_keys == other.float_keys)


def correlated_aggregate(subquery: LogicalPlan) -> Aggregate:
    """The aggregate without groups a correlated scalar subquery computes its value with,
    under the projections at its top; a PlanError names what stands in the way."""
    node = subquery
    while isinstance(node, Projection):
        node = node.input
    if not isinstance(node, Aggregate) or node.group_exprs:
        raise PlanError(
            "a correlated scalar subquery must compute its value with an aggregate without "
            f"groups (under projections only), so it has one row per input row; found "
            f"{node.label()!r}")
    return node


def _literal_as(expr: Expression, target: pa.DataType) -> Expression:
    """A literal given as another type (lag's default 0 for a float column) as `target`
    when the value survives the cast unchanged; anything else as it is."""
    if not expr.is_literal or expr.type.equals(target):
        return expr
    try:
        return literal(expr.value.cast(target, safe=True))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return expr


def _bound_window(w: WindowExpr, input: LogicalPlan) -> WindowExpr:
    """`w` with its expressions bound against `input` (types known), then checked."""
    schema = input.schema.binding_schema()
    bound = w.map_expressions(lambda e: bind(e, schema))
    if bound.default is not None and bound.arg is not None:
        bound = replace(bound, default=_literal_as(bound.default, bound.arg.type))
    check_window(bound.func, bound.arg, bound.order_by, bound.frame, bound.offset,
                 bound.default, bound.ignore_nulls)
    return bound


class Window(LogicalPlan):
    """The input's rows and columns, plus one column per window function (DataFusion's
    `Window`): each row gets a value computed over the rows of its partition (and frame),
    without collapsing them as an aggregate would."""

    def __init__(self, input: LogicalPlan, functions: Sequence[WindowExpr],
                 names: Sequence[str]):
        functions, names = tuple(functions), tuple(names)
        if not functions:
            raise PlanError("a window node needs at least one window function")
        if len(functions) != len(names):
            raise PlanError(f"window: {len(functions)} functions but {len(names)} names")
        self.children = (input,)
        self.functions = tuple(_bound_window(w, input) for w in functions)
        self.names = names
        fields = list(input.schema) + [
            LogicalField(None, n, window_type(w), window_nullable(w))
            for w, n in zip(self.functions, names)]
        self.schema = checked_schema(fields, self.label)

    def label(self) -> str:
        return "WindowAggr: windowExpr=[" + ", ".join(
            f"{w.to_string()} AS {n}" for w, n in zip(self.functions, self.names)) + "]"

    def with_new_children(self, children):
        return Window(children[0], self.functions, self.names)

    def _same_node(self, other) -> bool:
        return (self.names == other.names and len(self.functions) == len(other.functions)
                and all(a.equals(b) for a, b in zip(self.functions, other.functions)))
