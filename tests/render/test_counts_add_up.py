"""Every printer's branch counts add up to the rows that reached the form."""

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk
from toolkit.render.html_report import report_html

ROWS = 200_000


def _table(rows: int = ROWS) -> pa.Table:
    rng = np.random.default_rng(7)
    x = rng.integers(0, 100, rows)
    cond = pa.array(rng.random(rows) < 0.5, mask=rng.random(rows) < 0.2)
    return pa.table({"x": x, "c": cond})


def _case_when(whens: int, with_else: bool, step: int = 10) -> tk.Expression:
    x = tk.field("x")
    conds = [tk.less(x, tk.literal(step * (k + 1))) for k in range(whens)]
    struct = tk.call("make_struct", conds, pc.MakeStructOptions([str(k) for k in range(whens)]))
    values = [tk.literal(k) for k in range(whens)] + ([tk.literal(-1)] if with_else else [])
    return tk.call("case_when", [struct, *values])


def _traced(expr, table):
    with tk.trace() as t:
        tk.evaluate(expr, table)
    return t, t.steps[-1]


def test_if_else_null_conditions_have_a_strip_of_their_own_in_text_and_dot():
    table = _table()
    t, event = _traced(tk.call("if_else", [tk.field("c"), tk.field("x"), tk.literal(0)]), table)
    nulls = table["c"].null_count
    text = tk.to_text(t, color=False, width=200)
    found = re.search(r"\[null ▕.*▏ ([\d,]+) of 200,000 rows", text)
    assert found and int(found.group(1).replace(",", "")) == nulls
    then = pc.sum(pc.fill_null(table["c"], False)).as_py()
    assert "then ▕" in text and f"{then:,} of 200,000" in text
    assert "] a null condition" in text
    dot = tk.to_dot(event).source
    assert f"null (a null condition): {nulls:,} of 200,000 rows" in dot
    assert re.search(r"n0 -> n0null \[", dot) and "null-rows" in dot  # an edge of its own


def test_case_when_rows_no_when_matched_are_counted_and_conditions_say_what_reached_them():
    table = _table()
    t, event = _traced(_case_when(3, with_else=False), table)
    x = table["x"]
    unmatched = pc.sum(pc.greater_equal(x, 30)).as_py()
    text = tk.to_text(t, color=False, width=200)
    assert "] no when matched" in text and f"{unmatched:,} of 200,000 rows" in text
    # condition 2 is used on the rows condition 1 left: x >= 10
    reached = pc.sum(pc.greater_equal(x, 10)).as_py()
    second = {tuple(s.path): s for s in event.nodes}[(0, 1)]
    assert second.used == reached
    assert "not evaluated" not in text.split("\n")[4]
    assert "make_struct" in text and "ran one condition at a time" in text


def test_the_report_counts_whens_and_else_as_a_person_does():
    table = pa.table({"x": np.random.default_rng(3).integers(0, 260, 300_000)})
    t, _ = _traced(_case_when(250, with_else=True, step=1), table)
    found = re.search(r"the first of ([\d,]+) of the ([\d,]+) branches", report_html(t))
    assert found and found.group(2) == "251"
