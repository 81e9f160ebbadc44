"""The standalone report: one step per pass, the evaluation, the checks; nothing to fetch."""

import html
import re
from html.parser import HTMLParser
from unittest import mock

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import HOSTILE, needs_dot

import toolkit as tk
from toolkit.passes import optimize
from toolkit.render import html_report
from toolkit.render.labels import visible
from toolkit.render.svg import MIN_FIT_SCALE


class _Page(HTMLParser):
    """Collects the elements, the attributes that could load something, and the text."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.loads: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "data", "action", "poster") and value \
                    and not value.startswith("#"):  # a link within the page loads nothing
                self.loads.append(value)

    def handle_data(self, data):
        self.text.append(data)


def _page(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


@pytest.fixture
def story(tmp_path):
    table = pa.table({"a": [0, 1, 2, 0, 5], "b": [1, 2, 3, 4, 5]})
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), tk.literal(1) - 1)
    with tk.trace() as t:
        optimized = optimize(expr, table.schema)
        tk.evaluate(optimized, table)
        with pytest.raises(tk.KernelError):
            tk.evaluate(optimized, table, mode="eager")
    return t


@needs_dot
def test_one_step_per_changing_pass_and_per_run_of_passes_that_changed_nothing(story, tmp_path):
    path = tk.write_report(story, tmp_path / "sub" / "report.html")
    text = path.read_text(encoding="utf-8")
    page = _page(text)
    # canonicalize | fold_constants (changed) | four more that changed nothing
    assert [e.changed for e in story.passes] == [False, True, False, False, False, False]
    assert text.count('<div class="step"') == 3
    assert "2. pass fold_constants: 1 rewrite" in text
    assert "3–6. 4 passes changed nothing: " in text
    assert page.tags.count("svg") >= 3 + len(story.evaluations)
    assert page.tags.count("script") == 1 and page.tags.count("link") == 0
    assert 'id="step-prev"' in text and 'id="step-next"' in text and "ArrowRight" in text
    assert "Content-Security-Policy" in text and "default-src 'none'" in text


@needs_dot
def test_nothing_is_loaded_from_the_network(story, tmp_path):
    text = tk.write_report(story, tmp_path / "r.html").read_text(encoding="utf-8")
    assert not re.search(r"https?://", text)
    assert _page(text).loads == []
    assert "@import" not in text and "url(" not in text


def test_summary_evaluation_and_failing_row(story, tmp_path):
    text = tk.write_report(story, tmp_path / "r.html").read_text(encoding="utf-8")
    summary = text[text.index('id="summary"'):text.index("</dl>")]
    assert "if_else" in summary and "passes" in summary and "failed" in summary
    assert text.count('class="evaluation"') == 2
    failing = re.findall(r'<tr class="failing">(.*?)</tr>', text)
    assert len(failing) == 1 and failing[0].startswith("<td>0</td>")  # row 0 divides by zero
    assert '<td class="branch">else</td>' in text and '<td class="branch">then</td>' in text



@pytest.mark.parametrize(("text", "shown"), [("a > 1", "(a &gt; 1)</code> (unchanged)"),
                                             ("1 + 2 < a", "→ <code>(a &gt; 3)</code>")])
def test_the_summary_shows_an_unchanged_expression_once(tmp_path, text, shown):
    with tk.trace() as t:
        optimize(tk.parse(text), pa.schema([("a", pa.int64())]))
    html = tk.write_report(t, tmp_path / "r.html").read_text(encoding="utf-8")
    row = re.search(r"<dt>optimized</dt><dd>(.*?)</dd>", html).group(1)
    assert shown in row and row.count("<code>") == (1 if "unchanged" in shown else 2)


def test_the_summary_keeps_a_large_expression_to_a_few_lines(tmp_path):
    schema = pa.schema([("x", pa.int64()), ("y", pa.float64())])
    conds = [(tk.field("x") < i, tk.literal(float(i))) for i in range(170)]
    big = tk.if_else(tk.field("x") != 0, tk.field("y") / tk.field("x"),
                     tk.case_when(conds, else_=tk.literal(0.0)))
    with tk.trace() as t:
        optimize(big, schema)
    page = tk.write_report(t, tmp_path / "r.html").read_text(encoding="utf-8")
    row = re.search(r"<dt>optimized</dt><dd><code>(.*?)</code>", page).group(1)
    assert len(html.unescape(row)) <= 300 and row.endswith("…")
    assert "cast(x, to double)" in row and "allow_int_overflow" not in row

def test_invariant_checks_are_listed(tmp_path):
    from toolkit import plan

    data = pa.table({"a": [1, 2, 3], "b": [4, 5, 6]})
    with tk.trace() as t:
        plan.optimize(plan.scan("t", data).filter(tk.field("a") > 1).project(
            [tk.field("a")], names=["a"]))
    text = tk.write_report(t, tmp_path / "r.html").read_text(encoding="utf-8")
    section = text[text.index('id="invariants"'):]
    assert section.count("✔ pass") == len(t.invariant_checks) > 0
    assert 'id="plan-rules"' in text


@needs_dot
def test_hostile_names_stay_text(tmp_path):
    table = pa.table({name: [1, 0] for name in HOSTILE})
    expr = tk.coalesce([tk.field(name) for name in HOSTILE[:4]])
    with tk.trace() as t:
        tk.evaluate(tk.if_else(tk.field(HOSTILE[0]) > 0, expr, 0), table)
    text = tk.write_report(t, tmp_path / "r.html").read_text(encoding="utf-8")
    page = _page(text)
    assert page.tags.count("script") == 1  # ours, never `<script>alert(1)`
    assert "<script>alert" not in text and "\x1b" not in text and "\u202e" not in text
    shown = "".join(page.text)
    for name in HOSTILE[:4]:
        assert visible(name) in shown


@settings(max_examples=30)
@given(st.text(min_size=1, max_size=16))
def test_any_name_is_escaped_in_the_text_report(name):
    table = pa.table({name: [1, 2]})
    with tk.trace() as t:
        tk.evaluate(tk.field(name) + 1, table)
    with mock.patch.object(html_report, "dot_available", lambda: False):  # the <pre> fallback
        text = html_report.report_html(t)
    page = _page(text)
    assert page.tags.count("script") == 1 and page.loads == []
    assert visible(name) in "".join(page.text)


def test_without_dot_the_trees_are_text(monkeypatch, story):
    monkeypatch.setattr(html_report, "dot_available", lambda: False)
    text = html_report.report_html(story)
    assert "<svg" not in text and "was not installed" in text
    assert text.count('<div class="step"') == len(html_report.pass_groups(story.passes)) == 3
    assert "├──" in text


def test_a_sampled_evaluation_shows_the_batch_row_numbers_in_the_report(tmp_path):
    import pyarrow as pa

    n = 30_000
    data = pa.table({"a": pa.array(range(n), pa.int64())})
    with tk.trace() as t:
        tk.evaluate(tk.parse(f"if(a > {n - 4}, a * 2, a)").bind(data.schema), data)
    html = tk.write_report(t, tmp_path / "sampled.html").read_text(encoding="utf-8")
    assert "rows of a sample of" in html and f"of the {n:,} rows" in html
    assert "<td>29,999</td>" in html  # the last then-row, under its own number
    assert "<td>59998</td>" in html or "<td>59,998</td>" in html  # and its value


def test_the_row_table_names_each_form_as_the_selection_view_does():
    table = pa.table({"a": [0, 1, 2, 0, 1]})
    with tk.trace() as t:
        tk.evaluate(tk.parse("if(a = 0, 9, coalesce(if(a = 1, 10, 20), 0))"), table)
    page = html_report.report_html(t)
    heads = re.findall(r"<th>([^<]*)</th>", page.split('class="data"')[1].split("</tr>")[0])
    assert heads == ["row", "a", "if a == 0", "coalesce(if_else((a == 1), 10…",
                     "if a == 1", "result"]
    assert "· marks a row that never reached a form" in page


@needs_dot
def test_a_wide_tree_in_the_report_keeps_readable_labels(tmp_path):
    """Fitted as in the notebook: never below MIN_FIT_SCALE (its box scrolls), not a sliver."""
    terms = " or ".join(f"a = {i}" for i in range(60))
    with tk.trace() as t:
        tk.evaluate(tk.parse(terms), pa.table({"a": list(range(100))}))
    page = tk.write_report(t, tmp_path / "wide.html").read_text(encoding="utf-8")
    styles = re.findall(r'<figure><div class="exprscope-picture" style="position:relative;'
                        r'width:max\(([\d.]+)pt, min\(100%, ([\d.]+)pt', page)
    assert styles and all(abs(float(floor) - float(natural) * MIN_FIT_SCALE) <= 1
                          for floor, natural in styles)


def test_a_many_branch_sample_keeps_the_row_table_short(tmp_path):
    n = 200_000  # large enough to be sampled
    table = pa.table({"x": pa.array([i % 250 for i in range(n)], pa.int64())})
    conds = [(tk.field("x") == i, tk.literal(f"b{i}")) for i in range(250)]
    with tk.trace() as t:
        tk.evaluate(tk.case_when(conds, else_=tk.literal("none")).bind(table.schema), table)
    page = tk.write_report(t, tmp_path / "r.html").read_text(encoding="utf-8")
    rows = page.count("<tr>") + page.count('<tr class="failing">')
    assert rows <= 125
    assert re.search(r"120 rows of a sample of [\d,]+ of the 200,000 rows \(the first, the "
                     r"first of [\d,]+ of the [\d,]+ branches\)", page)  # nothing failed


def test_contents_list_one_line_per_step_and_headings_name_the_expression(tmp_path):
    table = pa.table({"a": [0, 1, 2], "b": [1, 2, 3]})
    with tk.trace() as t:
        for name in ("a", "b"):
            tk.evaluate(tk.field(name) + 1, table)
    text = html_report.report_html(t)
    contents = text[text.index('id="contents"'):text.index("</nav>")]
    assert contents.count("<li>") == 2
    assert "<code>add_checked(a, 1)</code>" in contents and "add_checked(b, 1)" in contents
    headings = re.findall(r"<h3>(.*?)</h3>", text)
    assert headings[0].startswith("1. evaluate") and "add_checked(a, 1)" in headings[0]
    assert headings[1].startswith("2. evaluate") and "add_checked(b, 1)" in headings[1]
