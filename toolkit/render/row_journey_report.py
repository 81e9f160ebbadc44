"""A row's journey through a plan (or the journeys `why_not` found) as a standalone HTML
page: where the row was dropped and why, the plan with the row's path drawn, then
one entry per operator on the path with the row as it is there, its partners at a
join, and at a filter the predicate's story for the row (the story report's section).

The page is `templates/journey_report.html.j2` with autoescaping on: values from the
data reach it as plain text and are escaped by the template; only the pictures
graphviz drew are markup. It opens with no network.
"""

from __future__ import annotations

from typing import NamedTuple

import pyarrow as pa
from markupsafe import Markup

from ..explain import RowJourney, Stop, WhyNot
from ..explain.value_text import value_text
from ..support.visible_text import visible
from .row_story_report import TEMPLATES, story_figure

__all__ = ["journey_report_html"]

_SHOWN_COLUMNS = 12  # columns of a stop's rows shown; the rest are counted
_CELL_CHARS = 40  # a value in a stop's rows table


class _Rows(NamedTuple):
    """A few rows as a table: its column names, its cells, what was left out."""

    head: list[str]
    cells: list[list[str]]
    left_out: str


class _StoryPart(NamedTuple):
    """A filter's story for the row, with its picture (None: shown as text)."""

    story: object
    picture: Markup | None
    text: str


class _StopView(NamedTuple):
    kept: bool
    operator: str
    count: str  # "1 row", "3 rows", or "dropped here"
    note: str
    rows: _Rows | None
    partners: str  # what the join found for the row, in words
    partner_rows: _Rows | None
    partner_journey: str
    story: _StoryPart | None


class _JourneyView(NamedTuple):
    heading: str
    journey: RowJourney
    reads: str
    picture: Markup | None
    text: str
    stops: list[_StopView]


def journey_report_html(obj: RowJourney | WhyNot, title: str, csp: str) -> str:
    journeys = list(obj) if isinstance(obj, WhyNot) else [obj]
    views = [_journey_view(j) for j in journeys]
    why_not = obj if isinstance(obj, WhyNot) else None
    return TEMPLATES.get_template("journey_report.html.j2").render(
        title=title, csp=csp, journeys=views, why_not=why_not, value=value_text)


def _journey_view(journey: RowJourney) -> _JourneyView:
    picture, text = story_figure(journey)
    where = "kept" if journey.kept else f"dropped at {journey.dropped_at}"
    heading = f"Row {journey.row:,} of {visible(journey.relation)}: {where}"
    others = [r for r in journey.reads if r.relation != journey.relation or r.rows != 1]
    reads = ", ".join(f"{visible(r.relation)}: {r.rows:,} row{'s' if r.rows != 1 else ''}"
                      for r in journey.reads) if others else ""
    return _JourneyView(heading, journey, reads, picture, text,
                        [_stop_view(s) for s in journey.stops])


def _stop_view(stop: Stop) -> _StopView:
    count = (f"{stop.count:,} row{'s' if stop.count != 1 else ''} from the row" if stop.kept
             else "dropped here")
    partners, partner_rows, partner_journey = "", None, ""
    if stop.partners is not None and stop.partners.found:  # none: the note says why
        found = stop.partners
        keys = ", ".join(f"{visible(k)} = {value_text(v)}" for k, v in found.keys.items())
        partners = (f"{found.found:,} partner row{'s' if found.found != 1 else ''}"
                    + (f" with {keys}" if keys else ""))
        if found.why and found.why != stop.note:
            partners += f": {found.why}"
        partner_rows = _rows(found.rows)
    if stop.partners is not None and stop.partners.partner_journey is not None:
        p = stop.partners.partner_journey
        partner_journey = f"partner row {p.row:,} of {visible(p.relation)}: {p.why}"
    story, note = None, stop.note
    if stop.story is not None:
        picture, text = story_figure(stop.story)
        story = _StoryPart(stop.story, picture, text)
        if note == stop.story.why:  # the story below says it, beside its picture
            note = ""
    return _StopView(stop.kept, stop.operator, count, note,
                     _rows(stop.rows) if stop.kept else None, partners, partner_rows,
                     partner_journey, story)


def _rows(table: pa.Table | None) -> _Rows | None:
    """The first rows a stop keeps (at most 10, as the journey holds them) as text cells."""
    if table is None or table.num_rows == 0:
        return None
    names = table.column_names[:_SHOWN_COLUMNS]
    columns = [table.column(i) for i in range(len(names))]
    cells = [[value_text(column[r], _CELL_CHARS) for column in columns]
             for r in range(table.num_rows)]
    more = table.num_columns - len(names)
    left_out = f"{more:,} more column{'s' if more != 1 else ''} not shown" if more else ""
    return _Rows([visible(n) for n in names], cells, left_out)
