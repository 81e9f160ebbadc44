"""Reading any plan by its shape: children, a one-line label, a schema.

The plan package may grow new node kinds (and Spark adds its own); the tracer
and renderers agree with it only on duck typing (`.children`, `.label()` or
`str`, `.schema`). `PlanSnapshot` is that shape frozen as plain data, which is
what a saved trace holds and what renders after loading.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "PlanSnapshot",
    "is_plan",
    "plan_children",
    "plan_label",
    "plan_nodes",
    "plan_schema_text",
    "snapshot",
]


@dataclass(eq=False)
class PlanSnapshot:
    """A plan node reduced to what is drawn: its label, its schema text, its inputs."""

    label_text: str
    schema_text: str = ""
    children: list["PlanSnapshot"] = field(default_factory=list)

    def label(self) -> str:
        return self.label_text

    @property
    def schema(self) -> str:
        return self.schema_text

    def __str__(self) -> str:
        return self.label_text


def is_plan(obj) -> bool:
    return hasattr(obj, "children") and hasattr(obj, "schema") and not isinstance(obj, type)


def plan_children(node) -> list:
    children = getattr(node, "children", ())
    if callable(children):
        children = children()
    return list(children or ())


def plan_label(node) -> str:
    label = getattr(node, "label", None)
    if callable(label):
        return str(label())
    if isinstance(label, str):
        return label
    return str(node)


def plan_schema_text(node) -> str:
    try:
        schema = node.schema
    except Exception:  # a node whose schema cannot be derived still draws
        return ""
    if schema is None:
        return ""
    if isinstance(schema, str):
        return schema
    try:
        parts = []
        for f in schema:
            name = getattr(f, "name", None)
            if name is None:
                parts.append(str(f))
                continue
            relation = getattr(f, "relation", None)
            qualified = f"{relation}.{name}" if relation else str(name)
            parts.append(f"{qualified}: {getattr(f, 'type', '?')}")
        return ", ".join(parts)
    except TypeError:
        return str(schema)


def plan_nodes(root) -> list[tuple[int, object, int | None]]:
    """(depth, node, parent position) for every node, pre-order, without recursion."""
    out: list[tuple[int, object, int | None]] = []
    stack = [(root, 0, None)]
    while stack:
        node, depth, parent = stack.pop()
        position = len(out)
        out.append((depth, node, parent))
        for child in reversed(plan_children(node)):
            stack.append((child, depth + 1, position))
    return out


def snapshot(root) -> PlanSnapshot:
    """The plan frozen as PlanSnapshots (already-frozen plans are returned as they are)."""
    if isinstance(root, PlanSnapshot):
        return root
    made: list[PlanSnapshot] = []
    for _, node, parent in plan_nodes(root):
        snap = PlanSnapshot(plan_label(node), plan_schema_text(node))
        made.append(snap)
        if parent is not None:
            made[parent].children.append(snap)
    return made[0]


def changed_positions(event) -> set[int]:
    """Pre-order positions (as `plan_nodes` numbers them) of the nodes a plan rule produced.

    Read from the rule's firings by identity (each names the node it produced);
    a step without them (an older trace) falls back to the nodes whose label or
    schema is not found in the plan before.
    """
    after = event.after
    if not event.changed or not is_plan(after):
        return set()
    nodes = plan_nodes(after)
    position = {id(node): i for i, (_, node, _) in enumerate(nodes)}
    fired = {position[id(a.after)] for a in getattr(event, "applied", ())
             if a.after is not None and id(a.after) in position}
    if fired:
        return fired
    before = ({(plan_label(n), plan_schema_text(n)) for _, n, _ in plan_nodes(event.before)}
              if is_plan(event.before) else set())
    return {i for i, (_, n, _) in enumerate(nodes)
            if (plan_label(n), plan_schema_text(n)) not in before}
