"""The physical planner: `create_physical_plan(logical) -> PhysicalPlan`, checked node by node.

Each logical node becomes one physical node. The physical node derives its own
schema: its expressions are bound afresh against the *physical* input's schema
(renamed to the logical input's qualified names, see `logical_schema`), so
types come from the function registry applied to physical types. The planner
then checks, per node, a MUST (docs/semantics.md §8): the physical schema equals the logical
schema with relation qualifiers stripped; a mismatch (for example a function
re-registered with another output type after the logical plan was built) raises
InvariantViolation. Finally the physical optimizer runs.
"""

from __future__ import annotations

import pyarrow as pa

from ..functions.bind import bind
from .aggregates import aggregate_nullable, aggregate_type
from .correlated_apply import applied
from .errors import PlanError
from .invariants import PLANNING_KEEPS_SCHEMA, current_mode, report
from .logical_fields import nullable
from .logical_plan import (
    JOIN_NODES,
    Aggregate,
    EmptyRelation,
    Filter,
    Limit,
    LogicalPlan,
    Projection,
    ScalarSubquery,
    Sort,
    SubqueryFilter,
    TableScan,
    Union,
    Window,
)
from .physical_optimizer import optimize_physical
from .physical_plan import (
    EmptyExec,
    FilterExec,
    HashAggregateExec,
    HashJoinExec,
    LimitExec,
    PhysicalAggregate,
    PhysicalPlan,
    ProjectionExec,
    ScanExec,
    SortExec,
    UnionExec,
    WindowExec,
)
from .plan_text import fields_text
from .schema_problems import schema_problems
from .tree import transform_up
from .window import WindowExpr, window_nullable, window_type

__all__ = ["create_physical_plan"]


def _binding(child: PhysicalPlan, logical_input: LogicalPlan) -> tuple[pa.Schema, list[str]]:
    """The physical input's schema under the logical input's qualified names."""
    names = logical_input.schema.qualified_names  # same length: the child passed its check
    return pa.schema([f.with_name(n) for f, n in zip(child.schema, names)]), names


def _plan_node(node: LogicalPlan, children: list[PhysicalPlan]) -> PhysicalPlan:
    if isinstance(node, TableScan):
        return ScanExec(node.relation, node.source, node.projection)
    if isinstance(node, EmptyRelation):
        return EmptyExec(node.schema.to_arrow())
    if isinstance(node, Limit):
        return LimitExec(children[0], node.fetch, node.skip)
    if isinstance(node, JOIN_NODES):
        return _plan_join(node, *children)
    if isinstance(node, (SubqueryFilter, ScalarSubquery)):  # not decorrelated by the optimizer: its join
        return _plan_join(node.as_join, *children)
    if isinstance(node, Union):
        fields = [pa.field(f.name, f.type, any(c.schema.field(p).nullable for c in children))
                  for p, f in enumerate(children[0].schema)]
        return UnionExec(children, pa.schema(fields))
    child = children[0]
    schema, names = _binding(child, node.input)
    if isinstance(node, Projection):
        exprs = [bind(e, schema) for e in node.exprs]
        return ProjectionExec(child, exprs, node.names, [nullable(e) for e in exprs], names)
    if isinstance(node, Filter):
        predicate = bind(node.predicate, schema)
        return FilterExec(child, predicate, nullable(predicate), names)
    if isinstance(node, Sort):
        return SortExec(child, [(bind(k.expr, schema), k.ascending, k.nulls_first)
                                for k in node.keys], names)
    if isinstance(node, Window):
        functions = [_rebound(w, schema) for w in node.functions]
        fields = list(child.schema) + [pa.field(n, window_type(w), window_nullable(w))
                                       for w, n in zip(functions, node.names)]
        return WindowExec(child, functions, pa.schema(fields), names)
    if isinstance(node, Aggregate):
        groups = [bind(e, schema) for e in node.group_exprs]
        grouped = bool(groups)
        fields = [pa.field(n, e.type, nullable(e)) for n, e in zip(node.group_names, groups)]
        aggs = []
        for a in node.aggregates:
            arg = None if a.arg is None else bind(a.arg, schema)
            arg_nullable = arg is not None and nullable(arg)
            out_type = aggregate_type(a.func, None if arg is None else arg.type)
            aggs.append(PhysicalAggregate(a.func, arg, arg_nullable, out_type, a.fraction))
            fields.append(pa.field(a.name, out_type,
                                   aggregate_nullable(a.func, arg_nullable, grouped)))
        return HashAggregateExec(child, groups, [nullable(e) for e in groups], aggs,
                                 pa.schema(fields), names)
    raise PlanError(f"the planner knows no physical node for {type(node).__name__}")


