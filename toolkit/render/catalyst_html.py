"""Catalyst's steps as a standalone HTML page: the summary, the comparison with Spark's
optimizedPlan, one section per step that changed the plan (its picture, Spark's checks,
the plans before and after as Spark prints them, the inner rules) and Spark's own times.

Self-contained like every exprscope report: inline SVG and CSS, no script, and a
Content-Security-Policy that fetches nothing; every text from Spark is escaped.
"""

from __future__ import annotations

from ..tracing.catalyst_steps import CatalystStep, CatalystSteps
from .catalyst_dot import plan_text_dot
from .labels import html_text
from .svg import dot_available, scrolling_picture, to_svg, to_svgs
from .text import to_text

__all__ = ["catalyst_report_html"]

PLAN_TEXT_LIMIT = 200_000  # a plan printed under a step: at most this many characters
MESSAGE_LIMIT = 4_000

_CSS = """
body{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#111827;
  margin:0 auto;max-width:1200px;padding:1.5rem}
h2{border-bottom:2px solid #e5e7eb;padding-bottom:.2rem;margin-top:2rem}
pre{font:12px ui-monospace,"DejaVu Sans Mono",Menlo,monospace;background:#f9fafb;
  border:1px solid #e5e7eb;padding:.6rem;overflow:auto;white-space:pre;max-height:24rem}
.summary{background:#f9fafb;border:1px solid #e5e7eb;padding:.6rem 1rem}
.meta{color:#6b7280}.ok{color:#15803d}.fail{color:#b91c1c;font-weight:600}
table{border-collapse:collapse}td,th{border-bottom:1px solid #e5e7eb;padding:2px 8px;
  text-align:left;vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:.5rem 0;border:1px solid #e5e7eb;padding:.4rem}
ol.contents li{margin:.1rem 0}
"""


def catalyst_report_html(trace: CatalystSteps, title: str, csp: str) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
             f"<title>{html_text(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html_text(title)}</h1>", _summary(trace)]
    if trace.note:
        for name, text in trace.explain_plans.items():
            shown = (f"<figure>{scrolling_picture(to_svg(plan_text_dot(text, name)))}</figure>"
                     if dot_available() and text.strip()
                     else f"<pre>{html_text(text, PLAN_TEXT_LIMIT)}</pre>")
            parts.append(f"<h2>{html_text(name)}</h2>{shown}")
        parts.append("</body></html>")
        return "\n".join(parts)
    if trace.steps:
        parts.append('<h2>Steps</h2><ol class="contents">')
        parts += [f'<li><a href="#step{i}">{html_text(s.rule)}</a> '
                  f'<span class="meta">{html_text(s.phase)} · {html_text(s.batch)} · iteration '
                  f'{s.iteration}{" · " + html_text(s.scope) if s.scope else ""}</span>'
                  f'{" <span class=fail>failed</span>" if s.failed else ""}</li>'
                  for i, s in enumerate(trace.steps, 1)]
        parts.append("</ol>")
    # every step's picture from one `dot` run
    pictures = to_svgs(trace.steps) if dot_available() else [None] * len(trace.steps)
    parts += [_step_html(i, s, svg) for i, (s, svg) in enumerate(zip(trace.steps, pictures), 1)]
    parts.append(_times(trace))
    parts.append(f"<h2>Final plan</h2><pre>{_plan(trace.final_plan)}</pre>")
    if trace.comparison.verdict != "equal":
        parts.append(f"<h2>Spark's optimizedPlan</h2><pre>{_plan(trace.optimized_plan)}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _summary(trace: CatalystSteps) -> str:
    rows = [f"<b>{html_text(trace.summary)}</b> · Spark {html_text(trace.spark_version)}"]
    if trace.note:
        rows.append(html_text(trace.note))
    else:
        rows.append(html_text(trace.comparison.statement, MESSAGE_LIMIT))
        rows.append(f"stepped in {trace.optimizer_seconds:.2f} s; Spark's own optimizer took "
                    f"{trace.spark_seconds:.2f} s on the same plan")
    if trace.excluded_rules:
        rows.append("excluded rules: " + html_text(", ".join(trace.excluded_rules)))
    rows += [f'<span class="meta">{html_text(note)}</span>'
             for note in (trace.known_calls_note, trace.checks_note) if note]
    rows.append(f"<details><summary>query</summary><pre>{_plan(trace.query)}</pre></details>")
    return '<div class="summary">' + "<br>".join(rows) + "</div>"


def _plan(text: str) -> str:
    return html_text(text, PLAN_TEXT_LIMIT)


def _picture_or_text(step: CatalystStep, svg: str | None) -> str:
    if svg is not None:
        return f"<figure>{scrolling_picture(svg)}</figure>"
    return f"<pre>{html_text(to_text(step, width=120, color=False), PLAN_TEXT_LIMIT)}</pre>"


def _step_html(number: int, step: CatalystStep, svg: str | None) -> str:
    head = (f'<h2 id="step{number}">{number}. {html_text(step.rule)}'
            f'{" (" + html_text(step.scope) + ")" if step.scope else ""}</h2>'
            f'<p class="meta">{html_text(step.phase)} · batch {html_text(step.batch)} · '
            f"iteration {step.iteration} · {step.elapsed * 1000:,.1f} ms · "
            f"{html_text(step.rule_class)}</p>")
    parts = [head]
    if step.error is not None:
        parts.append(f'<p class="fail">The rule threw:</p><pre>'
                     f"{html_text(step.error, MESSAGE_LIMIT)}</pre>")
    if step.checks:
        rows = "".join(
            f'<tr><td class="{"ok" if c.ok else "fail"}">{"✓" if c.ok else "✗"}</td>'
            f"<td>{html_text(c.name)}</td><td class=meta>{html_text(c.exprscope_name or '')}</td>"
            f"<td>{'' if c.ok else '<pre>' + html_text(c.message, MESSAGE_LIMIT) + '</pre>'}</td>"
            "</tr>" for c in step.checks)
        parts.append("<table><tr><th></th><th>Spark's check</th><th>exprscope's invariant</th>"
                     f"<th>Spark's message</th></tr>{rows}</table>")
    parts.append(_picture_or_text(step, svg))
    if step.substeps:
        items = "".join(f"<li>{html_text(s.title)}</li>" for s in step.substeps)
        parts.append(f"<details><summary>inside the rule: {len(step.substeps)} step"
                     f"{'s' if len(step.substeps) != 1 else ''}</summary><ol>{items}</ol>"
                     "</details>")
    parts.append(f"<details><summary>the plan before and after, as Spark prints it</summary>"
                 f"<pre>{_plan(step.before)}</pre><pre>{_plan(step.after)}</pre></details>")
    return "<section>" + "".join(parts) + "</section>"


def _times(trace: CatalystSteps) -> str:
    if not trace.rule_times:
        return ""
    rows = "".join(f"<tr><td>{html_text(t.rule)}</td><td class=num>{t.calls:,}</td>"
                   f"<td class=num>{t.effective:,}</td><td class=num>{t.seconds * 1000:,.2f}</td>"
                   "</tr>" for t in trace.rule_times)
    return ("<h2>Spark's own run: time per rule</h2><p class=meta>From Spark's "
            "QueryPlanningTracker over its own optimizer run on the same plan; nested subquery "
            "runs are counted under the same rule names.</p><table><tr><th>rule</th>"
            f"<th>calls</th><th>effective</th><th>ms</th></tr>{rows}</table>")
