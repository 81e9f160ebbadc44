"""Catalyst's steps as graphviz pictures.

One step: the plan after the rule, each node colored by what the rule did to it
(`spark_plan_diff`: added, changed, moved; the removed nodes in a dashed box
beside the tree), the rule, batch and iteration in the header and Spark's checks
as marks under it. The whole trace: the final plan under the summary, the
comparison with Spark's optimizedPlan and the chain of rules that changed it.
"""

from __future__ import annotations

import textwrap

from ..support import late
from ..tracing.catalyst_steps import CatalystStep, CatalystSteps
from ..tracing.spark_plan_diff import plan_diff
from ..tracing.spark_plan_text import PlanNode, plan_tree
from .dot_style import FONT, STATUS_STYLE
from .labels import dot_text, dot_tooltip

__all__ = ["catalyst_dot", "catalyst_step_dot", "plan_text_dot"]

graphviz = late.module("graphviz")  # loaded with the first picture

MAX_NODES = 300  # a plan drawn: at most this many nodes, breadth first
LINE_CHARS = 44  # a node's text is wrapped at this many characters
NODE_LINES = 3  # and shows at most this many lines (its tooltip holds it whole)
CAPTION_CHARS = 110
_LEGEND = {"added": "added", "changed": "changed", "moved": "moved or rewired",
           "removed": "removed"}


def _graph(name: str):
    g = graphviz.Digraph(name=name)
    g.attr(rankdir="TB", ordering="out", fontname=FONT, labelloc="t",
           nodesep="0.25", ranksep="0.35")
    g.attr("node", fontname=FONT, fontsize="10", shape="box", style="rounded,filled",
           fillcolor="#f9fafb", color="#6b7280", margin="0.08,0.04")
    g.attr("edge", color="#6b7280", arrowsize="0.5", dir="back")
    return g


def _node_label(node: PlanNode, status: str | None, was: str | None) -> str:
    at = node.text.find(node.name)
    # the operator as Spark wrote it (`'Sort` unresolved, `*(2) Project`), then the rest
    name, detail = ((node.text[:at + len(node.name)], node.text[at + len(node.name):].strip())
                    if at >= 0 else (node.text[:20], node.text))
    wrapped = textwrap.wrap(detail, LINE_CHARS, break_long_words=True) or []
    if len(wrapped) > NODE_LINES:
        wrapped = wrapped[:NODE_LINES - 1] + [wrapped[NODE_LINES - 1][:LINE_CHARS - 1] + "…"]
    rows = [f"<TR><TD ALIGN=\"LEFT\"><B>{dot_text(name, 40)}</B>"
            + (f' <FONT POINT-SIZE="8" COLOR="#374151">{dot_text(status, None)}</FONT>'
               if status and status != "same" else "")
            + (' <FONT POINT-SIZE="8" COLOR="#6d28d9">subquery</FONT>' if node.subquery else "")
            + "</TD></TR>"]
    rows += [f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="9">{dot_text(w, None)}</FONT></TD></TR>'
             for w in wrapped]
    if was is not None:
        rows.append(f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="8" COLOR="#9a3412">was: '
                    f'{dot_text(was, LINE_CHARS)}</FONT></TD></TR>')
    return ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
            + "".join(rows) + "</TABLE>>")


def _style(status: str | None) -> dict:
    style = dict(STATUS_STYLE.get(status, {})) if status not in (None, "same") else {}
    style.pop("dashed", None)
    return style


def _draw_plan(g, root: PlanNode, prefix: str, diff=None) -> tuple[int, int]:
    """Draw the plan breadth first up to MAX_NODES; returns (drawn, total)."""
    sizes = _subtree_sizes(root)
    total = sizes[id(root)]
    queue, drawn = [((), root, None, False)], 0
    while queue and drawn < MAX_NODES:
        path, node, parent, spine = queue.pop(0)
        status = diff.status.get(path) if diff is not None else None
        was = diff.was.get(path) if diff is not None else None
        nid = prefix + "_".join(map(str, path))
        g.node(nid or prefix + "root", label=_node_label(node, status, was),
               tooltip=dot_tooltip(node.text), **_style(status))
        if parent is not None:
            # the edge to a node's largest child pulls hardest, so a left-deep join chain
            # runs straight down with its other inputs beside it instead of a staircase
            look = {"style": "dashed", "color": "#6d28d9"} if node.subquery else {}
            g.edge(parent, nid or prefix + "root", weight="8" if spine else "1", **look)
        drawn += 1
        biggest = max(node.children, key=lambda c: sizes[id(c)], default=None)
        queue.extend(((*path, i), c, nid or prefix + "root", c is biggest and len(node.children) > 1)
                     for i, c in enumerate(node.children))
    return drawn, total


