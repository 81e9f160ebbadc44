"""Which Spark DataFrame a plan's TableScan reads, whatever its source.

A scan of a Spark DataFrame reads it; a Parquet path becomes `spark.read.parquet`;
an in-memory Arrow table becomes a DataFrame (exprscope's type mapping). A
caller can override any relation with `inputs={relation: df}`.
"""

from __future__ import annotations

from ...plan.sources import CsvSource, ParquetSource, TableSource
from ..errors import SparkTranslationError
from ..translate.dataframe import dataframe
from ..translate.types import to_struct_type
from .source import SparkSource

__all__ = ["scan_dataframe"]


def scan_dataframe(scan, inputs: dict | None, spark):
    """The whole DataFrame behind a logical TableScan or a physical ScanExec."""
    if inputs and scan.relation in inputs:
        return inputs[scan.relation]
    source = scan.source
    if isinstance(source, SparkSource):
        return source.df
    if isinstance(source, ParquetSource):
        return spark.read.parquet(source.path)
    if isinstance(source, TableSource):
        return dataframe(source.table, spark)
    if isinstance(source, CsvSource):
        return spark.read.csv(source.path, header=True, schema=to_struct_type(source.schema))
    raise SparkTranslationError(
        f"cannot translate a scan of a {type(source).__name__} to Spark "
        f"(relation {scan.relation!r}); pass inputs={{{scan.relation!r}: a DataFrame}}")
