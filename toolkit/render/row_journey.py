"""A row's journey through a plan, as terminal text and as a graphviz picture of the plan
with the row's path: the operators that kept it in green, the one that dropped it in
red with why, the rest of the plan grey.
"""

from __future__ import annotations

from ..explain import RowJourney, WhyNot
from ..explain.value_text import value_text
from ..support.visible_text import visible
from .labels import dot_text
from .row_story_dot import word_lines

__all__ = ["draw_journey", "draw_why_not", "journey_lines", "why_not_lines"]

_KEPT = {"fillcolor": "#dcfce7", "color": "#16a34a"}
_DROPPED = {"fillcolor": "#fee2e2", "color": "#dc2626", "penwidth": "2.2"}
_OTHER = {"fillcolor": "#f9fafb", "color": "#9ca3af", "fontcolor": "#6b7280"}


def _row_text(stop) -> str:
    return _first_row_text(stop.rows)


def _first_row_text(rows) -> str:
    if rows is None or rows.num_rows == 0:
        return ""
    first = rows.slice(0, 1)
    cells = [f"{visible(name)} = {value_text(first.column(i)[0], 24)}"
             for i, name in enumerate(first.column_names[:6])]
    more = " …" if first.num_columns > 6 else ""
    return "(" + ", ".join(cells) + more + ")"


def _kept_text(stop) -> str:
    """How many rows of the operator come from the row."""
    return f"{stop.count:,} row{'s' if stop.count != 1 else ''}"


def journey_lines(journey: RowJourney, paint) -> list[str]:
    lines = [paint(f"row {journey.row:,} of {visible(journey.relation)}", "title"),
             paint("why: ", "title") + journey.why, ""]
    for stop in journey.stops:
        mark = paint("✓", "pass") if stop.kept else paint("✗", "fail")
        count = _kept_text(stop) if stop.kept else "dropped"
        lines.append(f"{mark} {stop.operator}  {paint(count, 'dim')}")
        if stop.kept and stop.rows is not None:
            lines.append("    " + paint(_row_text(stop), "dim"))
        if stop.note:
            lines.append("    " + stop.note)
        if stop.kept and stop.partners is not None and stop.partners.rows is not None:
            lines.append("    " + paint(f"first partner: {_first_row_text(stop.partners.rows)}",
                                        "dim"))
        partner = stop.partners.partner_journey if stop.partners else None
        if partner is not None:
            lines.append("    " + paint(f"partner row {partner.row:,} of "
                                        f"{visible(partner.relation)}: {partner.why}", "dim"))
    return lines


def why_not_lines(result: WhyNot, paint) -> list[str]:
    lines = [paint(f"why not {result.predicate}", "title"), result.why]
    for journey in result:
        lines.append("")
        lines.extend(journey_lines(journey, paint))
    return lines


def draw_journey(g, journey: RowJourney, prefix: str = "") -> None:
    plan = journey.plan
    stops = {s.at: s for s in journey.stops}
    stack = [(plan, None, ())]
    k = 0
    while stack:
        node, parent, place = stack.pop()
        node_id = f"{prefix}p{k}"
        k += 1
        label = visible(node.label())
        stop = stops.get(place)
        attrs = {"shape": "box", "style": "rounded,filled"}
        rows = [f"<TR><TD><B>{dot_text(line, None)}</B></TD></TR>"  # wrapped at words
                for line in word_lines(label, 70, most=3)]
        if stop is None:
            attrs.update(_OTHER)
        else:
            attrs.update(_KEPT if stop.kept else _DROPPED)
            said = f"kept: {_kept_text(stop)}" if stop.kept else "dropped here"
            rows.append(f'<TR><TD><FONT POINT-SIZE="10">{dot_text(said)}</FONT></TD></TR>')
            for line in ([_row_text(stop)] if stop.kept and stop.rows is not None else []) + \
                    word_lines(stop.note, 48, most=4):
                if line:
                    rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="#374151">'
                                f"{dot_text(line, 80)}</FONT></TD></TR>")
        g.node(node_id, label='<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" '
               'CELLPADDING="1">' + "".join(rows) + "</TABLE>>", **attrs)
        if parent is not None:
            g.edge(node_id, parent,
                   color="#16a34a" if stop is not None and stop.kept else "#9ca3af")
        for i in range(len(node.children) - 1, -1, -1):
            stack.append((node.children[i], node_id, place + (i,)))
    g.attr(label="<" + "<BR/>".join(dot_text(line, None) for line in
                                     word_lines(f"row {journey.row:,} of {journey.relation}: "
                                                f"{journey.why}", 100, 5)) + ">", labelloc="t")


def draw_why_not(g, result: WhyNot, graphviz) -> None:
    for k, journey in enumerate(list(result)[:4]):
        sub = graphviz.Digraph(name=f"cluster_j{k}")
        sub.attr(style="rounded", color="#9ca3af")
        draw_journey(sub, journey, f"j{k}_")
        g.subgraph(sub)
    g.attr(label=f"<{dot_text(result.why, 200)}>", labelloc="t")
