"""Logical and physical plans with DataFusion's invariants, checked and shown.

    from toolkit import plan
    p = (plan.scan("flights", flights).filter(tk.field("dep_delay") > 60)
             .aggregate(["carrier"], [("count", None, "n")]).sort([("n", "descending")]))
    print(p.explain(verbose=True))
    plan.create_physical_plan(plan.optimize(p)).collect()
    plan.from_substrait(data, {"flights": flights})   # a Substrait Plan as a LogicalPlan
"""


from ..support import late
from . import explain as _explain  # noqa: F401  (provides LogicalPlan.explain(verbose=True))
from .aggregates import AGGREGATE_FUNCTIONS, AggregateExpr
from .errors import (
                     AmbiguousColumnError,
                     ColumnNotFoundError,
                     DuplicateFieldError,
                     InvariantViolation,
                     PlanError,
)
from .invariants import INVARIANTS, Invariant, current_mode, validation
from .logical_fields import logical_field, nullable, output_name
from .logical_plan import (
                     JOIN_KINDS,
                     Aggregate,
                     ConditionJoin,
                     EmptyRelation,
                     Filter,
                     Join,
                     Limit,
                     LogicalPlan,
                     Projection,
                     ScalarSubquery,
                     Sort,
                     SortKey,
                     SubqueryFilter,
                     TableScan,
                     Union,
                     scan,
)
from .logical_schema import LogicalField, LogicalSchema
from .optimizer import MAX_ROUNDS, ROUND_LIMIT, optimize
from .physical_optimizer import PHYSICAL_RULES, PhysicalRule, optimize_physical
from .physical_plan import (
                     EmptyExec,
                     FilterExec,
                     HashAggregateExec,
                     HashJoinExec,
                     LimitExec,
                     PhysicalPlan,
                     ProjectionExec,
                     ScanExec,
                     SortExec,
                     UnionExec,
)
from .planner import create_physical_plan
from .rules import Rule, RuleContext, default_rules
from .sources import (
                     CsvSource,
                     DatasetSource,
                     ParquetSource,
                     Source,
                     TableSource,
                     add_reader,
                     as_source,
)

__all__ = [
                     "AGGREGATE_FUNCTIONS",
                     "INVARIANTS",
                     "JOIN_KINDS",
                     "MAX_ROUNDS",
                     "PHYSICAL_RULES",
                     "ROUND_LIMIT",
                     "Aggregate",
                     "AggregateExpr",
                     "AmbiguousColumnError",
                     "ColumnNotFoundError",
                     "ConditionJoin",
                     "CsvSource",
                     "DatasetSource",
                     "DuplicateFieldError",
                     "EmptyExec",
                     "EmptyRelation",
                     "Filter",
                     "FilterExec",
                     "HashAggregateExec",
                     "HashJoinExec",
                     "Invariant",
                     "InvariantViolation",
                     "Join",
                     "Limit",
                     "LimitExec",
                     "LogicalField",
                     "LogicalPlan",
                     "LogicalSchema",
                     "ParquetSource",
                     "PhysicalPlan",
                     "PhysicalRule",
                     "PlanError",
                     "Projection",
                     "ProjectionExec",
                     "Rule",
                     "RuleContext",
                     "ScalarSubquery",
                     "ScanExec",
                     "Sort",
                     "SortExec",
                     "SortKey",
                     "Source",
                     "SubqueryFilter",
                     "TableScan",
                     "TableSource",
                     "Union",
                     "UnionExec",
                     "add_reader",
                     "as_source",
                     "create_physical_plan",
                     "current_mode",
                     "default_rules",
                     "logical_field",
                     "nullable",
                     "optimize",
                     "optimize_physical",
                     "output_name",
                     "scan",
                     "validation",
]

# Substrait's protobuf classes are as slow to load as the planner: `from_substrait`
# lives above the engine (toolkit.interop), loads on first use (PEP 562), and is
# declared by toolkit/__init__.py, which sits above both
__getattr__, __dir__ = late.names(__name__)
