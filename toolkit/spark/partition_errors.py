"""A kernel error inside a Spark partition, carried back to the driver as exprscope's own.

In engine mode exprscope runs inside Spark's Python workers; a failing kernel
there reaches the driver as pyspark's PythonException (or a Py4JJavaError)
whose text holds the worker's traceback. The worker writes one marked line with
the error's facts (message, node, path, row in the partition, partition id) as
bounded JSON; the driver finds that line in whatever Spark raised and raises the
`KernelError` a local evaluation would, with the place stated as "partition P,
row R of that partition" (a partition does not know its rows' place in the
whole input).
"""

from __future__ import annotations

import json
import re

from ..errors import KernelError

__all__ = ["MARKER", "collect_arrow", "kernel_error_from", "marked"]

MARKER = "EXPRSCOPE-KERNEL-ERROR:"
_LIMIT = 4_000  # characters of each text field carried back
_FOUND = re.compile(re.escape(MARKER) + r"(\{.*?\})(?:\n|$)")


def marked(exc: KernelError, partition: int | None) -> str:
    """The one line a worker raises with: the marker and the error's facts as JSON."""
    facts = {"message": str(exc.args[0] if exc.args else exc)[:_LIMIT],
             "node": str(exc.node)[:_LIMIT] if exc.node is not None else None,
             "path": [int(i) for i in exc.path][:1_000],
             "row": exc.row, "partition": partition}
    return MARKER + json.dumps(facts)


def kernel_error_from(exc: BaseException) -> KernelError | None:
    """The KernelError a worker marked in `exc`'s text, or None if there is none."""
    found = _FOUND.search(str(exc))
    if found is None:
        return None
    try:
        facts = json.loads(found.group(1))
    except ValueError:
        return None
    message = str(facts.get("message") or "a kernel failed")[:_LIMIT]
    cut = message.rfind(" in ")
    message = message[:cut] if facts.get("node") and cut > 0 else message
    row = facts.get("row") if isinstance(facts.get("row"), int) else None
    partition = facts.get("partition") if isinstance(facts.get("partition"), int) else None
    error = KernelError(message, node=facts.get("node"),
                        path=[i for i in facts.get("path") or [] if isinstance(i, int)])
    if row is not None:
        place = f" of Spark partition {partition}" if partition is not None else ""
        error.args = (f"{error.args[0]} at row {row}{place}",)
    error.row, error.partition = row, partition
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
