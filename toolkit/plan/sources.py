"""What a TableScan reads: a pyarrow Table (or pandas DataFrame), Parquet, CSV, or Spark.

A source knows its schema when the plan is built (DataFusion's data source
registry: name -> schema + how to read) and streams record batches of the
columns asked for when the plan runs. The schema is fixed at planning; if the
data changed in between (a file rewritten), the invariant checks at execution
say so. Spark is duck-typed (an object with a Spark `.schema` and `.toArrow()`)
and pyspark is imported only when such a source is used.
"""

from __future__ import annotations

import abc
import os
from collections.abc import Iterator, Sequence

import pyarrow as pa

from .. import heavy_imports
from .errors import PlanError

__all__ = [
    "BATCH_ROWS",
    "CsvSource",
    "ParquetSource",
    "Source",
    "SparkSource",
    "TableSource",
    "as_source",
]

BATCH_ROWS = 65_536  # rows per batch a scan streams


class Source(abc.ABC):
    """A readable relation: `schema` now, `batches(columns)` later."""

    kind = "source"
    schema: pa.Schema

    @abc.abstractmethod
    def batches(self, columns: Sequence[str] | None = None,
                limit: int | None = None) -> Iterator[pa.RecordBatch]:
        """The rows of these columns (all when None), at most `limit` of them."""

    def describe(self) -> str:
        return self.kind


def _select(schema: pa.Schema, columns: Sequence[str] | None) -> list[str]:
    return list(schema.names) if columns is None else list(columns)


def _limited(batches: Iterator[pa.RecordBatch], limit: int | None) -> Iterator[pa.RecordBatch]:
    if limit is None:
        yield from batches
        return
    left = limit
    for batch in batches:
        if left <= 0:
            return
        if batch.num_rows > left:
            batch = batch.slice(0, left)
        left -= batch.num_rows
        yield batch


class TableSource(Source):
    kind = "memory"

    def __init__(self, table: pa.Table):
        self.table = table
        self.schema = table.schema

    def batches(self, columns=None, limit=None):
        table = self.table.select(_select(self.schema, columns))
        if limit is not None:
            table = table.slice(0, limit)
        return iter(table.to_batches(max_chunksize=BATCH_ROWS))

    def describe(self) -> str:
        return f"memory rows={self.table.num_rows}"


class ParquetSource(Source):
    kind = "parquet"

    def __init__(self, path: str):
        self.path = os.fspath(path)
        self.schema = heavy_imports.parquet().read_schema(self.path)

    def batches(self, columns=None, limit=None):
        reader = heavy_imports.parquet().ParquetFile(self.path)
        return _limited(reader.iter_batches(batch_size=BATCH_ROWS,
                                            columns=_select(self.schema, columns)), limit)

    def describe(self) -> str:
        return f"parquet path={self.path}"


class CsvSource(Source):
    """A CSV file; the types are inferred once, when the plan is built, and then held fixed."""

    kind = "csv"

    def __init__(self, path: str):
        self.path = os.fspath(path)
        reader = heavy_imports.csv().open_csv(self.path)
        self.schema = reader.schema
        reader.close()

    def batches(self, columns=None, limit=None):
        csv = heavy_imports.csv()
        convert = csv.ConvertOptions(
            column_types={f.name: f.type for f in self.schema},
            include_columns=_select(self.schema, columns))
        reader = csv.open_csv(self.path, convert_options=convert,
                              read_options=csv.ReadOptions(block_size=1 << 22))
        return _limited(iter(reader), limit)

    def describe(self) -> str:
        return f"csv path={self.path}"


class SparkSource(Source):
    """A Spark DataFrame, read through Arrow (`toArrow()`)."""

    kind = "spark"

    def __init__(self, df):
        # pyspark (and pandas with it) takes tens of ms to load; only Spark sources need it
        from pyspark.sql.pandas.types import to_arrow_schema

        self.df = df
        self.schema = to_arrow_schema(df.schema)

    def batches(self, columns=None, limit=None):
        df = self.df.select(*_select(self.schema, columns)) if columns is not None else self.df
        if limit is not None:
            df = df.limit(limit)
        return iter(df.toArrow().to_batches(max_chunksize=BATCH_ROWS))

    def describe(self) -> str:
        return "spark"


def _is_spark_dataframe(obj) -> bool:
    schema = getattr(obj, "schema", None)
    return (hasattr(obj, "toArrow") and type(schema).__name__ == "StructType"
            and type(schema).__module__.startswith("pyspark"))


def as_source(obj) -> Source:
    """The source for a Table, RecordBatch, pandas DataFrame, path or Spark DataFrame."""
    if isinstance(obj, Source):
        return obj
    if isinstance(obj, pa.Table):
        return TableSource(obj)
    if isinstance(obj, pa.RecordBatch):
        return TableSource(pa.Table.from_batches([obj]))
    if isinstance(obj, (str, os.PathLike)):
        path = os.fspath(obj)
        if not os.path.exists(path):
            raise PlanError(f"scan: no file at {path!r}")
        lower = path.lower()
        if lower.endswith((".parquet", ".pq")):
            return ParquetSource(path)
        if lower.endswith((".csv", ".csv.gz")):
            return CsvSource(path)
        raise PlanError(f"scan: cannot tell the format of {path!r}; name it .parquet or .csv")
    if _is_spark_dataframe(obj):
        return SparkSource(obj)
    if type(obj).__module__.startswith("pandas") and type(obj).__name__ == "DataFrame":
        return TableSource(pa.Table.from_pandas(obj, preserve_index=False))
    raise PlanError(f"scan: cannot read a {type(obj).__name__}; give a pyarrow Table, a pandas "
                    "DataFrame, a .parquet or .csv path, or a Spark DataFrame")