def _subtree_sizes(root: PlanNode) -> dict[int, int]:
    order = [node for _, node in root.walk()]
    sizes: dict[int, int] = {}
    for node in reversed(order):
        sizes[id(node)] = 1 + sum(sizes[id(c)] for c in node.children)
    return sizes


def _caption(lines: list[str]) -> str:
    cells = "".join(f'<TR><TD ALIGN="LEFT">{line}</TD></TR>' for line in lines)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{cells}</TABLE>>'


def _checks_row(step: CatalystStep) -> list[str]:
    if step.error is not None:
        return [f'<FONT COLOR="#b91c1c">✗ threw: {dot_text(step.error, CAPTION_CHARS)}</FONT>']
    passed = [c.name for c in step.checks if c.ok]
    rows = [f'<FONT COLOR="#15803d" POINT-SIZE="9">{dot_text(line, None)}</FONT>'
            for line in textwrap.wrap("✓ " + " · ✓ ".join(passed), CAPTION_CHARS)] \
        if passed else []
    rows += [f'<FONT COLOR="#b91c1c" POINT-SIZE="9">'
             f'{dot_text("✗ " + c.name + ": " + c.message, CAPTION_CHARS)}</FONT>'
             for c in step.checks if not c.ok]
    return rows


def catalyst_step_dot(step: CatalystStep, number: int | None = None):
    g = _graph("catalyst_step")
    lead = f"{number}. " if number is not None else ""
    name = lead + step.rule + (f" ({step.scope})" if step.scope else "")
    where = (f"{step.phase} · batch {step.batch} · iteration {step.iteration} · "
             f"{step.elapsed * 1000:,.1f} ms")
    lines = [f"<B>{dot_text(name, None)}</B>",
             f'<FONT POINT-SIZE="10">{dot_text(where, CAPTION_CHARS)}</FONT>']
    lines += _checks_row(step)
    if step.error is not None:
        drawn, total = _draw_plan(g, plan_tree(step.before), "n")
    else:
        diff = plan_diff(step.before, step.after)
        counts = diff.counts
        said = [f"{counts.get(k, 0):,} {label}" for k, label in _LEGEND.items()
                if counts.get(k, 0)]
        if said:
            lines.append(f'<FONT POINT-SIZE="9">{dot_text(" · ".join(said), None)}</FONT>')
        drawn, total = _draw_plan(g, diff.after, "n", diff)
        if diff.removed:
            sub = graphviz.Digraph(name="cluster_removed")
            sub.attr(label="removed by the rule", style="dashed", color="#dc2626",
                     fontcolor="#b91c1c", fontsize="10")
            for i, text in enumerate(diff.removed[:MAX_NODES]):
                sub.node(f"r{i}", label=_node_label(PlanNode(text), None, None),
                         tooltip=dot_tooltip(text), fillcolor=STATUS_STYLE["removed"]["fillcolor"],
                         color=STATUS_STYLE["removed"]["color"], style="rounded,filled,dashed")
            g.subgraph(sub)
    if drawn < total:
        lines.append(dot_text(f"showing {drawn:,} of {total:,} nodes", None))
    g.attr(label=_caption(lines))
    return g


def catalyst_dot(trace: CatalystSteps):
    g = _graph("catalyst")
    lines = [f"<B>{dot_text('Catalyst · ' + trace.summary, None)}</B>"]
    if trace.note:
        lines.append(dot_text(trace.note, None))
    else:
        lines.append(dot_text(trace.comparison.statement, CAPTION_CHARS))
        chain = " → ".join(f"{i}. {s.rule}" for i, s in enumerate(trace.steps, 1))
        lines += [f'<FONT POINT-SIZE="9">{dot_text(w, None)}</FONT>'
                  for w in textwrap.wrap(chain, CAPTION_CHARS)]
    lines.append("final plan:" if not trace.note else "optimized plan:")
    drawn, total = _draw_plan(g, plan_tree(trace.final_plan), "n")
    if drawn < total:
        lines.append(dot_text(f"showing {drawn:,} of {total:,} nodes", None))
    g.attr(label=_caption(lines))
    return g


def plan_text_dot(text: str, title: str):
    """A plan Spark printed (a section of `explain`), drawn as a tree under `title`."""
    g = _graph("spark_plan")
    drawn, total = _draw_plan(g, plan_tree(text), "n")
    lines = [f"<B>{dot_text(title, None)}</B>"]
    if drawn < total:
        lines.append(dot_text(f"showing {drawn:,} of {total:,} nodes", None))
    g.attr(label=_caption(lines))
    return g
