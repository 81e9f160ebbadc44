"""A 250-branch step in the explorer: its folded branches open by range, its summary is short."""

import re

import numpy as np
import pyarrow as pa

import toolkit as tk
from widgets import Explorer


def _wide_trace(rows: int = 5_000):
    rng = np.random.default_rng(5)
    table = pa.table({"x": pa.array(rng.integers(0, 1000, rows), mask=rng.random(rows) < 0.2),
                      "y": rng.random(rows)})
    x, y = tk.field("x"), tk.field("y")
    with tk.trace() as t:
        tk.evaluate(tk.case_when([(x < 4 * (k + 1), y * k) for k in range(250)], else_=y), table)
    return t


def test_the_explorer_opens_a_folded_range_and_its_summary_agrees_with_the_picture():
    explorer = Explorer(_wide_trace())
    folded = re.search(r"⋯ 244 more branches: ([\d,]+) rows", explorer.tree.value).group(1)
    summary = explorer.selection_view.summary.value
    # the summary names the branches the picture draws and folds the same 244 with their rows
    assert f"… 244 more branches: {folded} rows" in summary
    assert len(re.findall(r"then \d+: ", summary)) == 6  # 0-3, 248 and 249
    assert "then 100:" not in summary
    explorer.open_subtree("5-248")
    assert "arguments 5–248 of the node at root" in explorer.tree.value
    assert "then 4: " in explorer.tree.value and explorer.window_note.value == ""
    explorer.open_subtree("5-900")  # not there: said, and the whole tree drawn
    assert "no arguments 5-900" in explorer.window_note.value


def test_a_long_chain_of_forms_is_summarized_by_its_ends():
    x = tk.field("x")
    with tk.trace() as t:
        tk.evaluate(tk.or_([x == i for i in range(12)]), pa.table({"x": list(range(30))}))
    summary = Explorer(t).selection_view.summary.value
    assert "… 4 more special forms between these" in summary  # 11 forms: 5, the count, 2
    assert summary.count("(or_kleene at ") == 7
