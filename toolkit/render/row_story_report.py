"""A row's story (or the stories of the rows a predicate picked) as a standalone HTML page:
the sentence, the inputs, the tree picture and a table of every node's value.

The page is a jinja2 template with autoescaping on: every value and expression
from the data is escaped by the template, never by hand; the inline SVG comes
from graphviz with its labels escaped by `dot_text`. It opens with no network.
"""

from __future__ import annotations

import jinja2
from markupsafe import Markup

from ..explain import RowStories
from ..explain.value_text import value_text
from .svg import DotNotFound, dot_available, fitted, inline_svg, to_svg
from .text import to_text

__all__ = ["story_report_html"]

_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #111827; }
table.nodes { border-collapse: collapse; font-size: 13px; }
table.nodes td, table.nodes th { border: 1px solid #e5e7eb; padding: 2px 6px; text-align: left;
  vertical-align: top; }
tr.unreached td { color: #9ca3af; }
tr.decided td:first-child { border-left: 3px solid #dc2626; }
.why { font-size: 15px; max-width: 70em; }
code { white-space: pre-wrap; word-break: break-all; }
.picture { overflow-x: auto; }
</style></head><body>
<h1>{{ title }}</h1>
{% if matched is not none %}<p>{{ matched_text }}</p>{% endif %}
{% for s in stories %}
<section class="row-story" id="row-{{ s.row }}">
<h2>Row {{ "{:,}".format(s.row) }} of {{ "{:,}".format(s.num_rows) }}
 <small>({{ s.source }}, {{ s.mode }} mode)</small></h2>
<p>Expression: <code>{{ s.expression }}</code></p>
{% if s.evaluated_expression != s.expression %}
<p>Evaluated as: <code>{{ s.evaluated_expression }}</code></p>
<ul>{% for c in s.changes %}<li>{{ c.pass_name }} · {{ c.rule }}: <code>{{ c.written }}</code>
 → <code>{{ c.evaluated }}</code></li>{% endfor %}</ul>
{% endif %}
<p class="why"><b>Value:</b> <code>{{ value(s.value) }}</code><br><b>Why:</b> {{ s.why }}</p>
<p><b>Inputs:</b> {% for k, v in s.inputs.items() %}<code>{{ k }} = {{ value(v) }}</code>
{% if not loop.last %} · {% endif %}{% endfor %}</p>
{% if pictures[loop.index0] %}<div class="picture">{{ pictures[loop.index0] }}</div>
{% else %}<pre>{{ texts[loop.index0] }}</pre>{% endif %}
<table class="nodes"><tr><th>path</th><th>node</th><th>value</th><th>branch</th><th>note</th></tr>
{% for n in s.nodes %}<tr class="{{ 'reached' if n.evaluated else 'unreached' }}
{{- ' decided' if n.decided else '' }}"><td>{{ n.path_text }}</td><td><code>{{ n.label }}</code></td>
<td><code>{{ value(n.value) if n.evaluated else 'not evaluated' }}</code></td>
<td>{{ n.branch or '' }}</td><td>{{ n.note }}</td></tr>
{% endfor %}</table>
</section>
{% endfor %}
</body></html>
"""

_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
_PAGE = _ENV.from_string(_TEMPLATE)


def story_report_html(obj, title: str, csp: str) -> str:
    stories = list(obj) if isinstance(obj, RowStories) else [obj]
    pictures, texts = [], []
    for story in stories:
        svg = None
        if dot_available():
            try:
                svg = Markup(fitted(inline_svg(to_svg(story))))  # graphviz escaped each label
            except (DotNotFound, OSError):
                svg = None
        pictures.append(svg)
        texts.append(to_text(story, color=False, width=100))
    matched = obj.matched if isinstance(obj, RowStories) else None
    return _PAGE.render(title=title, csp=csp, stories=stories, pictures=pictures, texts=texts,
                        matched=matched, matched_text=str(obj), value=value_text)


