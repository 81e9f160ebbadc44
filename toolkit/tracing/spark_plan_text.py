"""Spark's plan text (`treeString`, the sections of `explain("extended")`) as a tree of nodes.

Spark prints a plan one node a line, each line led by its depth in three-column
steps (`+- ` the last child, `:- ` another child, `:  ` and spaces the lines
between); a subquery's plan hangs under the node whose expression holds it, in
the same notation, two levels below that node. Each node keeps its line's text, so two plans compare node by
node by position and text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import UsageError

__all__ = ["PlanNode", "explain_sections", "node_name", "plan_tree", "strip_ids"]

MAX_LINES = 20_000  # a plan text longer than this is not a plan Spark printed for one query
_LEAD = re.compile(r"^[ :+\-|]*")
# expression ids (`a#12`, `a#12L`), the ids of CTE definitions and their references, and
# the ids of physical plan nodes (exchanges)
_NAME = re.compile(r"(?:\*\(\d+\)\s*)?'?([A-Za-z_][\w$]*)")
_IDS = re.compile(r"#\d+L?|(?<=CTERelationDef )\d+|(?<=CTERelationRef )\d+|(?<=plan_id=)\d+")


@dataclass
class PlanNode:
    text: str
    children: list[PlanNode] = field(default_factory=list)
    subquery: bool = False  # the root of a subquery's plan, held by its parent's expression

    @property
    def name(self) -> str:
        return node_name(self.text)

    def walk(self, path: tuple = ()):
        """(path, node) pairs, pre-order, with an explicit stack."""
        stack = [(path, self)]
        while stack:
            p, node = stack.pop()
            yield p, node
            stack.extend(((*p, i), c) for i, c in reversed(list(enumerate(node.children))))


def node_name(text: str) -> str:
    """The operator of a node's text: `Filter` of `Filter (a#1 > 3)`, `Project` of
    `*(2) Project` (a code-generation stage) and of `'Project` (not resolved yet)."""
    m = _NAME.match(text)
    return m.group(1) if m else text[:20]


def strip_ids(text: str) -> str:
    """The text without the ids each Spark run mints afresh: expression ids (`a#12` → `a`)
    CTE ids and physical plan ids."""
    return _IDS.sub("", text)


def plan_tree(text: str) -> PlanNode:
    """The tree of a plan as Spark prints it; a UsageError for text that is not one."""
    if not isinstance(text, str):
        raise UsageError(f"a Spark plan text must be a str, not {type(text).__name__}")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise UsageError("the Spark plan text is empty")
    if len(lines) > MAX_LINES:
        raise UsageError(f"the Spark plan text has {len(lines):,} lines, more than "
                         f"{MAX_LINES:,}")
    stack: list[tuple[int, PlanNode]] = []
    root = None
    for number, line in enumerate(lines, 1):
        lead = _LEAD.match(line).group(0)
        # a node's text never starts with a tree character; a lead ends at its "+- "/":- "
        depth = (len(lead) + 1) // 3 if lead else 0
        node = PlanNode(line[len(lead):].rstrip())
        if root is None:
            if depth:
                raise UsageError(f"line 1 of the Spark plan text is indented: {line[:60]!r}")
            root = node
            stack = [(0, node)]
            continue
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if not stack:
            raise UsageError(f"line {number} of the Spark plan text has no parent: "
                             f"{line[:60]!r}")
        node.subquery = depth >= stack[-1][0] + 2
        stack[-1][1].children.append(node)
        stack.append((depth, node))
    return root


_SECTION = re.compile(r"^== (.+) ==$")


def explain_sections(text: str) -> dict[str, str]:
    """{"Parsed Logical Plan": text, ...}: the sections of Spark's `explain("extended")`,
    each a plan text `plan_tree` reads (the analyzed plan's first line, the output schema
    `x: bigint`, is left out)."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = _SECTION.match(line.strip())
        if m:
            current = m.group(1)
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    out = {}
    for name, lines in sections.items():
        body = [ln for ln in lines if ln.strip()]
        # a schema line precedes a plan whose root is also unindented
        if len(body) >= 2 and not _LEAD.match(body[1]).group(0) and ": " in body[0]:
            body = body[1:]
        out[name] = "\n".join(body)
    return out
