"""A Substrait Plan's relations read as exprscope's logical plan nodes.

Substrait addresses columns by position; exprscope's plans by (relation, name).
Each rel is read as a node and the list of its output columns by qualified
name, so a field reference `$2` in a rel's expression reads as the name of its
input's third column, and an emit mapping (which columns a rel passes on, in
what order) is that list re-picked rather than a node of its own. Names that
Substrait does not carry (computed columns, aggregates) come from the rel's
`hint.output_names` when a producer wrote them (exprscope does), else from the
expression's text. Every refusal names the message path it stands at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa
from substrait import algebra_pb2

from ...errors import ExprscopeError, SubstraitError
from ...model.expression import Call, Expression, Parameter
from ...model.field_ref import FieldRef
from ...plan.aggregates import AggregateExpr
from ...plan.float_keys import IEEE, NORMALIZED, nan_equality
from ...plan.logical_plan import (
    Aggregate,
    ConditionJoin,
    Filter,
    Join,
    Limit,
    LogicalPlan,
    Projection,
    Sort,
    SortKey,
    TableScan,
    Union,
)
from ...plan.sources import Source, as_source
from ...support.visible_text import visible
from .distributions import read_distribution
from .functions import AGGREGATE_DISTRIBUTIONS, AGGREGATE_MAPPINGS
from .messages import decode
from .old_fields import old_int64, old_messages
from .plan_names import (
    field_of,
    hinted_names,
    kept_relation,
    natural_name,
    top_level_names,
    unique_columns,
)
from .read import ExpressionReader, Functions
from .sort_fields import ORDER_OF_DIRECTION
from .types import UserTypes, literal_from_substrait, schema_from_substrait
from .window_rels import WindowRead, read_window_rel

__all__ = ["PlanReader", "RelColumns"]


# (Substrait name, its `distribution` option or None) -> plan aggregate
_AGGREGATE_OF = {(substrait, AGGREGATE_DISTRIBUTIONS.get(func)): func
                 for func, (_, substrait) in AGGREGATE_MAPPINGS.items()}
_READS = "read, filter, project, aggregate, sort, fetch, join, cross, set (union) and window"
_JOINS = {algebra_pb2.JoinRel.JOIN_TYPE_INNER: "inner",
          algebra_pb2.JoinRel.JOIN_TYPE_LEFT: "left",
          algebra_pb2.JoinRel.JOIN_TYPE_RIGHT: "right",
          algebra_pb2.JoinRel.JOIN_TYPE_OUTER: "full",
          algebra_pb2.JoinRel.JOIN_TYPE_LEFT_SEMI: "semi",
          algebra_pb2.JoinRel.JOIN_TYPE_LEFT_ANTI: "anti"}
_UNIONS = {algebra_pb2.SetRel.SET_OP_UNION_ALL: False, algebra_pb2.SetRel.SET_OP_UNION_DISTINCT: True}
_ALL = algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_ALL
_UNSPECIFIED = algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_UNSPECIFIED
_WHOLE_PHASES = (algebra_pb2.AGGREGATION_PHASE_UNSPECIFIED,
                 algebra_pb2.AGGREGATION_PHASE_INITIAL_TO_RESULT)
# fields Substrait removed that older producers (Acero among them) still write
_OLD_FETCH_OFFSET = 3
_OLD_FETCH_COUNT = 4
_OLD_GROUPING_EXPRESSIONS = 1


@dataclass(frozen=True)
class RelColumns:
    """A rel read: its node, and the qualified name of its output column at each position."""

    plan: LogicalPlan
    columns: tuple[str, ...]


def _built(where: str, what: str, make: Callable[[], LogicalPlan]) -> LogicalPlan:
    """A node made from the message's parts; the engine's refusal is told with its place."""
    try:
        return make()
    except SubstraitError:
        raise
    except ExprscopeError as exc:
        raise SubstraitError(f"the {what} does not make an exprscope plan node (at {where}): "
                             f"{exc}") from None


class PlanReader:
    """Reads the rels of one Plan: its functions by anchor, the tables by name."""

    def __init__(self, functions: Functions, producer: str, tables: dict,
                 user_types: UserTypes | None = None):
        self.functions = functions
        self.producer = producer
        self.user_types = user_types or UserTypes()
        self.tables = tables
        self._sources: dict[str, Source] = {}

    def read(self, rel: algebra_pb2.Rel, where: str) -> RelColumns:
        kind = rel.WhichOneof("rel_type")
        if kind is None:
            raise SubstraitError(f"a rel with nothing set (at {where})")
        read = getattr(self, "_" + kind, None)
        if read is None:
            raise SubstraitError(f"a {kind} rel has no exprscope plan node (at {where}.{kind}); "
                                 f"exprscope reads {_READS}")
        inner = getattr(rel, kind)
        out = read(inner, f"{where}.{kind}")
        if kind not in ("project", "read"):  # those two read their own emit
            out = self._emit(out, inner.common, f"{where}.{kind}.common.emit")
        return out

    # -- expressions -----------------------------------------------------------------

    def _expressions(self, *inputs: RelColumns) -> ExpressionReader:
        """A reader whose positional references name the inputs' columns, in order."""
        fields = []
        for rel in inputs:
            binding = rel.plan.schema.binding_schema()
            fields.extend(binding.field(c) for c in rel.columns)
        return ExpressionReader(self.functions, pa.schema(fields), self.producer, self.user_types)

    def _emit(self, rel: RelColumns, common, where: str) -> RelColumns:
        if not common.HasField("emit"):
            return rel
        picked = []
        for i, position in enumerate(common.emit.output_mapping):
            if not 0 <= position < len(rel.columns):
                raise SubstraitError(f"output_mapping[{i}] is {position}, past the rel's "
                                     f"{len(rel.columns)} columns (at {where})")
            picked.append(rel.columns[position])
        return self._pick(rel, picked, where)

    def _pick(self, rel: RelColumns, picked: list[str], where: str) -> RelColumns:
        """`rel` passing on the columns `picked`, in that order."""
        if len(set(picked)) == len(picked):
            return RelColumns(rel.plan, tuple(picked))
        # a column passed on twice: a projection gives each copy its own name
        exprs = [Parameter(FieldRef(c)) for c in picked]
        return self._projection(rel, exprs, [field_of(rel.plan, c).name for c in picked], where)

    def _projection(self, rel: RelColumns, exprs: list[Expression], wanted: list[str],
                    where: str) -> RelColumns:
        names, relations = unique_columns(rel.plan, exprs, wanted)
        node = _built(where, "projection", lambda: Projection(rel.plan, exprs, names, relations))
        return RelColumns(node, tuple(node.schema.qualified_names))

    # -- rels ------------------------------------------------------------------------

    def _read(self, r, where: str) -> RelColumns:
        kind = r.WhichOneof("read_type")
        if kind != "named_table":
            raise SubstraitError(f"a read of a {kind or 'nothing'} has no exprscope source (at "
                                 f"{where}); exprscope reads named tables, given by name in "
                                 "`tables`")
        name, source = self._table(list(r.named_table.names), f"{where}.named_table")
        base = schema_from_substrait(r.base_schema, f"{where}.base_schema", self.user_types)
        _check_schema(name, base, source.schema, f"{where}.base_schema")
        positions = list(range(len(base)))
        if r.HasField("projection"):
            positions = _mask(r.projection, len(base), f"{where}.projection")
        if r.common.HasField("emit"):
            mapping = list(r.common.emit.output_mapping)
            for i, p in enumerate(mapping):
                if not 0 <= p < len(positions):
                    raise SubstraitError(f"output_mapping[{i}] is {p}, past the read's "
                                         f"{len(positions)} columns (at {where}.common.emit)")
            positions = [positions[p] for p in mapping]
        names = [base.field(p).name for p in positions]
        keep_all = list(base.names) == list(source.schema.names)
        relation = name
        if r.HasField("filter"):  # the filter sees every base column, before the projection
            scan = _built(where, "read", lambda: TableScan(
                relation, source, None if keep_all else base.names))
            read = RelColumns(scan, tuple(scan.schema.qualified_names))
            predicate = self._expressions(read).read(r.filter, f"{where}.filter")
            node = _built(f"{where}.filter", "read's filter", lambda: Filter(scan, predicate))
            cols = tuple(f"{relation}.{n}" for n in names)
        else:
            scanned = list(dict.fromkeys(names))
            whole = scanned == list(source.schema.names) or not scanned
            node = _built(where, "read", lambda: TableScan(
                relation, source, None if whole else scanned))
            cols = tuple(f"{relation}.{n}" for n in names)
        # best_effort_filter may be skipped: a later filter keeps the rows right
        return self._pick(RelColumns(node, tuple(node.schema.qualified_names)), list(cols),
                          f"{where}.common.emit")

    def _table(self, parts: list[str], where: str) -> tuple[str, Source]:
        if not parts:
            raise SubstraitError(f"a named table with no name (at {where})")
        key = ".".join(parts)
        given = key if key in self.tables else parts[-1]
        if given not in self.tables:
            held = ", ".join(repr(visible(str(k))) for k in list(self.tables)[:12]) or "nothing"
            raise SubstraitError(f"the plan reads table {visible(key)!r}, which `tables` does not "
                                 f"hold (it holds {held}) (at {where})")
        if given not in self._sources:
            try:
                self._sources[given] = as_source(self.tables[given])
            except ExprscopeError as exc:
                raise SubstraitError(f"table {visible(given)!r}: {exc} (at {where})") from None
        return parts[-1], self._sources[given]

    def _filter(self, f, where: str) -> RelColumns:
        rel = self.read(f.input, where + ".input")
        if not f.HasField("condition"):
            raise SubstraitError(f"a filter with no condition (at {where})")
        predicate = self._expressions(rel).read(f.condition, where + ".condition")
        node = _built(where + ".condition", "filter", lambda: Filter(rel.plan, predicate))
        return RelColumns(node, rel.columns)

    def _project(self, p, where: str) -> RelColumns:
        rel = self.read(p.input, where + ".input")
        windows = [i for i, e in enumerate(p.expressions)
                   if e.WhichOneof("rex_type") == "window_function"]
        if windows:  # DataFusion writes window functions as a project's expressions
            rel, window_columns = self._windows_of(p, windows, rel, where)
        reader = self._expressions(rel)
        exprs: list[Expression] = [Parameter(FieldRef(c)) for c in rel.columns]
        if windows:
            exprs = exprs[:len(exprs) - len(windows)]
        exprs += [window_columns[i] if windows and i in window_columns
                  else reader.read(e, f"{where}.expressions[{i}]")
                  for i, e in enumerate(p.expressions)]
        mapping = list(range(len(exprs)))
        if p.common.HasField("emit"):
            mapping = list(p.common.emit.output_mapping)
            for i, m in enumerate(mapping):
                if not 0 <= m < len(exprs):
                    raise SubstraitError(f"output_mapping[{i}] is {m}, past the project's "
                                         f"{len(exprs)} columns ({len(rel.columns)} in, "
                                         f"{len(p.expressions)} computed) (at {where}.common.emit)")
        picked = [exprs[m] for m in mapping]
        if not picked:
            raise SubstraitError(f"a project that passes on no column (at {where})")
        names = hinted_names(p.common, len(picked)) or [natural_name(rel.plan, e) for e in picked]
        return self._projection(rel, picked, names, where)

    def _windows_of(self, p, positions: list[int], rel: RelColumns,
                    where: str) -> tuple[RelColumns, dict[int, Expression]]:
        """The project's window function expressions as one Window node over its input:
        each read as a one-function window rel (its partitions and sorts its own)."""
        below = self._exact(rel, where + ".input")
        base_width = len(below.schema)
        for i in positions:
            f = p.expressions[i].window_function
            one = algebra_pb2.ConsistentPartitionWindowRel()
            one.partition_expressions.extend(f.partitions)
            one.sorts.extend(f.sorts)
            function = one.window_functions.add()
            function.function_reference = f.function_reference
            function.arguments.extend(f.arguments)
            function.invocation = f.invocation
            function.bounds_type = f.bounds_type
            function.lower_bound.CopyFrom(f.lower_bound)
            function.upper_bound.CopyFrom(f.upper_bound)
            taken = set(below.schema.names)
            one.common.hint.output_names.append(next(
                f"_window{k}" for k in range(len(taken) + 1) if f"_window{k}" not in taken))
            reader = self._expressions(RelColumns(below, tuple(below.schema.qualified_names)))
            at = f"{where}.expressions[{i}].window_function"
            below = _built(at, "window", lambda one=one, below=below, reader=reader, at=at:
                           read_window_rel(one, WindowRead(below, reader.read,
                                                           self._function_name, at)))
        added = below.schema.qualified_names[base_width:]
        columns = {i: Parameter(FieldRef(name)) for i, name in zip(positions, added)}
        return RelColumns(below, tuple(below.schema.qualified_names)), columns

    def _function_name(self, reference: int, at: str) -> str:
        found = self.functions.get(reference)
        if found is None:
            raise SubstraitError(f"function reference {reference} is declared nowhere in "
                                 f"the plan's extensions (at {at})")
        return found[1].split(":", 1)[0]

    def _aggregate(self, a, where: str) -> RelColumns:
        rel = self.read(a.input, where + ".input")
        reader = self._expressions(rel)
        keys = self._grouping_keys(a, reader, where)
        aggregates = [self._measure(m, i, reader, f"{where}.measures[{i}]")
                      for i, m in enumerate(a.measures)]
        natural = [natural_name(rel.plan, k) for k in keys] + [t for _, _, t in aggregates]
        names, relations = unique_columns(rel.plan, [*keys, *(None for _ in aggregates)],
                                          hinted_names(a.common, len(natural)) or natural)
        key_names, agg_names = names[:len(keys)], names[len(keys):]
        relations = relations[:len(keys)]
        aggs = [AggregateExpr(func, arg, n) for (func, arg, _), n in zip(aggregates, agg_names)]
        node = _built(where, "aggregate", lambda: Aggregate(rel.plan, keys, key_names,
                                                            relations, aggs))
        return RelColumns(node, tuple(node.schema.qualified_names))

    def _grouping_keys(self, a, reader: ExpressionReader, where: str) -> list[Expression]:
        if len(a.groupings) > 1:
            raise SubstraitError(f"an aggregate with {len(a.groupings)} groupings (grouping sets, "
                                 "rollup or cube) has no exprscope form: its Aggregate groups "
                                 f"one way (at {where}.groupings)")
        if not a.groupings:
            return []
        grouping = a.groupings[0]
        g_where = f"{where}.groupings[0]"
        keys = []
        for i, ref in enumerate(grouping.expression_references):
            if not 0 <= ref < len(a.grouping_expressions):
                raise SubstraitError(f"expression_references[{i}] is {ref}, past the aggregate's "
                                     f"{len(a.grouping_expressions)} grouping_expressions "
                                     f"(at {g_where})")
            keys.append(reader.read(a.grouping_expressions[ref],
                                    f"{where}.grouping_expressions[{ref}]"))
        if not keys:  # the form before Substrait 0.53: expressions inside the grouping
            old = old_messages(grouping, _OLD_GROUPING_EXPRESSIONS,
                               "the old grouping_expressions", g_where)
            for i, data in enumerate(old):
                at = f"{g_where}.grouping_expressions[{i}]"
                keys.append(reader.read(decode(data, algebra_pb2.Expression, at), at))
        return keys

    def _measure(self, m, i: int, reader: ExpressionReader, where: str):
        """(plan aggregate function, argument or None for count(*), natural name)."""
        if m.HasField("filter"):
            raise SubstraitError(f"a measure with a filter (FILTER (WHERE ...)) has no exprscope "
                                 f"form; filter the input first (at {where}.filter)")
        f = m.measure
        where = where + ".measure"
        name = self._function_name(f.function_reference, where)
        func = _AGGREGATE_OF.get((name, read_distribution(f, name, where)))
        if func is None:
            raise SubstraitError(f"the aggregate function {visible(name)} has no exprscope "
                                 f"aggregate (at {where}); exprscope's plans aggregate with "
                                 "sum, count, count(*), min, max, avg (as mean), variance "
                                 "and std_dev")
        if f.invocation not in (_ALL, _UNSPECIFIED):
            raise SubstraitError(f"{visible(name)}(DISTINCT ...) has no exprscope form: its "
                                 f"aggregates see every row (at {where}.invocation)")
        if f.phase not in _WHOLE_PHASES:
            phase = _enum_name(algebra_pb2.AggregationPhase, f.phase)
            raise SubstraitError(f"a {phase} aggregate "
                                 "(one part of a split aggregation) has no exprscope form: "
                                 f"its aggregates run whole (at {where}.phase)")
        args = []
        for j, a in enumerate(f.arguments):
            if a.WhichOneof("arg_type") != "value":
                kind = a.WhichOneof("arg_type") or "empty"
                raise SubstraitError(f"a {kind} argument of {visible(name)} "
                                     f"has no exprscope form (at {where}.arguments[{j}])")
            args.append(reader.read(a.value, f"{where}.arguments[{j}].value"))
        if func == "count" and (not args or (len(args) == 1 and _counts_rows(args[0]))):
            return "count", None, "count(*)"
        if len(args) != 1:
            raise SubstraitError(f"{visible(name)} takes one argument in exprscope's plans, got "
                                 f"{len(args)} (at {where})")
        return func, args[0], f"{func}({args[0]})"

    def _sort(self, s, where: str) -> RelColumns:
        rel = self.read(s.input, where + ".input")
        reader = self._expressions(rel)
        keys = []
        for i, field in enumerate(s.sorts):
            at = f"{where}.sorts[{i}]"
            if field.WhichOneof("sort_kind") != "direction":
                raise SubstraitError(f"a sort by a comparison function has no exprscope form; "
                                     f"exprscope sorts ascending or descending (at {at})")
            order = ORDER_OF_DIRECTION.get(field.direction)
            if order is None:
                direction = _enum_name(algebra_pb2.SortField.SortDirection, field.direction)
                raise SubstraitError(f"sort direction {direction} has no exprscope form "
                                     f"(at {at}.direction)")
            keys.append(SortKey(reader.read(field.expr, at + ".expr"), *order))
        node = _built(where, "sort", lambda: Sort(rel.plan, keys))
        return RelColumns(node, rel.columns)

    def _fetch(self, f, where: str) -> RelColumns:
        rel = self.read(f.input, where + ".input")
        offset = _fetch_number(f, "offset_expr", _OLD_FETCH_OFFSET, where) or 0
        count = _fetch_number(f, "count_expr", _OLD_FETCH_COUNT, where)
        if count is not None and count < 0:
            count = None  # -1: every row
        if offset < 0:
            raise SubstraitError(f"a fetch with a negative offset {offset} (at {where})")
        if count is None and offset == 0:
            return rel
        node = _built(where, "fetch", lambda: Limit(rel.plan, count, offset))
        return RelColumns(node, rel.columns)

    def _join(self, j, where: str) -> RelColumns:
        """A JoinRel: its equalities of a left and a right column become keys; the rest of
        its expression stays a residual condition (a `ConditionJoin`, as does every kind
        but an inner or left join on keys alone, which is a `Join`)."""
        left = self.read(j.left, where + ".left")
        right = self.read(j.right, where + ".right")
        how = _JOINS.get(j.type)
        if how is None:
            join_type = _enum_name(algebra_pb2.JoinRel.JoinType, j.type)
            raise SubstraitError(f"a {join_type} join has no exprscope form; exprscope joins "
                                 f"{', '.join(sorted(_JOINS.values()))} and cross "
                                 f"(at {where}.type)")
        if not j.HasField("expression"):
            if how != "inner":
                raise SubstraitError(f"a {how} join with no condition has no exprscope form: "
                                     f"only an inner one, a cross product, does (at {where})")
            return self._cross(j, where)  # DataFusion writes `FROM t, u` so
        shared = [c for c in left.columns if c in set(right.columns)]
        if shared:
            raise self._same_columns(left, right, shared, j.expression, where)
        reader = self._expressions(left, right)
        condition = reader.read(j.expression, where + ".expression")
        lplan, rplan = self._exact(left, where + ".left"), self._exact(right, where + ".right")
        floats = {c for rel, exact in ((left, lplan), (right, rplan))  # by position
                  for c, f in zip(rel.columns, exact.schema) if pa.types.is_floating(f.type)}
        on, residual, float_keys = _split_condition(condition, set(left.columns),
                                                    set(right.columns), floats)
        if how in ("inner", "left") and on and residual is None:
            node = _built(where, "join", lambda: Join(lplan, rplan, on, how, float_keys))
        else:
            node = _built(where, "join",
                          lambda: ConditionJoin(lplan, rplan, on, how, residual, float_keys))
        kept = left.columns if how in ("semi", "anti") else left.columns + right.columns
        out = RelColumns(node, kept)
        if j.HasField("post_join_filter"):
            if how != "inner":
                raise SubstraitError(f"a {how} join's post_join_filter has no exprscope form "
                                     f"(it is not a filter above the join) (at {where})")
            predicate = self._expressions(out).read(j.post_join_filter,
                                                    where + ".post_join_filter")
            node = _built(where + ".post_join_filter", "post-join filter",
                          lambda: Filter(out.plan, predicate))
            out = RelColumns(node, out.columns)
        return out

    def _cross(self, c, where: str) -> RelColumns:
        left = self.read(c.left, where + ".left")
        right = self.read(c.right, where + ".right")
        shared = [col for col in left.columns if col in set(right.columns)]
        if shared:
            names = ", ".join(visible(col) for col in shared[:8])
            raise SubstraitError(f"both sides of the cross product have columns {names} (a "
                                 "table crossed with itself?): exprscope names a column by "
                                 f"relation.name, so it cannot tell the sides apart (at {where})")
        lplan, rplan = self._exact(left, where + ".left"), self._exact(right, where + ".right")
        node = _built(where, "cross join", lambda: ConditionJoin(lplan, rplan, [], "cross"))
        return RelColumns(node, left.columns + right.columns)

    def _set(self, s, where: str) -> RelColumns:
        """UNION ALL is a Union; UNION DISTINCT its distinct rows. Other set operations
        (minus, intersect) have no exprscope node."""
        distinct = _UNIONS.get(s.op)
        if distinct is None:
            op = _enum_name(algebra_pb2.SetRel.SetOp, s.op)
            raise SubstraitError(f"a {op} set rel has no exprscope form; exprscope reads "
                                 f"UNION ALL and UNION DISTINCT (at {where}.op)")
        if len(s.inputs) < 2:
            raise SubstraitError(f"a union of {len(s.inputs)} input(s): it needs two or more "
                                 f"(at {where}.inputs)")
        inputs = [self._exact(self.read(r, f"{where}.inputs[{i}]"), f"{where}.inputs[{i}]")
                  for i, r in enumerate(s.inputs)]
        node = _built(where, "union", lambda: Union(inputs))
        if distinct:
            node = _built(where, "union's distinct rows", node.distinct)
        return RelColumns(node, tuple(node.schema.qualified_names))

    def _window(self, w, where: str) -> RelColumns:
        rel = self.read(w.input, where + ".input")
        below = self._exact(rel, where + ".input")
        reader = self._expressions(RelColumns(below, tuple(below.schema.qualified_names)))
        node = _built(where, "window", lambda: read_window_rel(
            w, WindowRead(below, reader.read, self._function_name, where)))
        return RelColumns(node, tuple(node.schema.qualified_names))

    def _exact(self, rel: RelColumns, where: str) -> LogicalPlan:
        """`rel` as a plan whose output is exactly its columns, in order (a projection
        where an emit picked or reordered them)."""
        if tuple(rel.plan.schema.qualified_names) == tuple(rel.columns):
            return rel.plan
        exprs = [Parameter(FieldRef(c)) for c in rel.columns]
        return self._projection(rel, exprs, [field_of(rel.plan, c).name for c in rel.columns],
                                where).plan

    def _same_columns(self, left: RelColumns, right: RelColumns, shared: list[str],
                      condition, where: str) -> SubstraitError:
        """A join whose sides share columns (a table joined with itself): its condition told
        with each column's side, since positions are all Substrait gives."""
        sides = [*(f"{c} (left)" for c in left.columns), *(f"{c} (right)" for c in right.columns)]
        fields = [pa.field(n, f.type) for n, f in zip(sides, [
            *(field_of(left.plan, c) for c in left.columns),
            *(field_of(right.plan, c) for c in right.columns)])]
        reader = ExpressionReader(self.functions, pa.schema(fields), self.producer,
                                  self.user_types)
        text = visible(str(reader.read(condition, where + ".expression")))
        text = text if len(text) <= 120 else text[:117] + "..."
        names = ", ".join(visible(c) for c in shared[:8]) + (", ..." if len(shared) > 8 else "")
        return SubstraitError(
            f"both sides of the join have columns {names} (a table joined with itself?): "
            "exprscope names a column by relation.name, so its plans cannot tell the sides "
            f"apart; the condition is {text} (at {where})")

    # -- the root ----------------------------------------------------------------------

    def named(self, rel: RelColumns, names: list[str], where: str) -> LogicalPlan:
        """The plan whose output columns are `rel`'s columns under the root's names."""
        schema = rel.plan.schema
        fields = [field_of(rel.plan, c) for c in rel.columns]
        top = top_level_names(names, [f.type for f in fields], where) if names else [
            f.name for f in fields]
        if list(rel.columns) == schema.qualified_names and top == schema.names:
            return rel.plan
        if isinstance(rel.plan, Projection) and list(rel.columns) == schema.qualified_names:
            node = rel.plan
            relations = [kept_relation(node.input, e, n) for e, n in zip(node.exprs, top)]
            return _built(where, "root's names", lambda: Projection(node.input, node.exprs, top,
                                                                  relations))
        exprs = [Parameter(FieldRef(c)) for c in rel.columns]
        relations = [kept_relation(rel.plan, e, n) for e, n in zip(exprs, top)]
        return _built(where, "root's names", lambda: Projection(rel.plan, exprs, top, relations))


