"""Graphviz pictures of expressions, passes, evaluations, invariant checks and plans.

`to_dot(obj)` returns a `graphviz.Digraph` (`str(g)` is the DOT text). Every
label is a graphviz HTML-like label built from `labels.dot_text`, so user text
never becomes markup or a graphviz escape. Trees larger than `max_nodes` are
drawn breadth-first to the budget, and the rest is summarized in marked nodes
and said in the graph's caption: `dot` would take minutes on 10,000 nodes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import singledispatch
from typing import TYPE_CHECKING, NamedTuple

import pyarrow.compute as pc

from ..errors import UsageError
from ..explain import RowJourney, RowStories, RowStory, WhyNot
from ..model.expression import Expression, from_pyarrow
from ..observe import EvalEvent, InvariantCheck, PassEvent, PlanRuleEvent
from ..support import late
from ..tracing.catalyst_steps import CatalystStep, CatalystSteps
from ..tracing.plan_shape import (
    changed_positions,
    is_plan,
    plan_label,
    plan_nodes,
    plan_schema_text,
)
from ..tracing.recorded_error import error_facts
from ..tracing.steps import branch_target, step_title
from ..tracing.tracer import Trace
from .branch_table import NULL_BECAUSE, NULL_BRANCH, NullRows, folded_rows
from .catalyst_dot import catalyst_dot, catalyst_step_dot
from .dot_style import (
    ERROR_STYLE,
    FONT,
    KIND_STYLE,
    SELECTED,
    SKIPPED_STYLE,
    STATUS_LEGEND,
    STATUS_STYLE,
    UNSELECTED,
    density_color,
)
from .labels import (
    CONDITIONS_RAN,
    arg_role,
    bounded_text,
    conditions_ran,
    dot_text,
    dot_tooltip,
    node_detail,
    node_kind,
    node_title,
    path_text,
    rows_lines,
    shorten,
    time_text,
    type_text,
    visible,
    wall_text,
)
from .row_journey import draw_journey, draw_why_not
from .row_story_dot import draw_stories, draw_story
from .selection_strip import strip_of
from .spines import continues_run, starts_spine
from .tree_diff import diff_pass
from .wide_nodes import (
    AUTO_DEPTH,
    TreeWindow,
    chain_fold_title,
    chain_place,
    depth_fold_title,
    fold_noun,
    fold_range_text,
    shown_args,
    span_text,
    subtree_sizes,
)

if TYPE_CHECKING:
    import graphviz

graphviz_package = late.module("graphviz")

__all__ = ["MAX_NODES", "to_dot"]

MAX_NODES = 300
TOOLTIP_CHARS = 400  # a node's tooltip: its whole subtree as text, up to this many characters
MAX_TRACE_STEPS = 24  # a trace's overview draws at most this many steps
EDGE_CELLS = 32  # cells of a branch strip on an edge: a picture of a few forms fits a cell
_AUTO_WINDOW = TreeWindow(depth=AUTO_DEPTH)  # the whole tree, a deep one folded (`wide_nodes`)


def to_dot(obj, *, max_nodes: int = MAX_NODES, focus=(), depth: int | str | None = AUTO_DEPTH
           ) -> graphviz.Digraph:
    """The picture of an Expression, a Trace, one step of a trace, or a plan.

    For a tree (an expression, a pass, an evaluation): `focus` draws only the
    subtree at that path (a tuple, or text such as "1/0"), and `depth` folds
    everything more than `depth` levels below it into one box per folded child
    that says how many nodes it holds and the path that opens it. A focus may end
    in a range of the node's arguments ("5-248", "0/4-247", or a tuple ending in
    `range(5, 249)`): the box a wide node folds its middle into names the range
    that opens it. By default (`"auto"`) a tree deeper than `wide_nodes.FOLD_DEPTH`
    levels is drawn `OPEN_DEPTH` levels down, so its picture opens on its root at a
    readable size; `depth=None` draws every level.
    """
    g = _graph("exprscope")
    _draw(g, obj, "", max_nodes, TreeWindow.of(focus, depth))
    return g


# -- dispatch ---------------------------------------------------------------------
def _graph(name: str) -> graphviz.Digraph:
    g = graphviz_package.Digraph(name=name)
    g.attr(rankdir="TB", ordering="out", fontname=FONT, labelloc="t", nodesep="0.3",
           ranksep="0.4")
    g.attr("node", fontname=FONT, fontsize="11", margin="0.08,0.04")
    g.attr("edge", fontname=FONT, fontsize="9", color="#6b7280", arrowsize="0.6")
    return g


def _draw(g, obj, prefix: str, max_nodes: int, window: TreeWindow = _AUTO_WINDOW) -> None:
    _drawing(obj, g, prefix, max_nodes, window)


@singledispatch
def _drawing(obj, g, prefix: str, max_nodes: int, window: TreeWindow) -> None:
    """Draw `obj` into `g`: one registered function per kind of thing drawn; a plan is
    any object that looks like one (live or loaded from a trace)."""
    if not is_plan(obj):
        raise UsageError(f"exprscope cannot draw a {type(obj).__name__}: give an Expression, "
                         "a Trace, one of its steps, or a plan")
    _draw_plan(g, obj, prefix, {})


@_drawing.register
def _(obj: pc.Expression, g, prefix, max_nodes, window) -> None:  # the user's own pyarrow one
    _drawing(from_pyarrow(obj), g, prefix, max_nodes, window)


@_drawing.register
def _(obj: Trace, g, prefix, max_nodes, window) -> None:
    _draw_trace(g, obj, prefix, max_nodes)


@_drawing.register
def _(obj: RowStory, g, prefix, max_nodes, window) -> None:
    draw_story(g, obj, prefix)


@_drawing.register
def _(obj: RowStories, g, prefix, max_nodes, window) -> None:
    draw_stories(g, obj, graphviz_package)


@_drawing.register
def _(obj: RowJourney, g, prefix, max_nodes, window) -> None:
    draw_journey(g, obj, prefix)


@_drawing.register
def _(obj: WhyNot, g, prefix, max_nodes, window) -> None:
    draw_why_not(g, obj, graphviz_package)


@_drawing.register
def _(obj: PassEvent, g, prefix, max_nodes, window) -> None:
    _draw_pass(g, obj, prefix, max_nodes, window)


@_drawing.register
def _(obj: EvalEvent, g, prefix, max_nodes, window) -> None:
    _draw_eval(g, obj, prefix, max_nodes, window)


@_drawing.register
def _(obj: InvariantCheck, g, prefix, max_nodes, window) -> None:
    _draw_invariant(g, obj, prefix)


@_drawing.register
def _(obj: PlanRuleEvent, g, prefix, max_nodes, window) -> None:
    _draw_plan_rule(g, obj, prefix)


@_drawing.register
def _(obj: CatalystSteps, g, prefix, max_nodes, window) -> None:
    g.body.extend(catalyst_dot(obj).body)


@_drawing.register
def _(obj: CatalystStep, g, prefix, max_nodes, window) -> None:
    g.body.extend(catalyst_step_dot(obj).body)


@_drawing.register
def _(obj: Expression, g, prefix, max_nodes, window) -> None:
    shown = _draw_tree(g, obj, prefix, max_nodes, _Look(), window)
    _caption(g, _window_lines(shown.window), shown)


def _interesting(step) -> bool:
    """Steps worth a picture in an overview: changes, evaluations and failures."""
    if isinstance(step, (PassEvent, PlanRuleEvent)):
        return bool(step.changed)
    if isinstance(step, InvariantCheck):
        return not step.passed
    return True


def _draw_trace(g, t: Trace, prefix: str, max_nodes: int) -> None:
    if not t.steps:
        g.node(f"{prefix}empty", label=_table("empty trace", ["nothing was recorded"]),
               shape="note")
        return
    chosen = list(enumerate(t.steps))
    if len(chosen) > MAX_TRACE_STEPS:
        chosen = [(i, s) for i, s in chosen if _interesting(s)][:MAX_TRACE_STEPS]
        g.attr(label=_html(f"showing {len(chosen)} of {len(t.steps)} steps: the ones that "
                           "changed something, evaluations and failures"))
    for i, step in chosen:
        sub = graphviz_package.Digraph(name=f"cluster_{prefix}s{i}")
        sub.attr(style="rounded", color="#9ca3af")
        _draw(sub, step, f"{prefix}s{i}_", max_nodes)
        sub.attr(label=_html(f"{i + 1}. {step_title(step)}", bold=True))
        g.subgraph(sub)


# -- labels -----------------------------------------------------------------------
def _html(text: str, bold: bool = False) -> str:
    inner = dot_text(text, limit=120)
    return f"<<B>{inner}</B>>" if bold else f"<{inner}>"


def _small(text: str, color: str = "#4b5563", limit: int | None = 60) -> str:
    return f'<FONT POINT-SIZE="9" COLOR="{color}">{dot_text(text, limit)}</FONT>'


ROW_CHARS = 36  # a label's small row wraps at words past this many characters ...
ROW_LINES = 3  # ... onto at most this many lines: a box stays narrow, no word is cut
TITLE_CHARS = 60  # a bold title wraps the same way where it used to be cut


def label_lines(text: str, width: int = ROW_CHARS, lines: int = ROW_LINES) -> list[str]:
    """`text` wrapped at spaces into at most `lines` lines of about `width` characters;
    what does not fit ends the last line at a word, with `…`. A word longer than a line
    (a long name) is cut only when it alone is wider than twice the width."""
    words = text.split(" ")
    out: list[str] = []
    for word in words:
        if out and len(out[-1]) + 1 + len(word) <= width:
            out[-1] += " " + word
        else:
            out.append(word)
    out = [shorten(line, 2 * width) for line in out]
    if len(out) > lines:
        last = out[lines - 1]
        out = out[:lines - 1] + [last if len(last) < width else last.rsplit(" ", 1)[0]]
        out[-1] += " …"
    return out


def _table(title: str, rows: list[str], raw_rows: list[str] = ()) -> str:
    """An HTML-like label: the title in bold, then small rows (escaped, each wrapped at
    words so a box stays narrow and nothing is cut mid-word), then raw cells."""
    cells = [f"<TR><TD><B>{dot_text(line, None)}</B></TD></TR>"
             for line in label_lines(visible(str(title)), TITLE_CHARS)]
    cells += [f"<TR><TD>{_small(line, limit=None)}</TD></TR>" for r in rows
              for line in label_lines(visible(str(r)))]
    cells += [f"<TR><TD>{r}</TD></TR>" for r in raw_rows]
    return ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
            + "".join(cells) + "</TABLE>>")


def _caption(g, lines: list[str], shown: DrawnTree) -> None:
    drawn, total, summarized = shown.drawn, shown.total, shown.summarized
    if summarized:
        lines = lines + [f"showing {drawn:,} of {total:,} nodes; deeper levels are summarized"]
    elif drawn < total:
        lines = lines + [f"showing {drawn:,} of {total:,} nodes; the rest folded (▸)"]
    if lines:
        g.attr(label="<" + "<BR/>".join(dot_text(line, limit=160) for line in lines) + ">")


def _style(kind: str, status: str | None = None, extra: dict | None = None) -> dict:
    attrs = dict(KIND_STYLE[kind])
    for override in (STATUS_STYLE.get(status or ""), extra):
        if override:
            attrs.update(override)
    if attrs.pop("dashed", None):
        attrs["style"] = attrs["style"] + ",dashed"
    classes = [f"kind-{kind}"] + ([f"diff-{status}"] if status else [])
    attrs["class"] = " ".join(classes)
    return attrs


# -- trees ------------------------------------------------------------------------
class _Look:
    """How a tree node is drawn; the pass and evaluation views override parts."""

    def status(self, path, node):
        return None

    def rows(self, path, node) -> list[str]:
        rows = []
        detail = node_detail(node)
        if detail:
            rows.append(detail)
        t = type_text(node)
        if t and not node.is_literal or node.is_literal:
            rows.append(t)
        return rows

    def raw_rows(self, path, node) -> list[str]:
        return []

    def extra(self, path, node) -> dict | None:
        return None

    def edge_label(self, parent, path, index) -> str | None:
        role = arg_role(parent, index)
        return None if role is None else f"<{_small(role, '#6b7280')}>"

    def edge_style(self, path) -> dict:
        return {}

    def fold_rows(self, node, path, indices) -> int | None:
        """Rows the folded arguments at `indices` of `node` received (None: not counted)."""
        return None

    def edge_tooltip(self, parent, path, index) -> str:
        """What an edge says under the pointer: the parent and the argument's role."""
        role = arg_role(parent, index)
        return f"{node_title(parent)}: {role or f'argument {index}'}"

    def drawn(self, g, nid: str, path, node) -> None:
        """Called once a node is drawn as `nid`: a look may hang more on it."""


