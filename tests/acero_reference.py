"""Acero's projection of an expression, run in a child process so that Acero crashing
cannot take the test session down.

Acero is the reference of the differential tests, but pyarrow 26's Acero segfaults on a
few calls exprscope answers (`min_element_wise` of a large_string and a string,
`choose` with a null large_string literal): a random draw must not end the whole suite.
`run_acero(expression, table)` answers what Acero answers, raises what Acero raises,
and raises `AceroCrashed` where the child died; a new child serves the next call.
`run_acero_substrait(data, name, table)` does the same for an expression pyarrow reads
from Substrait bytes in the child (its positional field references do not pickle), and
`serialize_in_child(expression, name, schema)` has pyarrow write those bytes there (its
serializer crashes on some expressions too).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing

import pyarrow as pa
from pyarrow import acero

__all__ = ["AceroCrashed", "acero_loses_this_error", "run_acero", "run_acero_substrait",
           "serialize_in_child"]


class AceroCrashed(Exception):
    """Acero's process died on this expression: there is no reference for it."""


def _project(expression, table: pa.Table) -> pa.ChunkedArray:
    plan = acero.Declaration.from_sequence([
        acero.Declaration("table_source", acero.TableSourceNodeOptions(table)),
        acero.Declaration("project", acero.ProjectNodeOptions([expression], ["out"])),
    ])
    return plan.to_table().column("out")


def _project_substrait(data: bytes, name: str, table: pa.Table) -> pa.ChunkedArray:
    import pyarrow.substrait

    return _project(pyarrow.substrait.deserialize_expressions(data).expressions[name], table)


def _serialize(expression, name: str, schema: pa.Schema) -> bytes:
    import pyarrow.substrait

    return bytes(pyarrow.substrait.serialize_expressions([expression], [name], schema))


_pool: concurrent.futures.ProcessPoolExecutor | None = None

_DECIMAL_ROUNDING = {"round", "round_binary", "round_to_multiple", "ceil", "floor", "trunc"}


def acero_loses_this_error(error: Exception) -> bool:
    """Whether exprscope's error is a decimal rounding that no longer fits its type.

    Acero's kernel loses that error when a later row of the batch rounds (the row comes
    out 0 and the call succeeds; toolkit/functions/decimal_rounding.py): where Acero
    answers there, it is no reference.
    """
    node = getattr(error, "node", None)
    return getattr(node, "name", None) in _DECIMAL_ROUNDING and "fit in precision" in str(error)



def run_acero(expression, table: pa.Table) -> pa.ChunkedArray:
    return _in_child(_project, expression, table)


def run_acero_substrait(data: bytes, name: str, table: pa.Table) -> pa.ChunkedArray:
    return _in_child(_project_substrait, bytes(data), name, table)


def serialize_in_child(expression, name: str, schema: pa.Schema) -> bytes:
    return _in_child(_serialize, expression, name, schema)


def _in_child(work, *args):
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    # one chunk per column crosses to the child far faster than thousands of small ones
    # (a table tiled from a small one); the values, all a reference gives, are the same
    *head, last = args
    if isinstance(last, pa.Table):
        last = last.combine_chunks()
    try:
        return _pool.submit(work, *head, last).result()
    except concurrent.futures.process.BrokenProcessPool:
        _pool.shutdown(wait=False)
        _pool = None
        raise AceroCrashed(str(head[0])[:200]) from None
