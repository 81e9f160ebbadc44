"""Plans as indented text, one node per line (DataFusion's EXPLAIN format), and schemas as text.

The plain text of a plan needs nothing but the nodes themselves, so every plan
class can print itself with it; EXPLAIN VERBOSE, which runs the optimizer and
the planner, is `plan.explain`.
"""

from __future__ import annotations

import pyarrow as pa

from ..visible_text import visible

__all__ = ["fields_text", "plan_text"]


def plan_text(plan, show_schema: bool = False, indent: str = "  ") -> str:
    """One line per node (`label()`), each input indented below its consumer."""
    lines = []
    stack = [(plan, 0)]
    while stack:
        node, depth = stack.pop()
        lines.append(f"{indent * depth}{visible(node.label())}")
        if show_schema:
            lines.append(f"{indent * depth}{indent}schema: {visible(_schema_text(node.schema))}")
        stack.extend((child, depth + 1) for child in reversed(node.children))
    return "\n".join(lines)


def fields_text(schema: pa.Schema) -> str:
    """`a:int64, b:string NOT NULL`: a physical schema in invariant messages and EXPLAIN."""
    return ", ".join(f"{f.name}:{f.type}{'' if f.nullable else ' NOT NULL'}" for f in schema)


def _schema_text(schema) -> str:
    return f"[{fields_text(schema)}]" if isinstance(schema, pa.Schema) else str(schema)
