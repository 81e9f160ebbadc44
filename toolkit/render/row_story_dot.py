"""A row's story as a graphviz tree: each node with its value for the row, the
branches the row never reached greyed and dashed, the nodes that decided the
result outlined in red, a failing node in red.

Every label passes through `dot_text` (escaped for graphviz's HTML-like labels,
control and bidi characters spelled out): values come from users' data.
"""

from __future__ import annotations

from ..explain import RowStories, RowStory
from ..explain.value_text import value_text
from .labels import dot_text

__all__ = ["MAX_STORY_NODES", "draw_stories", "draw_story"]

MAX_STORY_NODES = 300  # past this many nodes, the deepest are left out and counted

_REACHED = {"shape": "box", "style": "rounded,filled", "fillcolor": "#eef2ff",
            "color": "#6366f1", "fontcolor": "#111827"}
_UNREACHED = {"shape": "box", "style": "rounded,dashed,filled", "fillcolor": "#f3f4f6",
              "color": "#9ca3af", "fontcolor": "#9ca3af"}
_FAILED = {"fillcolor": "#fee2e2", "color": "#dc2626"}
_DECIDED = {"color": "#dc2626", "penwidth": "2.2"}


def _label(n, width: int = 40) -> str:
    grey = not n.evaluated
    color = "#9ca3af" if grey else "#374151"
    rows = [f"<TR><TD><B>{dot_text(n.label, 40)}</B></TD></TR>"]
    if n.evaluated:
        shown = "failed" if n.error else f"= {value_text(n.value, 40)}"
        rows.append(f'<TR><TD><FONT POINT-SIZE="11">{dot_text(shown, 44)}</FONT></TD></TR>')
    else:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="{color}">not evaluated'
                    "</FONT></TD></TR>")
    if n.branch:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="#1d4ed8">took '
                    f"{dot_text(n.branch, 30)}</FONT></TD></TR>")
    if n.note and (n.evaluated or n.note.startswith("would raise")
                   or not n.note.startswith("not evaluated: inside")):
        for line in word_lines(n.note.removeprefix("not evaluated: "), width)[:3]:
            rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="{color}">{dot_text(line, None)}'
                        "</FONT></TD></TR>")
    rows.append(f'<TR><TD><FONT POINT-SIZE="8" COLOR="#6b7280">{dot_text(n.path_text, 30)}'
                "</FONT></TD></TR>")
    return ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
            + "".join(rows) + "</TABLE>>")


def word_lines(text: str, width: int, most: int = 3) -> list[str]:
    """`text` in lines of at most `width` characters broken between words; past `most`
    lines the last shown ends after a whole word, then "…" (a word longer than a line
    keeps a line of its own)."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    if len(lines) > most:
        lines = lines[:most]
        last = lines[-1]
        while " " in last and len(last) + 2 > width:
            last = last.rsplit(" ", 1)[0]
        lines[-1] = last + " …"
    return lines


def draw_story(g, story: RowStory, prefix: str = "") -> None:
    """Draw `story` into the graphviz graph `g` (node ids start with `prefix`)."""
    ids = {}
    shown = story.nodes[:MAX_STORY_NODES]
    for i, n in enumerate(shown):
        attrs = dict(_REACHED if n.evaluated else _UNREACHED)
        if n.error and n.evaluated:
            attrs.update(_FAILED)
        if n.decided:
            attrs.update(_DECIDED)
        attrs["class"] = "row-node " + ("reached" if n.evaluated else "unreached") + \
            (" decided" if n.decided else "")
        node_id = f"{prefix}n{i}"
        ids[n.path] = node_id
        g.node(node_id, label=_label(n), tooltip=dot_text(n.expression, 300), **attrs)
        if n.path:
            parent = ids.get(n.path[:-1])
            if parent is not None:
                style = "dashed" if not n.evaluated else "solid"
                g.edge(parent, node_id, style=style,
                       color="#d1d5db" if not n.evaluated else "#6b7280")
    head = [f"row {story.row:,} · {story.mode} · value {value_text(story.value, 40)}"]
    head += word_lines(story.why, 110)
    if len(story.nodes) > len(shown):
        head.append(f"showing {len(shown):,} of {len(story.nodes):,} nodes")
    g.attr(label="<" + "<BR/>".join(dot_text(line, None) for line in head) + ">",
           labelloc="t", labeljust="l")


def draw_stories(g, stories: RowStories, graphviz) -> None:
    for k, story in enumerate(stories):
        sub = graphviz.Digraph(name=f"cluster_row{k}")
        sub.attr(style="rounded", color="#9ca3af")
        draw_story(sub, story, f"r{k}_")
        g.subgraph(sub)
    g.attr(label=f"<{dot_text(str(stories), None)}>", labelloc="t")
