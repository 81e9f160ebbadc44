"""Building Spark Columns without capturing Python call sites.

PySpark 4 records, for every DataFrame and Column call, where in the user's
Python code it was made (so a Spark error can point there): about five py4j
round trips per call. When exprscope translates a plan, every such call is made
by exprscope's own translation code, so the call site it would record is inside
exprscope, useless to the user, and the round trips were a large share of a plan's
translation (docs/benchmarks.md, "Figures the code relies on"). This turns the capture off while exprscope
builds Columns, and restores the previous setting afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["no_call_sites"]


@contextlib.contextmanager
def no_call_sites() -> Iterator[None]:
    try:
        from pyspark.errors import utils
    except ImportError:  # pragma: no cover - pyspark is a dependency
        yield
        return
    if not hasattr(utils, "_enable_debugging_cache"):  # another PySpark: leave it alone
        yield
        return
    saved = utils._enable_debugging_cache
    utils._enable_debugging_cache = False
    try:
        yield
    finally:
        utils._enable_debugging_cache = saved