def _tip(text: str) -> str:
    """A tooltip attribute: graphviz takes it as is (no HTML label parsing)."""
    return graphviz_package.nohtml(dot_tooltip(text))


def _draw_tree(g, root: Expression, prefix: str, max_nodes: int, look: _Look,
               window: TreeWindow = _AUTO_WINDOW):
    """Draw breadth-first up to `max_nodes`; returns what it drew (`DrawnTree`).

    Only the window's subtree is drawn; what lies below its depth is folded (a deep
    tree's by default), and so are the middle arguments of a wide node and the rest
    of a long and/or chain (see `wide_nodes`): what is drawn, not the size of the
    tree, sets the cost.
    """
    start = window.start(root)
    sizes, levels = subtree_sizes(start)
    window = window.resolved(levels[id(start)])
    total = sizes[id(start)]
    ids: dict[tuple, str] = {}
    node_ids: dict[int, str] = {}  # id(expression node) -> its first drawing
    queue = deque([(window.focus, start, None, window.span)])
    cut: dict[tuple, list] = {}
    folded: list[tuple] = []
    chain_links: dict[tuple, int] = {}  # path -> links of its and/or chain above it
    spines: dict[tuple, str] = {}  # path -> the group of the run it is a link of (`spines`)
    runs = 0  # runs drawn as a column so far: each its own group
    while queue:
        path, node, parent, span = queue.popleft()
        if isinstance(span, _Fold):  # the folded middle of a wide node
            _draw_folded_span(g, f"{prefix}fold{len(folded)}", ids[path], node, parent, path,
                              span, sum(sizes[id(node.args[i])] for i in span.indices), look)
            folded.append(path)
            continue
        place = chain_place(node, parent, path[-1] if path else 0,
                            chain_links.get(path[:-1], 0))
        spine = None
        if parent is not None and path[:-1] in spines and continues_run(node, parent, path[-1]):
            spine = spines[path[:-1]]
        elif starts_spine(node):
            spine, runs = f"{prefix}spine{runs}", runs + 1
        if parent is not None and node.args and (window.folds(path) or place.folded):
            _draw_folded(g, f"{prefix}fold{len(folded)}", ids[path[:-1]], parent, path, node,
                         sizes[id(node)], levels[id(node)], look, place.folded, spine)
            folded.append(path)
            continue
        if len(ids) >= max_nodes:
            cut.setdefault(path[:-1], []).append(node)
            continue
        chain_links[path] = place.links
        nid = f"{prefix}n{len(ids)}"
        ids[path] = nid
        node_ids.setdefault(id(node), nid)
        kind = node_kind(node)
        attrs = _style(kind, look.status(path, node), look.extra(path, node))
        if spine is not None:
            spines[path] = attrs["group"] = spine
        g.node(nid, label=_table(node_title(node), look.rows(path, node),
                                 look.raw_rows(path, node)),
               tooltip=_tooltip(node), **attrs)
        look.drawn(g, nid, path, node)
        if parent is not None:
            label = look.edge_label(parent, path, path[-1])
            attrs = look.edge_style(path)
            attrs["tooltip"] = _tip(look.edge_tooltip(parent, path, path[-1]))
            if label:
                attrs["label"] = label
            g.edge(ids[path[:-1]], nid, **attrs)
        for item in shown_args(node, span if path == window.focus else None):
            if isinstance(item, tuple):
                queue.append((path, node, parent, _Fold(*item)))  # parent: the node's own
            else:
                queue.append((path + (item,), node.args[item], node, None))
    for parent_path, nodes in cut.items():
        hidden = sum(sizes[id(n)] for n in nodes)
        sid = f"{prefix}more{len(ids)}_{len(parent_path)}"
        more = f"{hidden:,} more node{'' if hidden == 1 else 's'}"
        g.node(sid, label=_table(f"⋯ {more}", ["summarized"]), shape="note",
               style="dashed", color="#9ca3af", fontcolor="#6b7280", **{"class": "summary"},
               tooltip=_tip(f"{more}, not drawn: open a subtree (focus) or "
                            "fold (depth) to see them"))
        g.edge(ids[parent_path], sid, style="dashed", color="#9ca3af",
               tooltip=_tip(f"{more}, summarized"))
    return DrawnTree(len(ids), total, sum(sizes[id(n)] for nodes in cut.values() for n in nodes),
                     ids, node_ids, window)


