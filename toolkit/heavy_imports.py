"""The dependencies too slow to load with `import toolkit`, each imported on first use.

`import toolkit` loads pyarrow and pyarrow.compute and little else
(benchmarks/bench_import.py measures it against `import pyarrow.compute`).
The modules below would add several times that, and most sessions use few of
them, so each is reached through its accessor here rather than imported at the
top of the modules that need it; tests/test_import_cost.py holds `import
toolkit` to loading none of them. After the first call an accessor costs a
dictionary lookup.
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
    """`toolkit.sql_reader`: sqlglot, and the translation of its parse trees."""
    from . import sql_reader  # sqlglot costs ~70 ms to import; loaded on the first parse

    return sql_reader
