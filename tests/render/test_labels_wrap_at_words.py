"""A picture's labels wrap at words: no row of a box ends in a word cut short."""

import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from render_helpers import needs_dot, svg_texts

import toolkit as tk
from toolkit.render.dot import ROW_CHARS, label_lines
from toolkit.render.svg import to_svg


def _penguins() -> pa.Table:
    """The notebooks' penguins (344 rows, nulls included)."""
    palmerpenguins = pytest.importorskip("palmerpenguins")
    return pa.Table.from_pandas(palmerpenguins.load_penguins(), preserve_index=False)


@needs_dot
def test_the_penguins_trace_cuts_no_label_mid_word():
    expr = tk.parse("if(bill_depth_mm > 18, bill_length_mm / bill_depth_mm, "
                    "coalesce(flipper_length_mm / 100, 0))")
    with tk.trace() as t:
        tk.evaluate(expr, _penguins())
    texts = svg_texts(to_svg(t.evaluations[0]))
    assert [x for x in texts if re.search(r"\w…$", x)] == []
    assert any("rows" in x for x in texts)


@needs_dot
def test_a_long_value_set_wraps_onto_lines_instead_of_being_cut():
    names = ["Adelie Penguin (Pygoscelis adeliae)", "Chinstrap penguin (Pygoscelis antarctica)",
             "Gentoo penguin (Pygoscelis papua)"]
    expr = tk.call("is_in", [tk.field("species")],
                   options=pc.SetLookupOptions(pa.array(names)))
    texts = svg_texts(to_svg(expr))
    assert [x for x in texts if re.search(r"\w…$", x)] == []
    # wrapped onto lines, the label holds the second name too (one cut line did not)
    assert "(Pygoscelis antarctica)" in " ".join(texts)


def test_label_lines_break_at_spaces_and_mark_what_they_leave_out():
    text = "dense: cheap branches that cannot fail: one kernel, all rows, " * 3
    lines = label_lines(text.strip())
    assert len(lines) == 3 and lines[-1].endswith(" …")
    assert all(len(line) <= ROW_CHARS + 2 for line in lines)
    assert " ".join(lines).replace(" …", "").split() == text.split()[:len(
        " ".join(lines).replace(" …", "").split())]
    assert label_lines("short") == ["short"]
