"""The tracer: record what the engine does, keep it as data (JSON)."""

from .plan_shape import PlanSnapshot
from .recorded_error import ErrorFacts
from .tracer import Trace, trace

__all__ = ["ErrorFacts", "PlanSnapshot", "Trace", "trace"]
