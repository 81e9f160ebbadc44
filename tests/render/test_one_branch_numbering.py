"""One numbering of a case_when's branches everywhere: Arrow's.

Arrow's ToString numbers the conditions from 0 (`{0=(x < 33), 1=...}`); the branch
that condition k selects is `then k` in the expression's text, the pictures, the
terminal text, the selection view and the report, and `when k` is condition k.
"""

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from render_helpers import needs_dot

import toolkit as tk
from toolkit.render.branch_table import BranchTable
from toolkit.render.html_report import report_html
from toolkit.tracing.steps import branch_target
from widgets.selection_rows import SelectionRows, form_key

X, Y = tk.field("x"), tk.field("y")


def _first_true(conditions: list[pa.ChunkedArray]) -> list[int | None]:
    """The oracle: per row, the index of the first condition that holds (None: else)."""
    out = []
    for values in zip(*(c.to_pylist() for c in conditions)):
        out.append(next((k for k, v in enumerate(values) if v), None))
    return out


@needs_dot
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(bounds=st.lists(st.integers(0, 100), min_size=2, max_size=6), seed=st.integers(0, 9))
def test_condition_k_and_its_branch_are_numbered_k_everywhere(bounds, seed):
    rng = np.random.default_rng(seed)
    table = pa.table({"x": pa.array(rng.integers(0, 100, 60), mask=rng.random(60) < 0.1),
                      "y": rng.random(60)})
    expr = tk.case_when([(X < b, Y * k) for k, b in enumerate(bounds)], else_=Y)
    # Arrow's text numbers the conditions from 0
    text = str(expr)
    for k, b in enumerate(bounds):
        assert f"{k}=(x < {b})" in text
    with tk.trace() as t:
        tk.evaluate(expr, table, simplify=False)
    (event,) = t.evaluations
    taken = _first_true([pc.less(table["x"], b) for b in bounds])
    expected = {f"then {k}": taken.count(k) for k in range(len(bounds))}
    # the engine's record: `then k` holds the rows condition k took; `when k` is condition k
    recorded = {b.branch: b.count for b in event.branches if b.branch.startswith("then ")}
    assert {k: v for k, v in recorded.items() if v} == {k: v for k, v in expected.items() if v}
    for b in event.branches:
        if b.branch.startswith("when "):
            k = int(b.branch.split()[1])
            assert tuple(branch_target(expr, b)) == (0, k)  # the struct's field `k`
    # the selection view and the report say the same names per row
    names, codes = BranchTable(event).taken(BranchTable(event).forms[0])
    per_row = [names[c] for c in codes]
    assert per_row == ["else" if k is None else f"then {k}" for k in taken]
    rows = SelectionRows(event)
    view = [r[form_key(rows.shown_forms[0])] for r in rows.page(0, 60)]
    assert view == per_row
    html = report_html(t)
    report = re.findall(r'<td class="branch">([^<]*)</td>', html)
    assert report[:len(per_row)] == per_row[:len(report)]
    # the pictures and the text label each branch's edge `then k: <its rows>`
    source = tk.to_dot(event).source
    lines = tk.to_text(event, width=100, color=False)
    for name, count in expected.items():
        if count:
            assert f"{name}: {count} of 60 rows" in source
            assert re.search(rf"\[{name} ▕[^▏]*▏ {count} of 60 rows", lines), name
