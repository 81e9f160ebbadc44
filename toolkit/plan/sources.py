"""What a TableScan reads: a pyarrow Table (or pandas DataFrame), Dataset, Parquet, CSV, or more.

A source knows its schema when the plan is built (DataFusion's data source
registry: name -> schema + how to read) and streams record batches of the
columns asked for when the plan runs. The schema is fixed at planning; if the
data changed in between (a file rewritten), the invariant checks at execution
say so. Packages above the engine teach `scan` other objects with `add_reader`
(`toolkit.spark` reads Spark DataFrames); the engine itself knows none of them.
"""

from __future__ import annotations

import abc
import os
from collections.abc import Callable, Iterator, Sequence

import pyarrow as pa

from ..support import late
from .errors import PlanError

pyarrow_csv = late.module("pyarrow.csv")
pyarrow_dataset = late.module("pyarrow.dataset")
pyarrow_parquet = late.module("pyarrow.parquet")

__all__ = ["BATCH_ROWS", "CsvSource", "DatasetSource", "ParquetSource", "Source", "TableSource",
           "add_reader", "as_source", "limited_batches"]

BATCH_ROWS = 65_536  # rows per batch a scan streams


class Source(abc.ABC):
    """A readable relation: `schema` now, `batches(columns)` later."""

    kind = "source"
    schema: pa.Schema

    @property
    def exec_name(self) -> str:
        """The physical scan's name in EXPLAIN, as DataFusion names it (`ParquetExec`)."""
        return f"{self.kind}Exec"

    @abc.abstractmethod
    def batches(self, columns: Sequence[str] | None = None,
                limit: int | None = None) -> Iterator[pa.RecordBatch]:
        """The rows of these columns (all when None), at most `limit` of them."""

    def describe(self) -> str:
        return self.kind


def _select(schema: pa.Schema, columns: Sequence[str] | None) -> list[str]:
    return list(schema.names) if columns is None else list(columns)


def limited_batches(batches: Iterator[pa.RecordBatch],
                    limit: int | None) -> Iterator[pa.RecordBatch]:
    """The batches up to `limit` rows in all (every batch when None), the last one cut."""
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
    exec_name = "MemoryExec"

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
    exec_name = "ParquetExec"

    def __init__(self, path: str):
        self.path = os.fspath(path)
        self.schema = pyarrow_parquet.read_schema(self.path)

    def batches(self, columns=None, limit=None):
        reader = pyarrow_parquet.ParquetFile(self.path)
        return limited_batches(reader.iter_batches(batch_size=BATCH_ROWS,
                                            columns=_select(self.schema, columns)), limit)

    def describe(self) -> str:
        return f"parquet path={self.path}"


class CsvSource(Source):
    """A CSV file; the types are inferred once, when the plan is built, and then held fixed."""

    kind = "csv"
    exec_name = "CsvExec"

    def __init__(self, path: str):
        self.path = os.fspath(path)
        reader = pyarrow_csv.open_csv(self.path)
        self.schema = reader.schema
        reader.close()

    def batches(self, columns=None, limit=None):
        csv = pyarrow_csv
        convert = csv.ConvertOptions(
            column_types={f.name: f.type for f in self.schema},
            include_columns=_select(self.schema, columns))
        reader = csv.open_csv(self.path, convert_options=convert,
                              read_options=csv.ReadOptions(block_size=1 << 22))
        return limited_batches(iter(reader), limit)

    def describe(self) -> str:
        return f"csv path={self.path}"


class DatasetSource(Source):
    """A pyarrow Dataset (files, partitions): its scanner reads only the columns asked for."""

    kind = "dataset"
    exec_name = "DatasetExec"

    def __init__(self, dataset):
        self.dataset = dataset
        self.schema = dataset.schema

    def batches(self, columns=None, limit=None):
        scanner = self.dataset.scanner(columns=_select(self.schema, columns),
                                       batch_size=BATCH_ROWS)
        return limited_batches(iter(scanner.to_batches()), limit)

    def describe(self) -> str:
        return f"dataset {type(self.dataset).__name__}"


def _is_dataset(obj) -> bool:
    # pyarrow.dataset is slow to import: only an object made by it can be one of its Datasets
    return (type(obj).__module__.startswith("pyarrow._dataset")
            and isinstance(obj, pyarrow_dataset.Dataset))


# Readers of other objects (a Spark DataFrame, ...) that packages above the engine add:
# each takes any object and returns its Source, or None when it does not read that kind.
_READERS: list[Callable[[object], Source | None]] = []


def add_reader(reader: Callable[[object], Source | None]) -> None:
    """Let `scan` read one more kind of object (`toolkit.spark` adds Spark DataFrames)."""
    if reader not in _READERS:
        _READERS.append(reader)


def as_source(obj) -> Source:
    """The source for a Table, RecordBatch, Dataset, pandas DataFrame, path or Spark DataFrame."""
    if isinstance(obj, Source):
        return obj
    if isinstance(obj, pa.Table):
        return TableSource(obj)
    if isinstance(obj, pa.RecordBatch):
        return TableSource(pa.Table.from_batches([obj]))
    if _is_dataset(obj):
        return DatasetSource(obj)
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
    if type(obj).__module__.startswith("pandas") and type(obj).__name__ == "DataFrame":
        return TableSource(pa.Table.from_pandas(obj, preserve_index=False))
    for reader in _READERS:
        source = reader(obj)
        if source is not None:
            return source
    raise PlanError(f"scan: cannot read a {type(obj).__name__}; give a pyarrow Table or "
                    "Dataset, a pandas DataFrame, a .parquet or .csv path, or a Spark DataFrame (once "
                    "`toolkit.spark` is imported)")
