"""`write_report(trace, path)`: the whole trace as ONE self-contained HTML file.

Everything is inline (SVG, CSS, a few lines of JS) and a Content-Security-Policy
forbids fetching anything, so the report opens from a mail attachment or a
laptop without network and shows the same as on the machine that wrote it.
The page is `templates/report.html.j2`, rendered with autoescaping: every value
is escaped as text, and only the pictures exprscope drew (SVG) are marked safe.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import jinja2
import pyarrow as pa
from markupsafe import Markup

from ..explain import RowJourney, RowStories, RowStory, WhyNot
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
from .form_heads import form_heading, reading_order
from .labels import (
    MAX_FORM_COLUMNS,
    bounded_text,
    path_text,
    repeat_key,
    shorten,
    visible,
    wall_text,
)
from .row_journey_report import journey_report_html
from .row_story_report import story_report_html
from .scan_html import scan_report_html
from .svg import DotNotFound, dot_available, fitted, inline_svg, to_svg
from .text import to_text
from .wide_nodes import folded_spans

__all__ = ["SELECTION_TABLE_ROWS", "report_html", "write_report"]

SELECTION_TABLE_ROWS = 40  # rows shown in an evaluation's selection table (plus the failing row)
_BRANCH_TABLE_ROWS = 120  # at most, with the rows each branch adds when the batch was sampled
_TEXT_LIMIT = 4000  # a pass's before and after, under "before and after as text"
_OPENED_SPANS = 4  # folded ranges of a picture drawn open below it (each a small picture)
_SUMMARY_LIMIT = 300  # an expression in the summary at the top: options as labels show them
_FIRINGS_LISTED = 200  # firings of one rule listed under its bullet (the rest counted)

_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:")

_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("toolkit.render", "templates"),
    autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def write_report(trace: Trace, path, title: str = "exprscope report") -> Path:
    """Write the report of a trace, a scan explanation, a row's story or a row's journey
    through a plan (`why_not`'s journeys too); returns its path (folders made as needed)."""
    if isinstance(trace, ScanExplanation):
        page = scan_report_html(trace, title, _CSP)
    elif isinstance(trace, (RowStory, RowStories)):
        page = story_report_html(trace, title, _CSP)
    elif isinstance(trace, (RowJourney, WhyNot)):  # a WhyNot iterates its journeys, not steps
        page = journey_report_html(trace, title, _CSP)
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
    """The page: `templates/report.html.j2` filled with plain records; the template
    escapes every value, and only pictures exprscope drew are passed as markup."""
    number = {id(step): i + 1 for i, step in enumerate(trace.steps)}  # one numbering
    passes = trace.passes
    groups = pass_groups(passes)
    evals = trace.evaluations
    return _TEMPLATES.get_template("report.html.j2").render(
        title=_shown(title), csp=Markup(_CSP), dot=dot_available(),  # our own constant
        changed_fill=STATUS_STYLE["changed"]["fillcolor"],
        changed_line=STATUS_STYLE["changed"]["color"],
        summary=_summary(trace), contents=_contents(groups, evals, trace.plan_rules, number),
        passes=_pass_steps(groups, number), evaluations=[_evaluation(e, number) for e in evals],
        checks=[_check(c) for c in trace.invariant_checks],
        failed_figures=[_figure(c) for c in trace.invariant_checks if not c.passed][:10],
        plan_rules=[_PlanRuleStep(f"{number[id(r)]}. {_shown(step_title(r))}",
                                  _figure(r) if r.changed else "")
                    for r in trace.plan_rules],
        step_count=len(trace.steps))


# -- records the template reads ----------------------------------------------------
class _Row(NamedTuple):
    label: str
    value: Markup | str


class _ContentsItem(NamedTuple):
    href: str
    goto: int | None  # a pass step: its place in the stepper
    title: str
    expr: str


class _RuleGroup(NamedTuple):
    """The firings of one rule for one reason (their values aside): the first in full,
    the rest under a fold that names where they fired."""

    rule: str
    first: str
    more_title: str
    more: list[str]
    unlisted: str


class _PassStep(NamedTuple):
    title: str
    changed: bool
    expr: str
    rules: list[_RuleGroup]
    figure: Markup
    before: str
    after: str


class _TableRow(NamedTuple):
    gap: bool  # rows were left out above it
    failing: bool
    cells: list[str]
    branches: list[str]
    result: str | None


class _SelectionTable(NamedTuple):
    head: list[str]
    rows: list[_TableRow]
    hints: list[str]


class _ErrorLine(NamedTuple):
    kind: str
    message: str


class _EvalStep(NamedTuple):
    title: str
    expr: str
    error: _ErrorLine | None
    figure: Markup
    table: _SelectionTable | None


class _CheckRow(NamedTuple):
    passed: bool
    level: str
    name: str
    subject: str
    details: str


class _PlanRuleStep(NamedTuple):
    title: str
    figure: Markup | str


def _shown(text, limit: int | None = None) -> str:
    """Text as every printer shows it (control characters spelled out), cut at `limit`;
    the template escapes it."""
    text = visible(str(text))
    return text if limit is None else shorten(text, limit)


# -- pieces -----------------------------------------------------------------------
def _figure(obj) -> Markup:
    """The SVG of `obj`, or its text picture when `dot` is missing or fails; each range of
    a wide node's arguments that the picture folded opens below it, drawn on its own."""
    if dot_available():
        try:
            graph = to_dot(obj)
            out = [Markup("<figure>{}</figure>").format(
                Markup(fitted(inline_svg(to_svg(graph)))))]
            for focus in folded_spans(graph.source)[:_OPENED_SPANS]:
                opened = Markup(fitted(inline_svg(to_svg(obj, focus=focus))))
                out.append(Markup("<details><summary>open the folded arguments {}</summary>"
                                  "<figure>{}</figure></details>").format(_shown(focus), opened))
            return Markup("").join(out)
        except (DotNotFound, OSError, RuntimeError):
            pass
    lines = to_text(obj, color=False).splitlines()
    return Markup("<figure><pre>{}</pre></figure>").format("\n".join(_shown(x) for x in lines))


def _expr_text(expr, limit: int = _TEXT_LIMIT, short: bool = False) -> str:
    if not isinstance(expr, Expression):
        return "" if expr is None else str(expr)
    return bounded_text(expr, limit, short=short)


def _summary_code(expr) -> Markup:
    return Markup("<code>{}</code>").format(_shown(_expr_text(expr, _SUMMARY_LIMIT, short=True)))


def _summary(trace: Trace) -> list[_Row]:
    rows: list[_Row] = []
    passes = trace.passes
    evals = trace.evaluations
    for first, last, count in _optimize_runs(passes):
        after = (Markup("(unchanged)") if last.after is first.before
                 else Markup("→ {}").format(_summary_code(last.after)))
        rows.append(_Row("optimized", Markup('{} {} <span class="hint">{} passes</span>').format(
            _summary_code(first.before), after, count)))
    if passes:
        changed = sum(1 for p in passes if p.changed)
        rewrites = sum(len(p.rewrites) for p in passes)
        rows.append(_Row("passes", f"{len(passes)} run, {changed} changed the tree, "
                                   f"{rewrites} rewrites"))
    elif evals and evals[0].expr is not None:
        rows.append(_Row("expression", _summary_code(evals[0].expr)))
    for e in evals:
        facts = error_facts(e.error)
        outcome = (Markup('<span class="pass">ok</span>') if facts is None else
                   Markup('<span class="fail">failed</span>: {}').format(_shown(facts.message)))
        rows.append(_Row(f"evaluation ({_shown(e.mode)})", Markup("{} rows, {}: {}").format(
            f"{e.num_rows:,}", wall_text(e), outcome)))
    checks = trace.invariant_checks
    if checks:
        failed = sum(1 for c in checks if not c.passed)
        verdict = (Markup('<span class="fail">{} failed</span>').format(failed) if failed
                   else Markup('<span class="pass">all passed</span>'))
        rows.append(_Row("invariant checks", Markup("{} run: {}").format(len(checks), verdict)))
    if not rows:
        rows.append(_Row("trace", "nothing was recorded"))
    return rows


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


def _group_title(group: list[PassEvent], number: dict[int, int]) -> str:
    """`3. pass fold_constants: 2 rewrites` or `4–9. 6 passes changed nothing: a, b, …`,
    numbered by the trace's steps, as the contents and every other heading are."""
    first, last = number[id(group[0])], number[id(group[-1])]
    if len(group) == 1:
        return f"{first}. {_shown(step_title(group[0]))}"
    names = ", ".join(dict.fromkeys(_shown(e.name) for e in group))
    return f"{first}–{last}. {len(group)} passes changed nothing: {names}"


def _step_expr(event) -> str:
    """The expression a step works on, cut as the summary cuts it."""
    tree = event.after if isinstance(event, PassEvent) else event.expr
    return _shown(_expr_text(tree, 80, short=True)) if isinstance(tree, Expression) else ""


def _contents(groups, evals: list[EvalEvent], rules, number) -> list[_ContentsItem]:
    """One line per step, naming its expression; a pass step's link opens it in the stepper."""
    items = [_ContentsItem("#passes", k, _group_title(group, number), _step_expr(group[-1]))
             for k, (_, group) in enumerate(groups)]
    items += [_ContentsItem(f"#evaluation-{i}", None,
                            f"{number[id(e)]}. {_shown(step_title(e))}", _step_expr(e))
              for i, e in enumerate(evals)]
    items += [_ContentsItem(f"#plan-rule-{i}", None, f"{number[id(r)]}. {_shown(step_title(r))}",
                            "") for i, r in enumerate(rules)]
    return items


def rule_groups(rewrites) -> list[_RuleGroup]:
    """The firings of a pass, one bullet per rule and reason: a rule that fired at every
    branch of a 250-branch case_when is one bullet, its other firings folded under it
    with where each fired, not 250 nearly identical bullets."""
    grouped: dict[tuple[str, str], list] = {}
    for r in rewrites:
        grouped.setdefault(repeat_key(r.rule, r.reason), []).append(r)
    out = []
    for (rule, _), firings in grouped.items():
        first = firings[0]
        text = f"at {path_text(first.path)}: {_shown(first.reason)}"
        rest = firings[1:]
        listed = [f"at {path_text(r.path)}: {_shown(r.reason, 200)}"
                  for r in rest[:_FIRINGS_LISTED]]
        unlisted = (f"{len(rest) - len(listed):,} more firings" if len(rest) > len(listed)
                    else "")
        more_title = (f"and {len(rest):,} more firing{'s' if len(rest) != 1 else ''} "
                      f"of {_shown(rule)} for the same reason") if rest else ""
        out.append(_RuleGroup(_shown(rule), text, more_title, listed, unlisted))
    return out


def _pass_steps(groups, number) -> list[_PassStep]:
    drawn: dict[int, Markup] = {}  # id(tree) -> the picture of a pass that left it unchanged
    out = []
    for _, group in groups:
        event = group[0]
        if event.changed:
            figure = _figure(event)
        else:  # the tree as it stands, drawn once however many passes left it so
            figure = drawn.get(id(event.after))
            if figure is None:
                figure = drawn[id(event.after)] = _figure(event)
        out.append(_PassStep(
            _group_title(group, number), event.changed, _step_expr(group[-1]),
            rule_groups(event.rewrites), figure,
            _shown(_expr_text(event.before, short=True)) if event.changed else "",
            _shown(_expr_text(event.after, short=True)) if event.changed else ""))
    return out


def _evaluation(event: EvalEvent, number) -> _EvalStep:
    facts = error_facts(event.error)
    error = None if facts is None else _ErrorLine(_shown(facts.kind), _shown(facts.message))
    return _EvalStep(f"{number[id(event)]}. {_shown(step_title(event))}", _step_expr(event),
                     error, _figure(event), _selection_table(event, facts))


def _check(c: InvariantCheck) -> _CheckRow:
    details = c.details
    if not c.passed and (c.expected is not None or c.actual is not None):
        details += f" (expected {c.expected}, actual {c.actual})"
    return _CheckRow(c.passed, _shown(c.level), _shown(c.name), _shown(c.subject, 200),
                     _shown(details, 400))


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


def _selection_table(event: EvalEvent, facts) -> _SelectionTable | None:
    """The first rows (and the failing one): input values, the branch each form took, result."""
    data = event.data
    if not isinstance(data, (pa.Table, pa.RecordBatch)) or data.num_rows == 0:
        return None
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
    forms = reading_order(table.forms[:MAX_FORM_COLUMNS])  # the outermost forms
    taken = [table.taken(form) for form in forms]
    used = []
    if isinstance(event.expr, Expression):
        used = [r.name for r in event.expr.field_refs() if r.name in data.schema.names]
    columns = list(dict.fromkeys(used))[:8] or data.schema.names[:8]
    result = event.result
    has_result = isinstance(result, (pa.Array, pa.ChunkedArray))
    # each form named by what it is about (`or x > 3`, `if a != 0`), as the notebook does
    head = ["row"] + columns + [form_heading(f, table.node(f.path)).short for f in forms]
    head += ["result"] if has_result else []
    rows = []
    previous = None
    for k in shown:
        r = row_of(k)
        gap = previous is not None and r != previous + 1
        previous = r
        cells = [f"{r:,}"] + [_cell(data.column(c)[k]) for c in columns]
        value = _shown(_cell(result[k]), 60) if has_result and k < len(result) else None
        rows.append(_TableRow(gap, r == failing, [_shown(c, 60) for c in cells],
                              [_shown(names[codes[r]], 60) for names, codes in taken], value))
    hints = []
    if len(table.forms) > len(forms):
        hints.append(f"Branch columns for the {len(forms)} outermost special forms; "
                     f"{len(table.forms) - len(forms):,} more forms lie deeper. "
                     f"{NOT_REACHED} marks a row that never reached a form.")
    elif forms:
        hints.append(f"{NOT_REACHED} marks a row that never reached a form; null, a row no "
                     "branch gave a value.")
    if sample is not None:
        branches = ("every branch" if covered == having
                    else f"{covered:,} of the {having:,} branches")
        failed = ", the failing one" if failing is not None else ""
        hints.append(f"{len(shown)} rows of a sample of {n:,} of the {event.num_rows:,} rows "
                     f"(the first, the first of {branches}{failed}).")
    elif n > len(shown):
        hints.append(f"{len(shown)} of {n:,} rows shown.")
    return _SelectionTable([_shown(h, 40) for h in head], rows, hints)


def _cell(value) -> str:
    return "null" if value is None or (hasattr(value, "is_valid") and not value.is_valid) \
        else (value_text(value) if hasattr(value, "as_py") else str(value))
