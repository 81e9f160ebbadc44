"""The errors of the Spark bridge, so callers can tell "Spark cannot do this" apart."""

from __future__ import annotations

from ..errors import (  # defined with every other exprscope error
    SparkArgumentError,
    SparkError,
    SparkImportError,
    SparkPartitionError,
    SparkSchemaMismatch,
    SparkTranslationError,
    SparkUnavailableError,
)

__all__ = [
    "SparkArgumentError",
    "SparkError",
    "SparkImportError",
    "SparkPartitionError",
    "SparkSchemaMismatch",
    "SparkTranslationError",
    "SparkUnavailableError",
]


