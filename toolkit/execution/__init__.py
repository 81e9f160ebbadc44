"""Evaluation: the driver, selection vectors, gather/scatter and the lazy special forms."""

from .evaluation import EvaluationError, evaluate
from .selection import SelectionError, SelectionVector

__all__ = ["EvaluationError", "SelectionError", "SelectionVector", "evaluate"]