class DrawnTree(NamedTuple):
    """What `_draw_tree` drew: how many nodes of how many, and where each one is."""

    drawn: int
    total: int
    summarized: int  # nodes past the budget, counted in summary boxes
    ids: dict  # path -> graphviz node id
    node_ids: dict  # id(expression node) -> the graphviz id of its first drawing
    window: TreeWindow  # the part drawn, its automatic depth resolved (for the caption)


@dataclass(frozen=True)
class _Fold:
    """The folded middle of a wide node: its arguments `first` to `last`."""

    first: int
    last: int

    @property
    def indices(self) -> range:
        return range(self.first, self.last + 1)


def _tooltip(node) -> str:
    """A node's tooltip: its subtree as text, which graphviz must not read as HTML."""
    return _tip(bounded_text(node, TOOLTIP_CHARS, short=True))


def _draw_folded(g, fid: str, parent_id: str, parent, path: tuple, node, size: int,
                 levels: int, look: _Look, chain: int = 0, spine: str | None = None) -> None:
    """One box for a folded subtree, in its place under its parent, with the path that opens it."""
    title = depth_fold_title(node, size, levels)
    if chain:  # the rest of an and/or chain: its links, and the terms they join
        title = chain_fold_title(node, chain, size)
    _fold_box(g, fid, title, [f"open: subtree {path_text(path)}"], _tooltip(node), spine)
    attrs = {"style": "dashed", "color": "#9ca3af",
             "tooltip": _tip(look.edge_tooltip(parent, path, path[-1]) + " (folded)")}
    label = look.edge_label(parent, path, path[-1])
    if label:
        attrs["label"] = label
    g.edge(parent_id, fid, **attrs)