# -- helpers ---------------------------------------------------------------------------


def _check_schema(name: str, base: pa.Schema, table: pa.Schema, where: str) -> None:
    types: dict[str, list[pa.DataType]] = {}
    for f in table:
        types.setdefault(f.name, []).append(f.type)
    for f in base:
        if f.name not in types:
            shown = ", ".join(visible(n) for n in table.names[:40])
            more = f" and {len(table) - 40:,} more" if len(table) > 40 else ""
            raise SubstraitError(f"table {visible(name)!r} has no column {visible(f.name)!r}, "
                                 f"which the read's base_schema names (the table has "
                                 f"{shown}{more}) (at {where})")
        if len(types[f.name]) > 1:
            raise SubstraitError(f"table {visible(name)!r} has {len(types[f.name])} columns "
                                 f"named {visible(f.name)!r}, so the read's base_schema does "
                                 f"not say which it reads (at {where})")
        have = types[f.name][0]
        if have != f.type:
            raise SubstraitError(f"table {visible(name)!r}'s column {visible(f.name)!r} is {have}, "
                                 f"but the read's base_schema says {f.type} (at {where})")


def _enum_name(enum, value: int) -> str:
    """An enum value's name; an unknown number (protobuf keeps those) as itself."""
    try:
        return enum.Name(value)
    except ValueError:
        return f"unknown ({value})"


