"""A kernel error inside a Spark partition, carried back to the driver as exprscope's own.

In engine mode exprscope runs inside Spark's Python workers; a failing kernel
there reaches the driver as pyspark's PythonException (or a Py4JJavaError)
whose text holds the worker's traceback. The worker raises with one marked
line holding the error's facts (message, node text, path, row, partition) as
bounded, escaped JSON; the driver finds that line in whatever Spark raised and
raises the `KernelError` a local evaluation would. A partition does not know
its rows' place in the whole input, so the place is stated as "row R of Spark
partition P", counted over every Arrow batch Spark handed that partition.
Where a filter (or any node that drops or reorders rows) stands between the
partition's rows and the failing node, the row is counted over the rows that
reached the node from one Arrow batch, and the message says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ...errors import KernelError
from ...support.visible_text import visible

__all__ = ["MARKER", "PartitionPlace", "collect_arrow", "kernel_error_from", "marked"]

MARKER = "EXPRSCOPE-KERNEL-ERROR:"
_LIMIT = 4_000  # characters of each text field carried back
_PATH_LIMIT = 1_000  # steps of the node's path carried back
# json.dumps escapes every line break, so the facts are one line ending at a newline
_FOUND = re.compile(re.escape(MARKER) + r"(\{.*?\})(?:\r?\n|$)")


@dataclass(frozen=True)
class PartitionPlace:
    """Where in a partition the failing rows came from.

    `rows_before`: rows of the partition's earlier Arrow batches, when the
    error's row counts over the latest batch's rows as they came (so the row in
    the partition is their sum); otherwise `batch`, the index of the Arrow batch
    whose rows, after filtering, the error's row counts over.
    """

    partition: int | None
    rows_before: int | None = None
    batch: int | None = None


def _bare_message(exc: KernelError) -> str:
    """The message without the " in <node> at row <r>" KernelError appended to it."""
    text = str(exc.args[0]) if exc.args else str(exc)
    where = f" in {visible(str(exc.node))}" if exc.node is not None else ""
    where += f" at row {exc.row}" if exc.row is not None else ""
    return text[:-len(where)] if where and text.endswith(where) else text


def marked(exc: KernelError, place: PartitionPlace) -> str:
    """The one line a worker raises with: the marker and the error's facts as JSON."""
    row = exc.row
    batch = place.batch
    if row is not None and place.rows_before is not None:
        row += place.rows_before
    elif row is None:
        batch = None
    facts = {"message": _bare_message(exc)[:_LIMIT],
             "node": str(exc.node)[:_LIMIT] if exc.node is not None else None,
             "path": [int(i) for i in exc.path][:_PATH_LIMIT],
             "row": row, "partition": place.partition, "batch": batch}
    return MARKER + json.dumps(facts)


def _int_or_none(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def kernel_error_from(exc: BaseException) -> KernelError | None:
    """The KernelError a worker marked in `exc`'s text, or None if there is none."""
    found = _FOUND.search(str(exc))
    if found is None:
        return None
    try:
        facts = json.loads(found.group(1))
    except ValueError:
        return None
    if not isinstance(facts, dict):
        return None
    message = str(facts.get("message") or "a kernel failed")[:_LIMIT]
    node = facts.get("node")
    node = str(node)[:_LIMIT] if node is not None else None
    path = [i for i in facts.get("path") or [] if _int_or_none(i) is not None][:_PATH_LIMIT]
    row, partition = _int_or_none(facts.get("row")), _int_or_none(facts.get("partition"))
    batch = _int_or_none(facts.get("batch"))
    error = KernelError(message, node=node, path=path, row=row)
    if row is not None:
        spark_partition = f"Spark partition {partition if partition is not None else '?'}"
        place = (f" of {spark_partition}" if batch is None else
                 f" of the rows that reached it from Arrow batch {batch} of {spark_partition}")
        error.args = (error.args[0] + place,)
    elif partition is not None:
        error.args = (f"{error.args[0]} in Spark partition {partition}",)
    error.partition, error.batch = partition, batch
    return error


def collect_arrow(df):
    """`df.toArrow()`, with a kernel error a partition marked raised as exprscope's own."""
    try:
        return df.toArrow()
    except Exception as exc:
        error = kernel_error_from(exc)
        if error is None:
            raise
        raise error from None
