"""`--data VAR`: the user's variable as pyarrow data the engine can evaluate.

Users hold their data as a pyarrow Table or RecordBatch, a pandas DataFrame,
or a Spark DataFrame. Each is recognised by duck typing, so neither pandas nor
pyspark is imported here (pyspark takes seconds to import and needs Java).
"""

from __future__ import annotations

import keyword

import pyarrow as pa

from toolkit.errors import DataSourceError  # defined with every other exprscope error

__all__ = ["DataSourceError", "resolve_data", "to_arrow"]


def resolve_data(name: str, namespace: dict):
    """The pyarrow Table or RecordBatch behind `name` (`df` or `obj.attr`) in `namespace`."""
    parts = name.split(".")
    if not name or not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        raise DataSourceError(f"--data wants a variable name, got {name!r}")
    if parts[0] not in namespace:
        raise DataSourceError(f"--data {name}: no variable named {parts[0]!r} in the notebook")
    value = namespace[parts[0]]
    for i, part in enumerate(parts[1:], start=1):
        if not hasattr(value, part):
            raise DataSourceError(
                f"--data {name}: {'.'.join(parts[:i])} has no attribute {part!r}")
        value = getattr(value, part)
    return to_arrow(value, name)


def to_arrow(value, name: str = "data"):
    """A Table or RecordBatch as it is; DataFrames (pandas, Spark, polars) converted."""
    if isinstance(value, (pa.Table, pa.RecordBatch)):
        return value
    module = type(value).__module__ or ""
    if module.startswith("pandas") and hasattr(value, "columns") and hasattr(value, "dtypes"):
        return pa.Table.from_pandas(value, preserve_index=False)
    if module.startswith("pyspark") and hasattr(value, "schema"):
        return _spark_to_arrow(value)
    if hasattr(value, "to_arrow") and callable(value.to_arrow):  # polars and friends
        converted = value.to_arrow()
        if isinstance(converted, (pa.Table, pa.RecordBatch)):
            return converted
    if hasattr(value, "__arrow_c_stream__"):
        return pa.table(value)
    raise DataSourceError(
        f"--data {name}: a {type(value).__name__} is not data exprscope can read; "
        "give a pyarrow Table or RecordBatch, a pandas DataFrame or a Spark DataFrame")


def _spark_to_arrow(df):
    """Spark 4 hands over Arrow directly; Spark 3.5 goes through pandas."""
    if hasattr(df, "toArrow"):
        return df.toArrow()
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False)