def _rebound(w: WindowExpr, schema: pa.Schema) -> WindowExpr:
    """`w` with its expressions bound against the physical input's schema."""
    return w.map_expressions(lambda e: bind(e, schema))


def _plan_join(node, left: PhysicalPlan, right: PhysicalPlan) -> HashJoinExec:
    lidx = {n: i for i, n in enumerate(node.left.schema.qualified_names)}
    ridx = {n: i for i, n in enumerate(node.right.schema.qualified_names)}
    left_fields, right_fields = list(left.schema), list(right.schema)
    if node.how in ("right", "full"):
        left_fields = [f.with_nullable(True) for f in left_fields]
    if node.how in ("left", "full"):
        right_fields = [f.with_nullable(True) for f in right_fields]
    if node.how in ("semi", "anti"):
        right_fields = []
    names = node.left.schema.qualified_names + node.right.schema.qualified_names
    filter = getattr(node, "condition", None)
    if filter is not None:
        both = pa.schema([f.with_name(n) for f, n in
                          zip(list(left.schema) + list(right.schema), names)])
        filter = bind(filter, both)
    return HashJoinExec(left, right, [(lidx[lk], ridx[rk]) for lk, rk in node.on], node.how,
                        pa.schema(left_fields + right_fields), node.on, filter,
                        filter is None or nullable(filter), names, node.float_keys)


def _check(logical: LogicalPlan, physical: PhysicalPlan, observer) -> None:
    expected = logical.schema.to_arrow()
    problems = schema_problems(expected, physical.schema)
    report(PLANNING_KEEPS_SCHEMA, lambda: f"{physical.label()} (planned from {logical.label()})",
           not problems,
           details="; ".join(problems) if problems else
           f"{len(expected)} fields equal the logical schema without qualifiers",
           expected=fields_text(expected) if problems else None,
           actual=fields_text(physical.schema) if problems else None, observer=observer)


def create_physical_plan(logical: LogicalPlan, validation: str | None = None, observer=None,
                         optimize: bool = True) -> PhysicalPlan:
    """The physical plan of `logical` (run the logical optimizer first if you want it)."""
    if not isinstance(logical, LogicalPlan):
        raise PlanError(f"create_physical_plan needs a LogicalPlan, not {type(logical).__name__}")
    mode = current_mode(validation)
    if any(isinstance(n, ScalarSubquery) and n.correlation for n in logical.walk()):
        # not decorrelated by the optimizer: computed row by row, as SQL defines it
        logical = transform_up(logical, lambda n: applied(n) if isinstance(
            n, ScalarSubquery) and n.correlation else n)
    done: dict[int, PhysicalPlan] = {}
    stack = [(logical, False)]
    while stack:  # post-order, iteratively; a shared input is planned once
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children) if id(c) not in done)
            continue
        physical = _plan_node(node, [done[id(c)] for c in node.children])
        _check(node, physical, observer)
        done[id(node)] = physical
    plan = done[id(logical)]
    if optimize:
        plan = optimize_physical(plan, validation=mode, observer=observer)
    return plan if validation is None else plan.with_validation(validation)