def _draw_folded_span(g, fid: str, parent_id: str, node, parent, path: tuple, fold: _Fold,
                      size: int, look: _Look) -> None:
    """One box for a wide node's middle arguments: how many, their rows, the range to open."""
    count = fold.last - fold.first + 1
    title = f"⋯ {count:,} more {fold_noun(node, parent)}"
    rows = look.fold_rows(node, path, fold.indices)
    if rows is not None:
        title += f": {rows:,} rows"
    which = fold_range_text(node, parent, fold.first, fold.last)
    lines = [f"{which} · {size:,} nodes",
             f"open: subtree {span_text(path, fold.first, fold.last)}"]
    _fold_box(g, fid, title, lines,
              _tip(f"{title}, not drawn: {lines[-1]}"))
    g.edge(parent_id, fid, style="dashed", color="#9ca3af",
           tooltip=_tip(f"{node_title(node)}: {lines[0]} (folded)"))


def _fold_box(g, fid: str, title: str, lines: list[str], tooltip,
              spine: str | None = None) -> None:
    """A folded box; in the column of the run it ends when it is that run's next link."""
    attrs = {"class": "folded"} if spine is None else {"class": "folded", "group": spine}
    g.node(fid, label=_table(title, lines), shape="note", style="dashed", color="#9ca3af",
           fontcolor="#4b5563", tooltip=tooltip, **attrs)


