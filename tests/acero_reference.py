"""Acero's projection of an expression, run in a child process so that Acero crashing
cannot take the test session down.

Acero is the reference of the differential tests, but pyarrow 26's Acero segfaults on a
few calls exprscope answers (`min_element_wise` of a large_string and a string,
`choose` with a null large_string literal): a random draw must not end the whole suite.
`run_acero(expression, table)` answers what Acero answers, raises what Acero raises,
and raises `AceroCrashed` where the child died; a new child serves the next call.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing

import pyarrow as pa
from pyarrow import acero

__all__ = ["AceroCrashed", "run_acero"]


class AceroCrashed(Exception):
    """Acero's process died on this expression: there is no reference for it."""


def _project(expression, table: pa.Table) -> pa.ChunkedArray:
    plan = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expression], ["out"])),
    ])
    return plan.to_table().column("out")


_pool: concurrent.futures.ProcessPoolExecutor | None = None


def run_acero(expression, table: pa.Table) -> pa.ChunkedArray:
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        return _pool.submit(_project, expression, table).result()
    except concurrent.futures.process.BrokenProcessPool:
        _pool.shutdown(wait=False)
        _pool = None
        raise AceroCrashed(str(expression)) from None
