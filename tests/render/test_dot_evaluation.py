"""An evaluation drawn: rows per node, each branch's selection as a strip, the failure in red."""

import re

import numpy as np
import pyarrow as pa
from render_helpers import evaluation, needs_dot

import toolkit as tk
from toolkit.render.dot import EDGE_CELLS
from toolkit.render.dot_style import ERROR_STYLE, SELECTED, UNSELECTED
from toolkit.render.selection_strip import strip_of

HEADLINE = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), 0)


def _edge(source: str, branch: str) -> str:
    return next(line for line in source.splitlines() if "->" in line and f">{branch}:" in line)


def _cells(line: str) -> list[str]:
    return re.findall(r'FIXEDSIZE="TRUE" BGCOLOR="(#[0-9a-f]{6})"', line)


def test_small_batches_draw_one_cell_per_row():
    table = pa.table({"a": [0, 1, 2, 0, 5], "b": [1, 2, 3, 4, 5]})
    source = tk.to_dot(evaluation(table, HEADLINE)).source
    then = _edge(source, "then")
    assert "3 of 5 rows" in then
    assert _cells(then) == [UNSELECTED, SELECTED, SELECTED, UNSELECTED, SELECTED]
    assert _cells(_edge(source, "else")) == [SELECTED, UNSELECTED, UNSELECTED, SELECTED,
                                             UNSELECTED]
    assert ">3 of 5 rows<" in source  # the divide ran on three rows only
    assert ">5 of 5 rows<" in source


def test_large_batches_draw_a_density_bar():
    n = 100_000
    a = np.where(np.arange(n) < n // 4, 0, 1)  # the first quarter takes `else`
    table = pa.table({"a": a, "b": np.arange(n)})
    source = tk.to_dot(evaluation(table, HEADLINE)).source
    then = _edge(source, "then")
    assert "(density)" in then and "75,000 of 100,000 rows" in then
    cells = _cells(then)
    assert len(cells) == EDGE_CELLS  # an edge strip: narrower than the text's
    assert cells[0] == UNSELECTED and cells[-1] == SELECTED  # empty, then full



def test_a_masked_branch_says_why_once_at_its_top():
    n = 100_000  # all rows but one take `then`: it runs masked on every row
    table = pa.table({"a": np.where(np.arange(n) == 0, 0, 3), "b": np.arange(n)})
    source = tk.to_dot(evaluation(table, HEADLINE)).source
    assert source.count("masked: ") == 1
    assert source.count("computed on 100,000 · used on 99,999") == 3  # divide, b and a
    assert "computed on … · used on …" in source  # the legend still explains them

def test_the_failing_node_is_red_with_its_row():
    table = pa.table({"a": [3, 1, 0, 2], "b": [1, 2, 3, 4]})
    event = evaluation(table, HEADLINE, mode="eager")
    source = tk.to_dot(event).source
    failing = [line for line in source.splitlines()
               if ERROR_STYLE["fillcolor"] in line and "class=legend" not in line]
    assert "failed here, at the row it names" in source  # and the legend says what red is
    assert len(failing) == 1
    assert ">divide_checked<" in failing[0] and "at row 2" in failing[0]
    assert "failed at row 2" in source  # the caption
    root = next(line for line in source.splitlines() if line.lstrip().startswith("n0 "))
    assert "did not finish" in root  # if_else waited for the divide that failed
    (legend,) = [line for line in source.splitlines() if "class=legend" in line]
    assert "did not finish: a node below it failed" in legend  # its dashes, explained
    assert "no row reached it" not in legend  # every other node ran


def test_case_when_conditions_get_their_own_strips():
    table = pa.table({"a": [5, -1, 0, 7, -3, 0]})
    expr = tk.case_when([(tk.field("a") > 0, "pos"), (tk.field("a") < 0, "neg")], else_="zero")
    source = tk.to_dot(evaluation(table, expr)).source
    assert "when 0: 6 of 6 rows" in source
    assert "when 1: 4 of 6 rows" in source  # only the rows the first case left
    assert "then 0: 2 of 6 rows" in source and "else: 2 of 6 rows" in source


def test_strip_cells_match_the_selection():
    strip = strip_of(pa.array([1, 3], pa.int64()), 4)
    assert strip.per_row and strip.cells == (0.0, 1.0, 0.0, 1.0)
    dense = strip_of(pa.array(np.arange(0, 1000, 2)), 1000)
    assert not dense.per_row and all(0.4 < c < 0.6 for c in dense.cells)
    assert dense.caption == "500 of 1,000 rows (50.0%)"


def test_the_legend_explains_every_symbol_the_picture_uses_and_no_other():
    import pyarrow as pa

    small = pa.table({"a": pa.array([1, 0, 2, 0, 3], pa.int64())})
    with tk.trace() as t:
        tk.evaluate(tk.parse("if(a != 0, 10 / a, 0)").bind(small.schema), small)
    source = tk.to_dot(t.evaluations[-1]).source
    assert "a cell per row, blue where the branch took the row" in source
    assert "density strip" not in source and "not evaluated: no row reached it" not in source
    with tk.trace() as t:
        tk.evaluate(tk.parse("if(a > 100, 10 / a, 0)").bind(small.schema), small)
    assert "not evaluated: no row reached it" in tk.to_dot(t.evaluations[-1]).source
    plain = tk.to_dot(tk.parse("a + 1")).source
    assert "legend" not in plain


@needs_dot
def test_the_legend_is_one_compact_box_next_to_the_tree():
    import xml.etree.ElementTree as ET

    table = pa.table({"a": np.arange(20_000) % 3, "c": np.arange(20_000) * 1.0})
    event = evaluation(table, tk.parse("if(a != 0, c / a, coalesce(c * 2, 0))"))
    root = ET.fromstring(tk.to_svg(event))
    (legend,) = [g for g in root.iter("{http://www.w3.org/2000/svg}g")
                 if "legend" in (g.get("class") or "").split()]
    texts = [t for t in legend.iter("{http://www.w3.org/2000/svg}text")]
    words = " ".join(t.text for t in texts)
    assert "special form" in words and "density strip" in words and "used on" in words
    ys = sorted(float(t.get("y")) for t in texts)
    assert ys[-1] - ys[0] < 16 * len(texts)  # one line per entry, no gaps between them
