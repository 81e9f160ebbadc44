"""Plans as indented text, one node per line (DataFusion's EXPLAIN format), and schemas as text.

The plain text of a plan needs nothing but the nodes themselves, so every plan
class can print itself with it; EXPLAIN VERBOSE, which runs the optimizer and
the planner, is `plan.explain`.

Indentation stops growing at `INDENT_CAP` levels: a deeper node is printed at
that indentation behind `⋯[depth N]`, so a 10,000-operator chain is linear text
(uncapped, its indentation alone would be 100 M characters) and the nesting is
still read from the depths.
"""

from __future__ import annotations

import pyarrow as pa

from ..support.visible_text import visible

__all__ = ["INDENT_CAP", "expression_text", "fields_text", "plan_text"]

INDENT_CAP = 24  # levels of indentation; deeper nodes say their depth instead


def plan_text(plan, show_schema: bool = False, indent: str = "  ") -> str:
    """One line per node (`label()`), each input indented below its consumer."""
    lines = []
    stack = [(plan, 0)]
    while stack:
        node, depth = stack.pop()
        lead = indent * min(depth, INDENT_CAP)
        deep = f"⋯[depth {depth}] " if depth > INDENT_CAP else ""
        lines.append(f"{lead}{deep}{visible(node.label())}")
        if show_schema:
            lines.append(f"{lead}{indent}schema: {visible(_schema_text(node.schema))}")
        stack.extend((child, depth + 1) for child in reversed(node.children))
    return "\n".join(lines)


def expression_text(expr) -> str:
    """An expression in a plan's line: Arrow's text with only the options that differ
    from the defaults, so a cast does not spell out its seven fields in every stage."""
    return expr.to_string(short=True)


def fields_text(schema: pa.Schema) -> str:
    """`a:int64, b:string NOT NULL`: a physical schema in invariant messages and EXPLAIN."""
    return ", ".join(f"{f.name}:{f.type}{'' if f.nullable else ' NOT NULL'}" for f in schema)


def _schema_text(schema) -> str:
    return f"[{fields_text(schema)}]" if isinstance(schema, pa.Schema) else str(schema)
