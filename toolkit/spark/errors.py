"""The errors of the Spark bridge, so callers can tell "Spark cannot do this" apart."""

from __future__ import annotations

from ..errors import ExprscopeError

__all__ = [
    "SparkError",
    "SparkArgumentError",
    "SparkImportError",
    "SparkPartitionError",
    "SparkSchemaMismatch",
    "SparkTranslationError",
    "SparkUnavailableError",
]


class SparkError(ExprscopeError):
    """Base of the errors of `toolkit.spark`."""


class SparkUnavailableError(SparkError, RuntimeError):
    """No Spark could be started (no pyspark, no Java)."""


class SparkTranslationError(SparkError, ValueError):
    """An exprscope expression or plan that has no Spark equivalent: names the function."""

    def __init__(self, message: str, function: str | None = None):
        self.function = function
        super().__init__(message)


class SparkImportError(SparkError, ValueError):
    """A Spark query node that exprscope cannot read: names the Spark class."""

    def __init__(self, message: str, spark_class: str | None = None):
        self.spark_class = spark_class
        super().__init__(message)


class SparkArgumentError(SparkError, ValueError):
    """A Spark entry point given an argument it cannot use (a mode, a query, a column name)."""


class SparkPartitionError(SparkError, RuntimeError):
    """Raised inside a Spark worker: carries a failing row's marked message to the driver."""


class SparkSchemaMismatch(SparkError, AssertionError):
    """Engine mode produced a batch whose schema is not the plan's (checked on every batch)."""