def _window_lines(window: TreeWindow) -> list[str]:
    """Caption lines saying which part of the tree a picture shows."""
    lines = []
    if window.span is not None:
        lines.append(f"arguments {window.span[0]}–{window.span[1]} of the node at "
                     f"{path_text(window.focus)}")
    elif window.focus:
        lines.append(f"the subtree at {path_text(window.focus)}")
    if window.levels is not None:  # folded by default, the tree being this deep
        lines.append(f"{window.levels:,} levels deep: its top {window.depth} levels drawn, "
                     "the rest folded (▸)")
        lines.append('a box opens with focus="<the path it names>"; every level, depth=None')
    elif window.depth is not None:
        lines.append(f"open to depth {window.depth}; deeper subtrees folded (▸)")
    return lines


# -- one pass ---------------------------------------------------------------------
class _PassLook(_Look):
    def __init__(self, diff):
        self.diff = diff

    def status(self, path, node):
        s = self.diff.status_of(node)
        return None if s == "same" else s

    def rows(self, path, node):
        rows = super().rows(path, node)
        was = self.diff.was_text(node, 60)
        if self.diff.status_of(node) == "moved":
            rows.append("moved from another position")
        elif was is not None:
            rows.append("was: " + was)
        return rows

    def raw_rows(self, path, node):
        return [f'<FONT POINT-SIZE="9" COLOR="#9a3412"><B>⟲ {dot_text(rule)}</B></FONT>'
                for rule in self.diff.rules_of(node)]


def _draw_pass(g, event: PassEvent, prefix: str, max_nodes: int,
               window: TreeWindow = _AUTO_WINDOW) -> None:
    diff = diff_pass(event)
    root = event.after if isinstance(event.after, Expression) else event.before
    look = _PassLook(diff)
    shown = _draw_tree(g, root, prefix, max_nodes, look, window)
    removed_style = STATUS_STYLE["removed"]["color"]
    for i, (key, gone) in enumerate(diff.removed):
        gid = f"{prefix}gone{i}"
        g.node(gid, label=_table(bounded_text(gone, 60, short=True) if gone.args
                                 else node_title(gone),
                                 ["removed"]),
               tooltip=_tip("removed: " + bounded_text(gone, TOOLTIP_CHARS, short=True)),
               **_style(node_kind(gone), "removed"))
        anchor = shown.node_ids.get(key)
        if anchor is not None:
            g.edge(anchor, gid, style="dashed", color=removed_style, arrowhead="none",
                   tooltip=_tip("removed by the rewrite of this node"))
    for i, (key, calls) in enumerate(diff.removed_above.items()):
        anchor = shown.node_ids.get(key)
        if anchor is None or not calls:
            continue
        chain = " ▸ ".join(node_title(c) for c in calls[:6])
        if len(calls) > 6:
            chain += f" ▸ … {len(calls) - 6:,} more"
        gid = f"{prefix}above{i}"
        g.node(gid, label=_table(chain, ["removed above"]), **_style("call", "removed"),
               tooltip=_tip("removed above the node below it: " + chain))
        g.edge(gid, anchor, style="dashed", color=removed_style,
               tooltip=_tip("the node kept in the place of the calls removed above it"))
    lines = [step_title(event), *_window_lines(shown.window)]
    if diff.rule_counts:
        lines += _wrapped("rules: " + diff.rules_summary(), 100)
    _caption(g, lines, shown)
    if event.changed:
        _legend(g, prefix, diff.statuses())


def _wrapped(text: str, width: int, max_lines: int = 4) -> list[str]:
    """`text` cut at ", " into lines of about `width` characters (a caption stays narrow)."""
    lines: list[str] = []
    for part in text.split(", "):
        if lines and len(lines[-1]) + len(part) + 2 <= width:
            lines[-1] += ", " + part
        else:
            lines.append(part)
    if len(lines) > max_lines:
        lines = lines[:max_lines - 1] + [f"… {len(lines) - max_lines + 1:,} more lines"]
    return lines


