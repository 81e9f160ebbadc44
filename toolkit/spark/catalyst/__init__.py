"""Spark's own planning step by step: `catalyst_steps(query)` and its parts.

- `steps`: the entry point, the analyzer, optimizer and physical preparation stepped;
- `stepping`: RuleExecutor's loop over py4j, composite rules opened;
- `checks`: Spark's LogicalPlanIntegrity checks, each on its own;
- `connect`: what a Spark Connect session gets instead.
The records live in `toolkit.tracing.catalyst_steps` so the renderers need no pyspark.
"""

from ...tracing.catalyst_steps import (  # noqa: F401
    CatalystStep,
    CatalystSteps,
    PlanComparison,
    RuleTime,
    SparkCheck,
)
from .checks import integrity_checks  # noqa: F401
from .connect import CONNECT_NOTE, steps_from_explain  # noqa: F401
from .side_by_side import FilterPushdown, filter_pushdown  # noqa: F401
from .steps import catalyst_steps, compare_plans  # noqa: F401
