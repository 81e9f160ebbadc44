"""Substrait Plans in and out: what DataFusion, Acero and others exchange as queries.

    p = plan.from_substrait(data, {"t": table})   # a LogicalPlan over the named tables
    data = p.to_substrait()                       # bytes pyarrow.substrait.run_query runs

Whatever `to_substrait` writes, `from_substrait` reads back to an equal plan
when given the plan's own sources (`{scan.relation: scan.source}`): a scan is
equal to another only over the very same source. The writer reads its own
bytes before returning them, so a plan nested deeper than protobuf's readers
accept is refused when written (naming how deep, and the readers' limit), not
when someone else reads it.
"""

from __future__ import annotations

from collections.abc import Mapping

from substrait import plan_pb2, type_pb2

from ...errors import SubstraitError
from ...plan.logical_plan import LogicalPlan
from ...plan.tree import depth as plan_depth
from ...support import late
from ...support.visible_text import visible
from .limits import MAX_NESTING, nesting, readable_bytes
from .messages import (
    declare_functions,
    decode,
    function_names,
    producer,
    stamp_version,
    user_types,
)
from .plan_read import PlanReader
from .plan_write import PlanWriter
from .types import schema_to_substrait
from .write import tree_shape

__all__ = ["from_substrait", "to_substrait"]

# every rel nests two messages (the Rel and its kind), so no deeper plan is readable
MAX_WRITE_DEPTH = MAX_NESTING // 2


def from_substrait(data, tables: Mapping) -> LogicalPlan:
    """The LogicalPlan of a Substrait Plan's first relation, reading named tables from `tables`
    (name -> pyarrow Table or Dataset, or anything `plan.scan` reads)."""
    if not isinstance(tables, Mapping):
        raise SubstraitError(f"plan.from_substrait takes the tables as a dict name -> table, "
                             f"not {type(tables).__name__}")
    message = decode(data, plan_pb2.Plan, "plan.from_substrait")
    if not message.relations:
        raise SubstraitError("plan.from_substrait: the plan holds no relation")
    reader = PlanReader(function_names(message), producer(message), dict(tables),
                        user_types(message))
    first = message.relations[0]
    kind = first.WhichOneof("rel_type")
    if kind == "root":
        where = "relations[0].root"
        if not first.root.HasField("input"):
            raise SubstraitError(f"a root with no input rel (at {where})")
        rel = reader.read(first.root.input, where + ".input")
        return reader.named(rel, list(first.root.names), where)
    if kind == "rel":
        rel = reader.read(first.rel, "relations[0].rel")
        return reader.named(rel, [], "relations[0].rel")
    raise SubstraitError("relations[0] holds neither a root nor a rel (at relations[0])")


def to_substrait(p: LogicalPlan) -> bytes:
    """A Substrait Plan of `p` that pyarrow.substrait.run_query runs, its tables named by
    relation (run_query's table_provider gets `([relation], schema)`)."""
    if not isinstance(p, LogicalPlan):
        raise SubstraitError(f"to_substrait writes a LogicalPlan, not {type(p).__name__}")
    depth = plan_depth(p)
    if depth > MAX_WRITE_DEPTH:
        raise SubstraitError(
            f"the plan is {depth:,} nodes deep; each rel nests two Substrait messages and "
            f"protobuf's readers (pyarrow's, DataFusion's, Python's) take messages nested "
            f"{MAX_NESTING} deep at most, about {MAX_WRITE_DEPTH - 3} rels")
    writer = PlanWriter()
    message = plan_pb2.Plan()
    root = message.relations.add().root
    root.input.CopyFrom(writer.write(p))
    out_schema = type_pb2.NamedStruct()
    try:
        schema_to_substrait(p.schema.to_arrow(), out_schema, writer.expressions.user_types)
    except SubstraitError as exc:
        raise SubstraitError(f"cannot write the plan's output as Substrait: {exc}") from None
    root.names.extend(out_schema.names)
    declare_functions(message, writer.anchors, writer.expressions.user_types)
    stamp_version(message)
    data = readable_bytes(message)
    if data is None:
        raise SubstraitError(
            f"the plan ({depth} nodes deep{_deepest_expression(p)}) is written as messages "
            f"nested {nesting(message)} deep; protobuf's readers (pyarrow's, DataFusion's, "
            f"Python's) take {MAX_NESTING} at most")
    return data


def _deepest_expression(p: LogicalPlan) -> str:
    """`, its deepest expression 41 levels, in Projection: ...`, or nothing."""
    deepest, where, stack = 0, None, [p]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        for e in node.expressions():
            levels = tree_shape(e).depth
            if levels > deepest:
                deepest, where = levels, node
    if where is None or deepest < 2:
        return ""
    label = visible(where.label())
    label = label if len(label) <= 60 else label[:57] + "..."
    return f", its deepest expression {deepest} levels, in {label}"


late.provide("plan_to_substrait", to_substrait)