def _legend(g, prefix: str, statuses: set[str] = frozenset()) -> None:
    always = ("changed", "added", "removed")
    entries = [(_swatch(KIND_STYLE["call"]), "unchanged")]
    for status, text in STATUS_LEGEND.items():
        if status in always or status in statuses:
            entries.append((_swatch({**KIND_STYLE["call"], **STATUS_STYLE[status]}), text))
    _legend_node(g, prefix, entries)


def _swatch(style: dict) -> str:
    """A legend cell drawn as the nodes it explains are: their fill, border and dashes."""
    width = "2" if float(style.get("penwidth", "1")) >= 2 else "1"
    dashed = ' STYLE="dashed"' if style.get("dashed") or "dashed" in style.get("style", "") \
        else ""
    return (f'<TD WIDTH="26" HEIGHT="14" FIXEDSIZE="TRUE" BGCOLOR="{style["fillcolor"]}" '
            f'COLOR="{style["color"]}" BORDER="{width}"{dashed}></TD>')


def _legend_node(g, prefix: str, entries: list[tuple[str, str]]) -> None:
    """One box listing (symbol cell, meaning) pairs: compact wherever graphviz puts it."""
    rows = "".join(f'<TR>{cell}<TD ALIGN="LEFT">{_small(text, "#111827", None)}</TD></TR>'
                   for cell, text in entries)
    label = ('<<TABLE BORDER="1" STYLE="rounded" COLOR="#9ca3af" CELLBORDER="0" '
             'CELLSPACING="3" CELLPADDING="1">'
             f'<TR><TD COLSPAN="2" ALIGN="LEFT">{_small("legend", "#4b5563", None)}</TD></TR>'
             f"{rows}</TABLE>>")
    # below the tree (the last rank), not beside its root: a legend there widens the
    # picture by its own width, and a notebook's output is narrower than a tree's leaves
    with g.subgraph(name=f"{prefix}legend_rank") as bottom:
        bottom.attr(rank="sink")
        bottom.node(f"{prefix}legend", label=label, shape="plain",
                    tooltip="legend: what the colors, strips and words of this picture mean",
                    **{"class": "legend"})


