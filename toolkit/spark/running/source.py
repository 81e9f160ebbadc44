"""Spark DataFrames as plan sources: `plan.scan("t", df)` reads a DataFrame through Arrow.

The engine's `plan.sources` knows no Spark; importing `toolkit.spark` adds this
reader to it.
"""

from __future__ import annotations

from ...plan.sources import BATCH_ROWS, Source, add_reader

__all__ = ["SparkSource", "read_spark_dataframe"]


class SparkSource(Source):
    """A Spark DataFrame, read through Arrow (`toArrow()`)."""

    kind = "spark"
    exec_name = "SparkScanExec"

    def __init__(self, df):
        # pyspark takes seconds to import; `import toolkit.spark` does not load it
        from pyspark.sql.pandas.types import to_arrow_schema

        self.df = df
        # as toArrow() gives it: timestamps as UTC instants
        self.schema = to_arrow_schema(df.schema, timezone="UTC")

    def batches(self, columns=None, limit=None):
        df = self.df.select(*columns) if columns is not None else self.df
        if limit is not None:
            df = df.limit(limit)
        return iter(df.toArrow().to_batches(max_chunksize=BATCH_ROWS))

    def describe(self) -> str:
        return "spark"


def read_spark_dataframe(obj) -> SparkSource | None:
    """The source of a Spark DataFrame (classic or Spark Connect); None for anything else."""
    schema = getattr(obj, "schema", None)
    if (hasattr(obj, "toArrow") and type(schema).__name__ == "StructType"
            and type(schema).__module__.startswith("pyspark")):
        return SparkSource(obj)
    return None


add_reader(read_spark_dataframe)
