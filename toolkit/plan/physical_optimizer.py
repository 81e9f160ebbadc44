"""The physical optimizer: rules that make a physical plan cheaper without changing its schema.

- `push_limit_below_projection`: a limit above a projection moves below it, so
  expressions run on the rows that are kept only (DataFusion's LimitPushdown).
- `limit_into_scan`: a limit right above a scan tells the scan to stop reading
  after skip + fetch rows (Parquet and CSV then read no further).

After every rule the driver checks a SHOULD (docs/semantics.md §8): the plan's schema is the
one it had before physical optimization; each check is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .invariants import PHYSICAL_OPTIMIZATION_KEEPS_SCHEMA, current_mode, report, runs
from .physical_plan import (
    LimitExec,
    PhysicalPlan,
    ProjectionExec,
    ScanExec,
)
from .plan_text import fields_text
from .schema_problems import schema_problems
from .tree import transform_down

__all__ = ["PHYSICAL_RULES", "PhysicalRule", "optimize_physical", "transform_physical"]


@dataclass(frozen=True)
class PhysicalRule:
    name: str
    rewrite: Callable[[PhysicalPlan], PhysicalPlan]  # one node -> itself or a replacement


def transform_physical(plan: PhysicalPlan, fn: Callable[[PhysicalPlan], PhysicalPlan]) -> PhysicalPlan:
    """Apply `fn` top-down; a node whose children did not change is returned as it is."""
    return transform_down(plan, fn)


def _push_limit_below_projection(node: PhysicalPlan) -> PhysicalPlan:
    if isinstance(node, LimitExec) and isinstance(node.children[0], ProjectionExec):
        projection = node.children[0]
        limit = LimitExec(projection.children[0], node.fetch, node.skip)
        return projection.with_new_children([limit])
    return node


def _limit_into_scan(node: PhysicalPlan) -> PhysicalPlan:
    if isinstance(node, LimitExec) and isinstance(node.children[0], ScanExec) \
            and node.fetch is not None:
        scan = node.children[0]
        wanted = node.skip + node.fetch
        if scan.fetch is None or scan.fetch > wanted:
            return node.with_new_children([scan.with_fetch(wanted)])
    return node


PHYSICAL_RULES = [
    PhysicalRule("push_limit_below_projection", _push_limit_below_projection),
    PhysicalRule("limit_into_scan", _limit_into_scan),
]


def optimize_physical(plan: PhysicalPlan, rules=None, validation: str | None = None,
                      observer=None) -> PhysicalPlan:
    """Run the physical rules once each, in order, checking the schema after each."""
    mode = current_mode(validation)
    original = plan.schema
    for rule in PHYSICAL_RULES if rules is None else rules:
        plan = transform_physical(plan, rule.rewrite)
        if runs(PHYSICAL_OPTIMIZATION_KEEPS_SCHEMA, mode):
            problems = schema_problems(original, plan.schema)
            report(PHYSICAL_OPTIMIZATION_KEEPS_SCHEMA,
                   lambda r=rule, p=plan: f"physical rule {r.name} on {p.label()}", not problems,
                   details="; ".join(problems) if problems else "schema unchanged",
                   expected=fields_text(original) if problems else None,
                   actual=fields_text(plan.schema) if problems else None, observer=observer)
    return plan