# -- one evaluation ---------------------------------------------------------------
class _EvalLook(_Look):
    def __init__(self, event: EvalEvent, root: Expression):
        self.event = event
        self.stats = {s.path: s for s in event.nodes}  # TreePaths: found by tuple, by value
        self.facts = error_facts(event.error)
        # path of the receiving child -> its branch selections, drawn as strips when the
        # edge is drawn: building a strip reads the branch's row indices
        self.branches: dict[tuple, list] = {}
        self.used: set[str] = set()  # the symbols this picture drew, for its legend
        for b in event.branches:
            self.branches.setdefault(branch_target(root, b), []).append(b)
        self._strips: dict[tuple, list] = {}
        self._nulls = NullRows(event)
        self._null_strips: dict[tuple, object] = {}

    def strips(self, path) -> list:
        """[(branch name, strip)] of the branches that hand their rows to the node at `path`."""
        if path not in self._strips:
            self._strips[path] = [(b.branch, strip_of(b.rows, b.total_rows, EDGE_CELLS))
                                  for b in self.branches.get(path, ())]
        return self._strips[path]

    def null_strip(self, path):
        """The strip of the rows the form at `path` gave null without a branch, if any:
        found for the forms drawn only (each reads its branches' rows)."""
        if path not in self._null_strips:
            null = self._nulls.at(path)
            self._null_strips[path] = (None if null is None
                                       else strip_of(null.rows, null.total_rows, EDGE_CELLS))
        return self._null_strips[path]

    def fold_rows(self, node, path, indices):
        return folded_rows(node, lambda i: self.branches.get(path + (i,), ()),
                           indices[0], indices[-1])

    def _failed(self, path) -> bool:
        return self.facts is not None and self.facts.path is not None and \
            tuple(self.facts.path) == path

    def _above_failure(self, path) -> bool:
        failed = self.facts.path if self.facts is not None else None
        return failed is not None and len(path) < len(failed) and tuple(failed[:len(path)]) == path

    def rows(self, path, node):
        rows = super().rows(path, node)
        stat = self.stats.get(path)
        if stat is not None:
            lines = rows_lines(stat, self.event.num_rows,
                               self.stats.get(path[:-1]) if path else None)
            if lines[0].startswith("computed on"):
                self.used.add("dense")
            rows.extend(lines)
            if stat.elapsed:
                rows.append(time_text(stat))
        elif self._above_failure(path):
            rows.append("did not finish")
        elif conditions_ran(node, path, self.stats):
            rows.append(CONDITIONS_RAN)
        elif not self._failed(path) and not node.is_literal:
            rows.append("not evaluated")
        return rows

    def drawn(self, g, nid, path, node):
        """A form's rows that got null from no branch: an edge with its strip to a null box."""
        null = self.null_strip(path) if node.is_call and node.name in NULL_BECAUSE else None
        if null is None or not node.is_call:
            return
        self.used.add("strip" if null.per_row else "density")
        because = NULL_BECAUSE.get(node.name, "no branch")
        g.node(f"{nid}null", label=_table(NULL_BRANCH, [because]), shape="note", style="dashed",
               color="#9ca3af", fontcolor="#4b5563", tooltip=_tip(f"rows given null: {because}"),
               **{"class": "null-rows"})
        g.edge(nid, f"{nid}null", label=f"<{_strip_html(f'{NULL_BRANCH} ({because})', null)}>",
               color=SELECTED, penwidth="1.5", style="dashed",
               tooltip=_tip(f"{node_title(node)}: {NULL_BRANCH} ({because}): {null.caption}"))

    def raw_rows(self, path, node):
        rows = []
        if self._failed(path):
            at = f" at row {self.facts.row}" if self.facts.row is not None else ""
            rows += [f'<FONT POINT-SIZE="10" COLOR="#7f1d1d"><B>✖ {dot_text(self.facts.kind)}'
                     f'{dot_text(at)}</B></FONT>',
                     f'<FONT POINT-SIZE="9" COLOR="#7f1d1d">{dot_text(self.facts.message)}</FONT>']
        return rows

    def extra(self, path, node):
        if node_kind(node) == "special":
            self.used.add("special")
        if self._failed(path):
            self.used.add("failed")
            return ERROR_STYLE
        if path not in self.stats and not node.is_literal \
                and not conditions_ran(node, path, self.stats):
            self.used.add("unfinished" if self._above_failure(path) else "skipped")
            return SKIPPED_STYLE
        return None

    def edge_label(self, parent, path, index):
        strips = self.strips(path)
        if not strips:
            return super().edge_label(parent, path, index)
        self.used.update("strip" if strip.per_row else "density" for _, strip in strips)
        rows = "".join(f"<TR><TD>{_strip_html(name, strip)}</TD></TR>" for name, strip in strips)
        return ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
                + rows + "</TABLE>>")

    def edge_tooltip(self, parent, path, index):
        strips = self.strips(path)
        if not strips:
            return super().edge_tooltip(parent, path, index)
        return f"{node_title(parent)}: " + "; ".join(f"{name}: {strip.caption}"
                                                      for name, strip in strips)

    def edge_style(self, path):
        if path in self.branches:
            return {"color": SELECTED, "penwidth": "1.5"}
        return {}


def _strip_html(name: str, strip) -> str:
    """A branch's name, its count, and its rows as a strip of colored cells."""
    if strip.per_row:
        colors = [SELECTED if c else UNSELECTED for c in strip.cells]
    else:
        colors = [density_color(c) for c in strip.cells]
    caption = f"{name}: {strip.caption}" + ("" if strip.per_row else " (density)")
    return ('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="1" CELLPADDING="0">'
            f'<TR><TD ALIGN="LEFT">{_small(caption, "#1e3a8a", None)}</TD></TR>'
            f'<TR><TD ALIGN="LEFT">{_cells_html(colors, 3 if len(colors) > 24 else 9)}</TD>'
            "</TR></TABLE>")


def _cells_html(colors: list[str], width: int) -> str:
    """A row of colored cells at their own size (a wider caption does not spread them)."""
    cells = "".join(f'<TD WIDTH="{width}" HEIGHT="9" FIXEDSIZE="TRUE" BGCOLOR="{c}"></TD>'
                    for c in colors) or f'<TD WIDTH="{width}" HEIGHT="9" FIXEDSIZE="TRUE"></TD>'
    total = max(1, len(colors)) * (width + 1) + 1
    return (f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="1" CELLPADDING="0" '
            f'FIXEDSIZE="TRUE" WIDTH="{total}" HEIGHT="11"><TR>{cells}</TR></TABLE>')


def _draw_eval(g, event: EvalEvent, prefix: str, max_nodes: int,
               window: TreeWindow = _AUTO_WINDOW) -> None:
    root = event.expr
    title = step_title(event) + (f" · {wall_text(event)}" if event.elapsed else "")
    facts = error_facts(event.error)
    if root is None:
        g.node(f"{prefix}n0", label=_table("evaluation", [title]), shape="note")
        return
    look = _EvalLook(event, root)
    shown = _draw_tree(g, root, prefix, max_nodes, look, window)
    lines = [title, *_window_lines(shown.window)]
    if facts is not None and (facts.path is None or tuple(facts.path) not in shown.ids):
        lines.append(facts.message)
    _caption(g, lines, shown)
    _eval_legend(g, prefix, look.used)