def _mask(mask, width: int, where: str) -> list[int]:
    if not mask.HasField("select"):
        raise SubstraitError(f"a read projection that is not a list of top-level columns has "
                             f"no exprscope form (at {where})")
    out = []
    for i, item in enumerate(mask.select.struct_items):
        if item.HasField("child"):
            raise SubstraitError(f"a read projection into a struct's fields has no exprscope "
                                 f"form (at {where}.select.struct_items[{i}])")
        if not 0 <= item.field < width:
            raise SubstraitError(f"struct_items[{i}] is field {item.field}, past the base "
                                 f"schema's {width} fields (at {where}.select)")
        out.append(item.field)
    return out


def _fetch_number(f, field: str, old_number: int, where: str) -> int | None:
    if f.HasField(field):
        e = getattr(f, field)
        if e.WhichOneof("rex_type") != "literal":
            raise SubstraitError(f"a fetch's {field} that is not a literal has no exprscope "
                                 f"form (at {where}.{field})")
        value = literal_from_substrait(e.literal, f"{where}.{field}.literal")
        if not pa.types.is_integer(value.type) or not value.is_valid:
            raise SubstraitError(f"a fetch's {field} must be a non-null integer, got {value.type} "
                                 f"(at {where}.{field})")
        return value.as_py()
    return old_int64(f, old_number, f"the old {field.removesuffix('_expr')}", where)


