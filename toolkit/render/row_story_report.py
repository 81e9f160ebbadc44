"""A row's story (or the stories of the rows a predicate picked) as a standalone HTML page:
the sentence, the inputs, the tree picture and a table of every node's value.

The page is a jinja2 template with autoescaping on (`templates/story_report.html.j2`,
its story section shared with the journey report): every value and expression from
the data is escaped by the template, never by hand; the inline SVG comes from
graphviz with its labels escaped by `dot_text`. It opens with no network.
"""

from __future__ import annotations

import jinja2
from markupsafe import Markup

from ..explain import RowStories, RowStory
from ..explain.value_text import value_text
from .svg import DotNotFound, dot_available, fitted, inline_svg, to_svg
from .text import to_text

__all__ = ["TEMPLATES", "story_figure", "story_report_html"]

TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("toolkit.render", "templates"),
    autoescape=True, undefined=jinja2.StrictUndefined)


def story_figure(obj) -> tuple[Markup | None, str]:
    """The picture of a story (or a journey) as inline SVG, None when `dot` cannot draw
    it; and its text, which the page shows instead then."""
    svg = None
    if dot_available():
        try:
            svg = Markup(fitted(inline_svg(to_svg(obj))))  # graphviz escaped each label
        except (DotNotFound, OSError):
            svg = None
    return svg, to_text(obj, color=False, width=100)


def story_report_html(obj: RowStory | RowStories, title: str, csp: str) -> str:
    stories = list(obj) if isinstance(obj, RowStories) else [obj]
    figures = [story_figure(story) for story in stories]
    matched = obj.matched if isinstance(obj, RowStories) else None
    return TEMPLATES.get_template("story_report.html.j2").render(
        title=title, csp=csp, stories=stories, pictures=[p for p, _ in figures],
        texts=[t for _, t in figures], matched=matched, matched_text=str(obj), value=value_text)
