"""Logical and physical plans with DataFusion's invariants, checked and shown.

    from toolkit import plan
    p = (plan.scan("flights", flights).filter(tk.field("dep_delay") > 60)
             .aggregate(["carrier"], [("count", None, "n")]).sort([("n", "descending")]))
    print(p.explain(verbose=True))
    plan.create_physical_plan(plan.optimize(p)).collect()
"""

from .aggregates import AGGREGATE_FUNCTIONS, AggregateExpr
from .builder import scan
from .errors import (AmbiguousColumnError, ColumnNotFoundError, DuplicateFieldError,
                     InvariantViolation, PlanError)
from .invariants import INVARIANTS, Invariant, current_mode, validation
from .logical_field import logical_field, nullable, output_name
from .logical_plan import (Aggregate, EmptyRelation, Filter, Join, Limit, LogicalPlan,
                           Projection, Sort, SortKey, TableScan)
from .logical_schema import LogicalField, LogicalSchema
from .physical_plan import (EmptyExec, FilterExec, HashAggregateExec, HashJoinExec, LimitExec,
                            PhysicalPlan, ProjectionExec, ScanExec, SortExec)
from .physical_optimizer import PHYSICAL_RULES, PhysicalRule, optimize_physical
from .planner import create_physical_plan
from .optimizer import optimize
from .rules import Rule, RuleContext, default_rules
from .sources import CsvSource, ParquetSource, Source, SparkSource, TableSource, as_source

__all__ = [
    "scan", "LogicalPlan", "TableScan", "Projection", "Filter", "Aggregate", "Join", "Sort",
    "SortKey", "Limit", "EmptyRelation", "LogicalField", "LogicalSchema", "AggregateExpr",
    "AGGREGATE_FUNCTIONS", "PlanError", "ColumnNotFoundError", "AmbiguousColumnError",
    "InvariantViolation", "DuplicateFieldError", "Invariant", "INVARIANTS", "validation",
    "current_mode", "logical_field", "nullable", "output_name", "Source", "TableSource",
    "ParquetSource", "CsvSource", "SparkSource", "as_source", "create_physical_plan",
    "PhysicalPlan", "ScanExec", "ProjectionExec", "FilterExec", "HashAggregateExec",
    "HashJoinExec", "SortExec", "LimitExec", "EmptyExec", "optimize_physical", "PhysicalRule",
    "PHYSICAL_RULES", "optimize", "Rule", "RuleContext", "default_rules",
]
