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


def test_the_folded_arguments_of_a_coalesce_count_each_row_once_in_text_and_dot():
    """`arg k` of a coalesce holds the rows that reached argument k, each row in every arg
    up to the one that gave its value: the folded box counts the rows its arguments gave
    a value to (it added the overlapping sets up, a row once per argument it passed)."""
    rng = np.random.default_rng(5)
    rows, n = 50_000, 40
    table = pa.table({f"f{i}": pa.array(rng.integers(0, 9, rows), mask=rng.random(rows) < 0.5)
                      for i in range(n)})
    _, event = _traced(tk.coalesce(*[tk.field(f"f{i}") for i in range(n)]), table)
    # the oracle: rows whose first valid argument is one of the folded ones, 4 to 37
    first_valid = np.full(rows, n)
    for i in reversed(range(n)):
        first_valid[pc.is_valid(table[f"f{i}"]).to_numpy(zero_copy_only=False)] = i
    folded = int(np.count_nonzero((first_valid >= 4) & (first_valid <= 37)))
    dot = tk.to_dot(event).source
    assert f"⋯ 34 more arguments: {folded:,} rows" in dot
    text = tk.to_text(event, color=False, width=120)
    assert f"⋯ 34 more arguments: {folded:,} rows" in text


def test_a_form_s_null_strip_is_drawn_at_the_scale_of_its_branch_strips():
    """40 rows: the branch strips on the edges are density strips of 32 cells; the strip
    of the rows a null condition gave null was a strip of 40 per-row cells beside them."""
    rng = np.random.default_rng(5)
    rows = 40
    table = pa.table({"k": pa.array(rng.random(rows) < 0.5, mask=rng.random(rows) < 0.2),
                      "b": rng.integers(0, 9, rows)})
    _, event = _traced(tk.if_else(tk.field("k"), tk.field("b") * 2, tk.field("b")), table)
    dot = tk.to_dot(event).source
    captions = re.findall(
        r">((?:null|then|else)[^<]*?): [\d,]+ of 40 rows \([\d.]+%\)( \(density\))?<", dot)
    assert {name.split(" ")[0] for name, _ in captions} == {"null", "then", "else"}
    assert len({density for _, density in captions}) == 1, captions  # all per-row or all density
    widths = re.findall(r'FIXEDSIZE="TRUE" WIDTH="(\d+)" HEIGHT="11"', dot)
    strips = [w for w in widths if w != "26"]  # the legend's small samples are 26 wide
    assert len(strips) == 3 and len(set(strips)) == 1, widths