# what each symbol of an evaluation picture means, in the order a legend lists them
_EVAL_LEGEND = (
    ("special", "special form: runs each branch on the rows that reach it"),
    ("strip", "branch strip: a cell per row, blue where the branch took the row"),
    ("density", "density strip: each cell a stretch of rows, darker where more took it"),
    ("dense", "computed on … · used on …: ran on more rows than its value was used for"),
    ("skipped", "not evaluated: no row reached it"),
    ("unfinished", "did not finish: a node below it failed"),
    ("failed", "failed here, at the row it names"),
)


def _eval_symbol(key: str) -> str:
    """The legend cell of an evaluation symbol, drawn as the picture draws it."""
    if key == "special":
        return _swatch(KIND_STYLE["special"])
    if key in ("strip", "density"):
        colors = ([SELECTED, UNSELECTED, SELECTED, SELECTED, UNSELECTED] if key == "strip"
                  else [density_color(c) for c in (0.1, 0.4, 0.9, 0.6, 0.2)])
        return f'<TD ALIGN="LEFT">{_cells_html(colors, 4)}</TD>'
    if key == "dense":
        return "<TD></TD>"  # words, explained in their own column
    extra = {"failed": ERROR_STYLE, "skipped": SKIPPED_STYLE, "unfinished": SKIPPED_STYLE}[key]
    return _swatch({**KIND_STYLE["call"], **extra})


def _eval_legend(g, prefix: str, used: set[str]) -> None:
    """A legend of the symbols this evaluation picture uses (none: no legend)."""
    entries = [(_eval_symbol(key), text) for key, text in _EVAL_LEGEND if key in used]
    if entries and used - {"special"}:  # a hexagon alone needs no legend
        _legend_node(g, prefix, entries)


# -- invariant checks and plans ---------------------------------------------------
def _draw_invariant(g, check: InvariantCheck, prefix: str) -> None:
    subject = f"{prefix}subject"
    g.node(subject, label=_table("subject", [], [_small(str(check.subject), "#111827", 90)]),
           shape="box", style="rounded,filled", fillcolor="#f9fafb", color="#6b7280")
    verdict = "PASS" if check.passed else "FAIL"
    style = ({"fillcolor": "#dcfce7", "color": "#16a34a"} if check.passed
             else {"fillcolor": "#fecaca", "color": "#b91c1c"})
    rows = [f"[{check.level}] {check.name}"]
    if check.details:
        rows.append(check.details)
    if not check.passed and (check.expected is not None or check.actual is not None):
        rows += [f"expected: {check.expected}", f"actual: {check.actual}"]
    g.node(f"{prefix}verdict", label=_table(("✔ " if check.passed else "✖ ") + verdict, rows),
           shape="box", style="filled", penwidth="2", **style,
           **{"class": "verdict-pass" if check.passed else "verdict-fail"})
    g.edge(subject, f"{prefix}verdict", label=_html("checked"))


def _draw_plan(g, plan, prefix: str, statuses: dict[int, str]) -> dict[int, str]:
    """Root on top, inputs below; `statuses` colors nodes by their pre-order position."""
    ids: dict[int, str] = {}
    labels: dict[int, str] = {}
    for position, (_, node, parent) in enumerate(plan_nodes(plan)):
        nid = f"{prefix}p{position}"
        ids[position] = nid
        labels[position] = plan_label(node)
        schema = plan_schema_text(node)
        status = statuses.get(position)
        attrs = {"shape": "box", "style": "rounded,filled", "fillcolor": "#f0fdfa",
                 "color": "#0f766e", "class": "plan-node"}
        if status:
            attrs.update({k: v for k, v in STATUS_STYLE[status].items() if k != "dashed"})
            attrs["class"] = f"plan-node diff-{status}"
        g.node(nid, label=_table(labels[position], [schema] if schema else []),
               tooltip=_tip(labels[position] + (f" [{schema}]" if schema else "")), **attrs)
        if parent is not None:
            g.edge(ids[parent], nid, tooltip=_tip(f"{labels[position]}, input of "
                                                  f"{labels[parent]}"))
    return ids


def _draw_plan_rule(g, event: PlanRuleEvent, prefix: str) -> None:
    for side, plan in (("before", event.before), ("after", event.after)):
        sub = graphviz_package.Digraph(name=f"cluster_{prefix}{side}")
        sub.attr(label=f"<<B>{side}</B>>", style="rounded", color="#d1d5db")
        if is_plan(plan):
            statuses = ({i: "changed" for i in changed_positions(event)}
                        if side == "after" else {})
            _draw_plan(sub, plan, f"{prefix}{side}_", statuses)
        else:
            sub.node(f"{prefix}{side}_text", label=_table(side, [str(plan)]), shape="note")
        g.subgraph(sub)
    lines = [step_title(event)] + ([event.reason] if event.reason else [])
    g.attr(label="<" + "<BR/>".join(dot_text(x, limit=160) for x in lines) + ">")