def _counts_rows(arg: Expression) -> bool:
    """count(1), count of any non-null literal, is count(*): DataFusion writes count(*) so."""
    return arg.is_literal and isinstance(arg.value, pa.Scalar) and arg.value.is_valid


def _split_condition(condition: Expression, left: set[str], right: set[str],
                     floats: set[str] = frozenset()
                     ) -> tuple[list[tuple[str, str]], Expression | None, str]:
    """A join expression's equalities of a left and a right column (the keys), the AND of
    its other conjuncts (the residual condition, None when there are none), and how the
    keys compare floats.

    `l = r OR (is_nan(l) AND is_nan(r))` of two float columns (what exprscope writes for
    a join that pairs NaN with NaN, Spark's) is a key of such a join (float_keys
    normalized); a plain `l = r` of floats then stays in the residual condition, where
    NaN matches nothing."""
    conjuncts, stack = [], [condition]
    while stack:
        e = stack.pop()
        if e.is_call and e.name == "and_kleene":
            stack.extend(reversed(e.args))
        else:
            conjuncts.append(e)
    normalized = [c for c in conjuncts if _nan_equal_columns(c, floats) is not None]
    float_keys = NORMALIZED if normalized else IEEE
    on, rest = [], []
    for c in conjuncts:
        nan_equal = _nan_equal_columns(c, floats)
        sides = _column_equality(c if nan_equal is None else nan_equal)
        names = [a.ref.name for a in sides]
        same_type = len(sides) == 2 and sides[0].type == sides[1].type
        if same_type and normalized and nan_equal is None and names[0] in floats:
            same_type = False  # an IEEE float equality in a join that pairs NaN with NaN
        if same_type and names[0] in left and names[1] in right:
            on.append((names[0], names[1]))
        elif same_type and names[1] in left and names[0] in right:
            on.append((names[1], names[0]))
        elif not (c.is_literal and c.value.is_valid and c.value.as_py() is True):
            rest.append(c)
    residual = rest[0] if rest else None
    for c in rest[1:]:
        residual = Call("and_kleene", [residual, c])
    return on, residual, float_keys


def _column_equality(c: Expression) -> list:
    """The two named columns `c` equates, else []."""
    if not (c.is_call and c.name == "equal" and len(c.args) == 2):
        return []
    sides = [a for a in c.args if a.is_field and a.ref.is_name]
    return sides if len(sides) == 2 else []


def _nan_equal_columns(c: Expression, floats: set[str]) -> Expression | None:
    """`l = r` when `c` is `l = r OR (is_nan(l) AND is_nan(r))` of two float columns
    (`floats` names the float columns)."""
    equal = nan_equality(c)
    if equal is None:
        return None
    sides = _column_equality(equal)
    return equal if sides and sides[0].ref.name in floats else None
