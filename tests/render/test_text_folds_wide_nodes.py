"""`to_text` folds a wide node as the pictures do: its ends, one line for the rest."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk
from toolkit.render.text import display_width

X, Y = tk.field("x"), tk.field("y")


def _case_when(branches: int) -> tk.Expression:
    return tk.case_when([(X < 4 * (k + 1), Y * k) for k in range(branches)], else_=Y)


def _table(rows: int = 20_000) -> pa.Table:
    rng = np.random.default_rng(3)
    return pa.table({"x": pa.array(rng.integers(0, 1000, rows), mask=rng.random(rows) < 0.2),
                     "y": rng.random(rows)})


def test_a_traced_250_branch_case_when_prints_its_ends_and_one_line_for_the_rest():
    table = _table()
    with tk.trace() as t:
        tk.evaluate(_case_when(250), table)
    text = tk.to_text(t.evaluations[0], width=80, color=False)
    lines = text.splitlines()
    assert len(lines) < 100  # not 2,355
    assert all(display_width(line) <= 80 for line in lines)
    # the oracle: then 4 to then 247 take x in [16, 992), counted by pyarrow on the data
    x = table["x"]
    rows = pc.sum(pc.and_(pc.greater_equal(x, 16), pc.less(x, 992))).as_py()
    assert (f'⋯ 244 more branches: {rows:,} rows · then 4 – then 247 · open: focus="5-248"'
            in text)
    assert '⋯ 244 more conditions · when 4 – when 247 · open: focus="0/4-247"' in text
    for shown in ("[then 0 ", "[then 3 ", "[then 248 ", "[then 249 ", "[when 0 ", "[when 249 "):
        assert shown in text
    assert "[then 4 " not in text and "[then 100 " not in text
    # what the line says opens them, folded again in the middle
    opened = tk.to_text(t.evaluations[0], width=80, color=False, focus="5-248")
    assert "[then 4 " in opened and "[then 247 " in opened and "[then 100 " not in opened
    assert 'open: focus="9-246"' in opened
    assert len(tk.to_text(t, width=80, color=False).splitlines()) < 120  # the whole trace


def test_untraced_wide_trees_and_passes_fold_too():
    text = tk.to_text(_case_when(250), width=80)
    assert "⋯ 244 more branches · then 4 – then 247" in text and len(text.splitlines()) < 60
    many = tk.coalesce(*[tk.field(f"f{i}") for i in range(40)])
    assert '⋯ 34 more arguments · arg 4 – arg 37 · open: focus="4-37"' in tk.to_text(many)
    schema = pa.schema([("x", pa.int64()), ("y", pa.float64())])
    with tk.trace() as t:
        tk.optimize(_case_when(250), schema)
    assert all(len(tk.to_text(p, width=80).splitlines()) < 150 for p in t.passes)
