"""Arrow data -> Spark DataFrame with exprscope's type mapping (naive timestamps stay naive).

`spark.createDataFrame(table)` turns a naive Arrow timestamp into Spark's
zoned TimestampType; giving the schema from `to_struct_type` keeps it a
TimestampNTZType, so what exprscope evaluates locally and what Spark sees agree.
"""

from __future__ import annotations

import pyarrow as pa

from ...errors import UsageError
from ..active_session import session
from .types import to_struct_type

__all__ = ["dataframe"]


def dataframe(data, spark=None):
    """A Spark DataFrame holding a pyarrow Table / RecordBatch (or a path to Parquet files)."""
    spark = spark or session()
    if isinstance(data, str):
        return spark.read.parquet(data)
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if not isinstance(data, pa.Table):
        raise UsageError(f"dataframe() takes a pyarrow Table, RecordBatch or a path, "
                        f"not {type(data).__name__}")
    return spark.createDataFrame(data, schema=to_struct_type(data.schema))
