"""Rows computed and rows used read the same in text, SVG, the HTML report and the
selection view: one wording, thousands separators everywhere."""

import html

import numpy as np
import pyarrow as pa
import pytest
from render_helpers import needs_dot, svg_texts

import toolkit as tk
from widgets import SelectionView


@pytest.fixture(scope="module")
def dense_else():
    """`if(a != 0, 100 / a, coalesce(c * 2, 0))` on 100,000 rows: the else branch runs densely
    (an integer division can fail, so the then branch runs on its rows only)."""
    rng = np.random.default_rng(0)
    n = 100_000
    c = rng.integers(0, 100, n).astype(float)
    c[rng.random(n) < 0.1] = np.nan
    table = pa.table({"a": rng.integers(-1, 2, n), "c": pa.array(c, from_pandas=True)})
    with tk.trace() as t:
        tk.evaluate(tk.parse("if(a != 0, 100 / a, coalesce(c * 2, 0))").bind(table.schema), table)
    event = t.evaluations[-1]
    coalesce = next(s for s in event.nodes if tuple(s.path) == (2,))
    used = int((table["a"].to_numpy() == 0).sum())
    assert coalesce.rows == n and coalesce.used_rows == used and coalesce.how == "dense"
    return t, event, used


def test_text_and_selection_view_say_it_in_the_same_words(dense_else):
    _, event, used = dense_else
    line = f"computed on 100,000 (dense: cheaper than selecting) · used on {used:,}"
    lines = tk.to_text(event, color=False, width=200).splitlines()
    at = next(k for k, text in enumerate(lines)
              if text.endswith(f"computed on 100,000 · used on {used:,}"))
    assert lines[at + 1].strip() == "(dense: cheaper than selecting)"  # under its node
    assert html.escape(line) in SelectionView(event).nodes.value


@needs_dot
def test_the_svg_and_the_report_say_it_in_the_same_words(dense_else, tmp_path):
    trace, event, used = dense_else
    two_lines = [f"computed on 100,000 · used on {used:,}", "dense: cheaper than selecting"]
    texts = svg_texts(tk.to_svg(event))
    assert all(line in texts for line in two_lines)
    report = tk.write_report(trace, tmp_path / "r.html").read_text(encoding="utf-8")
    assert all(html.escape(line) in report for line in two_lines)
    assert "100000" not in report  # every count has its separators
