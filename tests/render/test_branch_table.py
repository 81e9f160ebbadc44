"""The branch each row took, answered once: the HTML report and the selection view agree."""

import re

import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk
from toolkit.render.branch_table import NOT_REACHED, BranchTable
from widgets.selection_rows import SelectionRows, form_key

A = [5, 0, -3, None, 7, 0, 2, -1]
TABLE = pa.table({"a": pa.array(A, pa.int64()), "b": pa.array(range(8), pa.int64())})
a, b = tk.field("a"), tk.field("b")
# the inner if_else only sees the rows where a > 0 is false
EXPR = tk.if_else(a > 0, b, tk.if_else(a == 0, tk.literal(100), b * 2))


def _event():
    with tk.trace() as t:
        tk.evaluate(EXPR, TABLE)
    return next(s for s in t.steps if isinstance(s, tk.observe.EvalEvent))


def _expected():
    """Per row: (outer branch, inner branch), worked out with pyarrow alone."""
    positive = pc.greater(TABLE["a"], 0).to_pylist()
    zero = pc.equal(TABLE["a"], 0).to_pylist()
    outer = ["then" if p else "null" if p is None else "else" for p in positive]
    # a null condition gives null without running either branch: the inner form is not reached
    inner = [("then" if z else "else") if p is False else NOT_REACHED
             for p, z in zip(positive, zero)]
    return outer, inner


def test_every_row_names_the_branch_of_every_form_it_took():
    table = BranchTable(_event())
    assert [f.name for f in table.forms] == ["if_else", "if_else"]  # outermost first
    answers = []
    for form in table.forms:
        names, codes = table.taken(form)
        answers.append([names[c] for c in codes])
    assert tuple(answers) == _expected()


def test_the_report_and_the_selection_view_give_the_same_answers(tmp_path):
    event = _event()
    rows = SelectionRows(event)
    page = rows.page(0, len(A))
    view = [tuple(record[form_key(f)] for f in rows.shown_forms) for record in page]
    with tk.trace() as t:
        tk.evaluate(EXPR, TABLE)
    html = tk.write_report(t, tmp_path / "r.html").read_text(encoding="utf-8")
    report = [tuple(re.findall(r'<td class="branch">([^<]*)</td>', line))
              for line in html.splitlines() if '<td class="branch">' in line]
    assert view == report == list(zip(*_expected()))
