"""The dependencies `import toolkit` leaves out, each imported on first use.

`import toolkit` loads pyarrow, pyarrow.compute and toolkit's own modules
(benchmarks/bench_import.py measures it against `import pyarrow.compute`).
Together the modules below take more than twice as long to import as that floor,
and each serves a few features only, so the code that needs one reaches it
through its accessor here instead of importing it at the top of its module;
tests/test_import_cost.py holds `import toolkit` to loading none of them.
After the first call an accessor costs a dictionary lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["csv", "dataset", "graphviz", "parquet", "sql_reader"]


def csv() -> ModuleType:
    """`pyarrow.csv`, for CSV files."""
    import pyarrow.csv  # ~1 ms: Arrow's CSV reader, which only CSV inputs use

    return pyarrow.csv


def dataset() -> ModuleType:
    """`pyarrow.dataset`, for dataset scans."""
    import pyarrow.dataset  # ~130 ms: it loads pandas and Arrow's dataset and Acero libraries

    return pyarrow.dataset


def graphviz() -> ModuleType:
    """The `graphviz` package, for pictures (the DOT it writes, and `dot` run on it)."""
    import graphviz  # ~6 ms with subprocess; loaded when the first picture is drawn

    return graphviz


def parquet() -> ModuleType:
    """`pyarrow.parquet`, for Parquet files and their metadata."""
    import pyarrow.parquet  # 15-30 ms: Arrow's Parquet library and pyarrow.fs

    return pyarrow.parquet


def sql_reader() -> ModuleType:
    """`toolkit.sql.reader`: sqlglot, and the translation of its parse trees."""
    from ..sql import (
        reader as sql_reader,  # sqlglot costs ~70 ms to import; loaded by the first parse or to_sql
    )

    return sql_reader
