"""`write_report(trace, path)`: the whole trace as ONE self-contained HTML file.

Everything is inline (SVG, CSS, a few lines of JS) and a Content-Security-Policy
forbids fetching anything, so the report opens from a mail attachment or a
laptop without network and shows the same as on the machine that wrote it.
Every piece of user text goes through `html.escape` (`labels.html_text`);
markup is only ever built from our own constants.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa

from ..model.expression import Expression
from ..model.scalar_values import value_text
from ..observe import EvalEvent, InvariantCheck, PassEvent
from ..scan import ScanExplanation
from ..tracing.catalyst_steps import CatalystSteps
from ..tracing.recorded_error import error_facts
from ..tracing.steps import step_title
from ..tracing.tracer import Trace
from .branch_table import NOT_REACHED, BranchTable, is_value_branch
from .catalyst_html import catalyst_report_html
from .dot import to_dot
from .dot_style import STATUS_STYLE
from .labels import MAX_FORM_COLUMNS, bounded_text, html_text, path_text
from .scan_html import scan_report_html
from .svg import DotNotFound, dot_available, fitted, inline_svg, to_svg
from .text import to_text
from .wide_nodes import folded_spans

__all__ = ["write_report", "report_html", "SELECTION_TABLE_ROWS"]

SELECTION_TABLE_ROWS = 40  # rows shown in an evaluation's selection table (plus the failing row)
_BRANCH_TABLE_ROWS = 120  # at most, with the rows each branch adds when the batch was sampled
_TEXT_LIMIT = 4000  # a pass's before and after, under "before and after as text"
_OPENED_SPANS = 4  # folded ranges of a picture drawn open below it (each a small picture)
_SUMMARY_LIMIT = 300  # an expression in the summary at the top: options as labels show them

_CSS = """
:root { --fg:#111827; --muted:#6b7280; --line:#e5e7eb; --accent:#2563eb; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 1200px; padding: 1.5rem; }
h1 { margin: 0 0 .3rem; } h2 { border-bottom: 2px solid var(--line); padding-bottom: .2rem;
       margin-top: 2.2rem; } h3 { margin: .6rem 0; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12px; }
pre { background: #f9fafb; border: 1px solid var(--line); padding: .6rem; overflow: auto;
      white-space: pre; max-height: 24rem; }
.summary { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem;
           background: #f9fafb; border: 1px solid var(--line); padding: .8rem 1rem; }
.summary dt { color: var(--muted); } .summary dd { margin: 0; }
.stepper { display: flex; gap: .8rem; align-items: center; margin: .8rem 0;
           position: sticky; top: 0; background: white; padding: .4rem 0; z-index: 2; }
.stepper button { font-size: 14px; padding: .3rem .9rem; cursor: pointer; }
.stepper .counter { font-weight: 600; } .hint { color: var(--muted); font-size: 12px; }
figure { margin: .5rem 0; overflow: auto; border: 1px solid var(--line); padding: .4rem;
         container-type: inline-size; }
.rewrites li { margin: .15rem 0; } .rule { font-family: ui-monospace, monospace; color: #9a3412; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .6rem; font-size: 12px; }
.badge.changed { background: CHANGED_FILL; color: CHANGED_LINE; }
.badge.same { background: #f3f4f6; color: var(--muted); }
.pass { color: #15803d; font-weight: 600; } .fail { color: #b91c1c; font-weight: 600; }
.error { background: #fef2f2; border-left: 4px solid #b91c1c; padding: .5rem .8rem; }
table.data { border-collapse: collapse; font-size: 12px; }
table.data th, table.data td { border: 1px solid var(--line); padding: .15rem .5rem;
                               text-align: left; }
table.data tr.failing td { background: #fee2e2; }
td.branch { font-family: ui-monospace, monospace; color: var(--accent); }
.gap td { text-align: center; color: var(--muted); }
.contents { columns: 2 28rem; font-size: 13px; } .contents code { color: var(--muted); }
h3 code { font-weight: normal; overflow-wrap: anywhere; }
"""

_JS = """
(function () {
  var steps = Array.prototype.slice.call(document.querySelectorAll('#passes .step'));
  var counter = document.getElementById('step-counter');
  if (!steps.length || !counter) return;
  var current = 0;
  function show(k) {
    current = Math.max(0, Math.min(steps.length - 1, k));
    steps.forEach(function (s, j) { s.hidden = j !== current; });
    counter.textContent = 'step ' + (current + 1) + ' of ' + steps.length + ': ' +
      steps[current].getAttribute('data-title');
    prev.disabled = current === 0;
    next.disabled = current === steps.length - 1;
  }
  var prev = document.getElementById('step-prev'), next = document.getElementById('step-next');
  prev.addEventListener('click', function () { show(current - 1); });
  next.addEventListener('click', function () { show(current + 1); });
  document.addEventListener('keydown', function (e) {
    if (e.target && /input|textarea|select/i.test(e.target.tagName)) return;
    if (e.key === 'ArrowLeft') { show(current - 1); e.preventDefault(); }
    if (e.key === 'ArrowRight') { show(current + 1); e.preventDefault(); }
  });
  Array.prototype.forEach.call(document.querySelectorAll('a[data-goto]'), function (a) {
    a.addEventListener('click', function () { show(+a.getAttribute('data-goto')); });
  });
  show(0);
})();
"""

_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:")


def write_report(trace: Trace, path, title: str = "exprscope report") -> Path:
    """Write the report of a trace or a scan explanation; returns its path (folders made
    as needed)."""
    if isinstance(trace, ScanExplanation):
        page = scan_report_html(trace, title, _CSP)
    elif isinstance(trace, CatalystSteps):
        page = catalyst_report_html(trace, title, _CSP)
    else:
        page = report_html(trace if isinstance(trace, Trace) else Trace(list(trace)), title)
    target = Path(os.fspath(path))
    if target.parent and not target.parent.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target


def report_html(trace: Trace, title: str = "exprscope report") -> str:
    passes = trace.passes
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html_text(title)}</title>",
             "<style>" + _CSS.replace("CHANGED_FILL", STATUS_STYLE["changed"]["fillcolor"])
             .replace("CHANGED_LINE", STATUS_STYLE["changed"]["color"]) + "</style>",
             "</head><body>", f"<h1>{html_text(title)}</h1>", _summary(trace)]
    if not dot_available():
        parts.append('<p class="hint">graphviz\'s <code>dot</code> was not installed when this '
                     "report was written: trees are shown as text.</p>")
    evals = trace.evaluations
    parts.append(_contents(passes, evals, trace.plan_rules))
    parts.append(_passes_section(passes))
    if evals:
        parts.append('<section id="evaluations"><h2>Evaluation</h2>')
        parts += [_eval_html(i, e) for i, e in enumerate(evals)]
        parts.append("</section>")
    parts.append(_invariants_section(trace.invariant_checks))
    rules = trace.plan_rules
    if rules:
        parts.append('<section id="plan-rules"><h2>Plan optimizer rules</h2>')
        for i, event in enumerate(rules):  # only the rules that changed the plan get a picture
            figure = _figure(event) if event.changed else ""
            parts.append(f'<div class="plan-rule" id="plan-rule-{i}"><h3>{i + 1}. '
                         f"{html_text(step_title(event))}</h3>{figure}</div>")
        parts.append("</section>")
    parts.append("<script>" + _JS + "</script></body></html>")
    return "\n".join(parts)


# -- pieces -----------------------------------------------------------------------
def _figure(obj) -> str:
    """The SVG of `obj`, or its text picture when `dot` is missing or fails; each range of
    a wide node's arguments that the picture folded opens below it, drawn on its own."""
    if dot_available():
        try:
            graph = to_dot(obj)
            out = [f"<figure>{fitted(inline_svg(to_svg(graph)))}</figure>"]
            for focus in folded_spans(graph.source)[:_OPENED_SPANS]:
                opened = fitted(inline_svg(to_svg(obj, focus=focus)))
                out.append(f"<details><summary>open the folded arguments {html_text(focus)}"
                           f"</summary><figure>{opened}</figure></details>")
            return "".join(out)
        except (DotNotFound, OSError, RuntimeError):
            pass
    lines = to_text(obj, color=False).splitlines()
    return "<figure><pre>" + "\n".join(html_text(line) for line in lines) + "</pre></figure>"


def _expr_text(expr, limit: int = _TEXT_LIMIT, short: bool = False) -> str:
    if not isinstance(expr, Expression):
        return "" if expr is None else str(expr)
    return bounded_text(expr, limit, short=short)


def _summary_code(expr) -> str:
    return f"<code>{html_text(_expr_text(expr, _SUMMARY_LIMIT, short=True))}</code>"


def _summary(trace: Trace) -> str:
    rows: list[tuple[str, str]] = []
    passes = trace.passes
    evals = trace.evaluations
    for first, last, count in _optimize_runs(passes):
        before = _summary_code(first.before)
        after = "(unchanged)" if last.after is first.before else f"→ {_summary_code(last.after)}"
        rows.append(("optimized", f'{before} {after} <span class="hint">{count} passes</span>'))
    if passes:
        changed = sum(1 for p in passes if p.changed)
        rewrites = sum(len(p.rewrites) for p in passes)
        rows.append(("passes", html_text(f"{len(passes)} run, {changed} changed the tree, "
                                         f"{rewrites} rewrites")))
    elif evals and evals[0].expr is not None:
        rows.append(("expression", _summary_code(evals[0].expr)))
    for e in evals:
        facts = error_facts(e.error)
        outcome = ('<span class="pass">ok</span>' if facts is None else
                   f'<span class="fail">failed</span>: {html_text(facts.message)}')
        rows.append((f"evaluation ({html_text(e.mode)})",
                     f"{e.num_rows:,} rows, {e.elapsed * 1000:.1f} ms: {outcome}"))
    checks = trace.invariant_checks
    if checks:
        failed = sum(1 for c in checks if not c.passed)
        verdict = (f'<span class="fail">{failed} failed</span>' if failed
                   else '<span class="pass">all passed</span>')
        rows.append(("invariant checks", f"{len(checks)} run: {verdict}"))
    if not rows:
        rows.append(("trace", "nothing was recorded"))
    items = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
    return f'<dl class="summary" id="summary">{items}</dl>'


def _optimize_runs(passes: list[PassEvent]) -> list[tuple[PassEvent, PassEvent, int]]:
    """Consecutive passes that hand their result on (one `optimize` call): first, last, count.

    Passes return the very object they were given when nothing changed, so a
    run continues exactly while each pass starts from the previous one's result.
    """
    runs: list[list[PassEvent]] = []
    for event in passes:
        if runs and event.before is runs[-1][-1].after:
            runs[-1].append(event)
        else:
            runs.append([event])
    return [(run[0], run[-1], len(run)) for run in runs]


def pass_groups(passes: list[PassEvent]) -> list[tuple[int, list[PassEvent]]]:
    """The passes as steps a person reads: each pass that changed the tree alone, each run
    of passes that changed nothing as one; with the index of its first pass."""
    groups: list[tuple[int, list[PassEvent]]] = []
    for i, event in enumerate(passes):
        if not event.changed and groups and not groups[-1][1][-1].changed \
                and groups[-1][1][-1].after is event.before:
            groups[-1][1].append(event)
        else:
            groups.append((i, [event]))
    return groups


def _numbers(start: int, count: int) -> str:
    return f"{start + 1}" if count == 1 else f"{start + 1}–{start + count}"


def _group_title(start: int, group: list[PassEvent]) -> str:
    """`3. pass fold_constants: 2 rewrites` or `4–9. 6 passes changed nothing: a, b, …`."""
    if len(group) == 1:
        return f"{start + 1}. {step_title(group[0])}"
    names = ", ".join(dict.fromkeys(e.name for e in group))
    return f"{_numbers(start, len(group))}. {len(group)} passes changed nothing: {names}"


def _step_expr(event) -> str:
    """The expression a step works on, cut as the summary cuts it."""
    tree = event.after if isinstance(event, PassEvent) else event.expr
    return _expr_text(tree, 80, short=True) if isinstance(tree, Expression) else ""


def _contents(passes: list[PassEvent], evals: list[EvalEvent], rules) -> str:
    """One line per step, naming its expression; a pass step's link opens it in the stepper."""
    items = []
    for k, (start, group) in enumerate(pass_groups(passes)):
        title = html_text(_group_title(start, group))
        items.append(f'<li><a href="#passes" data-goto="{k}">{title}'
                     f"</a> <code>{html_text(_step_expr(group[-1]))}</code></li>")
    for i, event in enumerate(evals):
        items.append(f'<li><a href="#evaluation-{i}">{html_text(step_title(event))}</a> '
                     f"<code>{html_text(_step_expr(event))}</code></li>")
    for i, event in enumerate(rules):
        items.append(f'<li><a href="#plan-rule-{i}">{html_text(step_title(event))}</a></li>')
    if not items:
        return ""
    return f'<nav id="contents"><h2>Contents</h2><ol class="contents">{"".join(items)}</ol></nav>'


def _passes_section(passes: list[PassEvent]) -> str:
    out = ['<section id="passes"><h2>Optimization passes</h2>']
    if not passes:
        out.append("<p>No pass ran in this trace.</p></section>")
        return "\n".join(out)
    out.append('<div class="stepper"><button id="step-prev" type="button">◀ previous</button>'
               '<span class="counter" id="step-counter"></span>'
               '<button id="step-next" type="button">next ▶</button>'
               '<span class="hint">or use the ← → keys</span></div>')
    drawn: dict[int, str] = {}  # id(tree) -> the picture of a pass that left it unchanged
    for k, (start, group) in enumerate(pass_groups(passes)):
        event = group[0]
        title = _group_title(start, group)
        expr = f" <code>{html_text(_step_expr(group[-1]))}</code>"
        if event.changed:
            badge = '<span class="badge changed">changed</span>'
            figure = _figure(event)
        else:  # the tree as it stands, drawn once however many passes left it so
            badge = '<span class="badge same">no change</span>'
            figure = drawn.get(id(event.after))
            if figure is None:
                figure = drawn[id(event.after)] = _figure(event)
        items = "".join(
            f'<li><span class="rule">{html_text(r.rule)}</span> '
            f'{html_text("at " + path_text(r.path))}: '
            f"{html_text(r.reason)}</li>" for r in event.rewrites)
        rewrites = f'<ul class="rewrites">{items}</ul>' if items else ""
        text = (f"<details><summary>before and after as text</summary>"
                f"<pre>before: {html_text(_expr_text(event.before, short=True))}\n"
                f"after:  {html_text(_expr_text(event.after, short=True))}</pre></details>"
                if event.changed else "")
        out.append(
            f'<div class="step" data-step="{k}" data-title="{html_text(title.partition(". ")[2])}"'
            f'{" hidden" if k else ""}>'
            f"<h3>{html_text(title)} {badge}{expr}</h3>{rewrites}{figure}{text}</div>")
    out.append("</section>")
    return "\n".join(out)


def _eval_html(index: int, event: EvalEvent) -> str:
    expr = _step_expr(event)
    out = [f'<div class="evaluation" id="evaluation-{index}">'
           f"<h3>{index + 1}. {html_text(step_title(event))}"
           + (f" <code>{html_text(expr)}</code>" if expr else "") + "</h3>"]
    facts = error_facts(event.error)
    if facts is not None:
        out.append(f'<div class="error"><b>{html_text(facts.kind)}</b>: '
                   f"{html_text(facts.message)}</div>")
    out.append(_figure(event))
    table = _selection_table(event, facts)
    if table:
        out.append(table)
    out.append("</div>")
    return "\n".join(out)


def _branch_sample_rows(event: EvalEvent, sample: list[int], n: int
                        ) -> tuple[list[int], int, int]:
    """Rows of the kept sample to show: the first ones, then each branch's first row, then
    its next two, until the table holds `_BRANCH_TABLE_ROWS`; how many branches got a row,
    of those with a row in the sample. A 250-branch `case_when` would otherwise make a
    table of 750 rows."""
    shown = dict.fromkeys(range(min(n, SELECTION_TABLE_ROWS // 2)))
    where = {row: k for k, row in enumerate(sample)}
    firsts = [[where[r] for r in b.first(3).to_pylist() if r in where]
              for b in event.branches if is_value_branch(b)]
    covered, having = 0, sum(1 for rows in firsts if rows)
    for rank in range(3):
        for rows in firsts:
            if len(shown) >= _BRANCH_TABLE_ROWS:
                return sorted(shown), covered, having
            if rank < len(rows):
                covered += rank == 0  # its first row is shown
                shown.setdefault(rows[rank])
    return sorted(shown), covered, having


def _selection_table(event: EvalEvent, facts) -> str:
    """The first rows (and the failing one): input values, the branch each form took, result."""
    data = event.data
    if not isinstance(data, (pa.Table, pa.RecordBatch)) or data.num_rows == 0:
        return ""
    n = data.num_rows
    # a large batch keeps a sample: kept row k is batch row sample[k]
    sample = event.sample.to_pylist() if event.sample is not None else None
    row_of = (lambda k: sample[k]) if sample is not None else (lambda k: k)
    shown = list(range(min(n, SELECTION_TABLE_ROWS)))
    covered = having = 0
    if sample is not None:  # the first rows, and a few of each branch's (wherever they are)
        shown, covered, having = _branch_sample_rows(event, sample, n)
    failing = facts.row if facts is not None else None
    at = failing if sample is None else (sample.index(failing) if failing in sample else None)
    if at is not None and 0 <= at < n and at not in shown:
        shown += [k for k in range(max(0, at - 2), min(n, at + 3)) if k not in shown]
    table = BranchTable(event)  # the same answer the notebook's selection view gives
    forms = table.forms[:MAX_FORM_COLUMNS]  # the outermost forms
    taken = [table.taken(form) for form in forms]
    used = []
    if isinstance(event.expr, Expression):
        used = [r.name for r in event.expr.field_refs() if r.name in data.schema.names]
    columns = list(dict.fromkeys(used))[:8] or data.schema.names[:8]
    result = event.result
    head = ["row"] + columns + [f"{f.name} {path_text(f.path)}" for f in forms]
    head += ["result"] if isinstance(result, (pa.Array, pa.ChunkedArray)) else []
    lines = ['<details open><summary>rows, the branch each took, and the result</summary>',
             '<table class="data"><tr>' + "".join(f"<th>{html_text(h, 40)}</th>" for h in head)
             + "</tr>"]
    previous = None
    for k in shown:
        r = row_of(k)
        if previous is not None and r != previous + 1:
            lines.append(f'<tr class="gap"><td colspan="{len(head)}">⋯</td></tr>')
        previous = r
        cells = [f"{r:,}"] + [_cell(data.column(c)[k]) for c in columns]
        branch_cells = [names[codes[r]] for names, codes in taken]
        row_class = ' class="failing"' if r == failing else ""
        html_cells = "".join(f"<td>{html_text(c, 60)}</td>" for c in cells)
        html_cells += "".join(f'<td class="branch">{html_text(c, 60)}</td>' for c in branch_cells)
        if isinstance(result, (pa.Array, pa.ChunkedArray)) and k < len(result):
            html_cells += f"<td>{html_text(_cell(result[k]), 60)}</td>"
        lines.append(f"<tr{row_class}>{html_cells}</tr>")
    lines.append("</table>")
    if len(table.forms) > len(forms):
        lines.append(f'<p class="hint">Branch columns for the {len(forms)} outermost special '
                     f"forms; {len(table.forms) - len(forms):,} more forms lie deeper. "
                     f"{NOT_REACHED} marks a row that never reached a form.</p>")
    elif forms:
        lines.append(f'<p class="hint">{NOT_REACHED} marks a row that never reached a form; '
                     "null, a row no branch gave a value.</p>")
    if sample is not None:
        branches = ("every branch" if covered == having
                    else f"{covered:,} of the {having:,} branches")
        failed = ", the failing one" if failing is not None else ""
        lines.append(f'<p class="hint">{len(shown)} rows of a sample of {n:,} of the '
                     f"{event.num_rows:,} rows (the first, the first of {branches}"
                     f"{failed}).</p>")
    elif n > len(shown):
        lines.append(f'<p class="hint">{len(shown)} of {n:,} rows shown.</p>')
    lines.append("</details>")
    return "\n".join(lines)


def _cell(value) -> str:
    return "null" if value is None or (hasattr(value, "is_valid") and not value.is_valid) \
        else (value_text(value) if hasattr(value, "as_py") else str(value))


def _invariants_section(checks: list[InvariantCheck]) -> str:
    out = ['<section id="invariants"><h2>Invariant checks</h2>']
    if not checks:
        out.append("<p>No invariant was checked in this trace (plans check them).</p>")
    else:
        out.append('<table class="data"><tr><th>verdict</th><th>level</th><th>check</th>'
                   "<th>subject</th><th>details</th></tr>")
        for c in checks:
            verdict = '<span class="pass">✔ pass</span>' if c.passed else \
                '<span class="fail">✖ FAIL</span>'
            details = c.details
            if not c.passed and (c.expected is not None or c.actual is not None):
                details += f" (expected {c.expected}, actual {c.actual})"
            out.append(f"<tr><td>{verdict}</td><td>{html_text(c.level)}</td>"
                       f"<td>{html_text(c.name)}</td><td>{html_text(str(c.subject), 200)}</td>"
                       f"<td>{html_text(details, 400)}</td></tr>")
        out.append("</table>")
        failed = [c for c in checks if not c.passed]
        for c in failed[:10]:
            out.append(_figure(c))
    out.append("</section>")
    return "\n".join(out)
