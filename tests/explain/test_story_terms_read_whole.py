"""A row's story names its terms as plans print them: a cast by its target
(`cast(a, {to_type=double})`), not Arrow's seven options, which filled the sentence
and cut it inside the option list. A term too long for a sentence, and a caption too
long for a picture, end after a whole token, never inside one."""

import re
import shutil
import xml.etree.ElementTree as ET

import pyarrow as pa
import pytest

import toolkit as tk

CAST = "cast(a, {to_type=double})"
TERM = f"`(if_else((a != 0), divide(b, {CAST}), 0) > 1)`"


@pytest.fixture
def story():
    table = pa.table({"a": [3, 0, 5], "b": [-203.0, 997.0, 1.0], "name": ["x", "y", "z"]})
    return tk.explain_row("if(a != 0, b / a, 0.0) > 1 and b > 3 and name != 'beta'", table, 0)


def _caption(svg: str) -> list[str]:
    """The lines of an SVG's caption: the texts of the graph itself, outside every node."""
    ns = "{http://www.w3.org/2000/svg}"
    graph = next(g for g in ET.fromstring(svg).iter(f"{ns}g") if g.get("class") == "graph")
    return [(t.text or "").replace("\xa0", " ") for t in graph.findall(f"{ns}text")]


def _unwrapped(text: str) -> str:
    """Terminal text with its wrapped lines joined back (a continuation is indented)."""
    return " ".join(line.strip() for line in text.splitlines())


def test_the_sentence_and_the_expression_name_a_cast_by_its_target_at_80_columns(story):
    assert TERM in story.why and "allow_" not in story.why
    assert CAST in story.expression and "allow_" not in story.expression
    text = tk.to_text(story, width=80, color=False)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "allow_" not in text
    lines = text.splitlines()
    why = next(i for i, line in enumerate(lines) if line.startswith("why: "))
    value = next(i for i, line in enumerate(lines) if line.startswith("value: "))
    assert value == 3  # the expression takes two lines at 80 columns, not five
    said = _unwrapped("\n".join(lines[why:why + 4]))
    assert f"{TERM} is false (with `if_else((a != 0), divide(b, {CAST}), 0)` = " \
           "-67.66666666666667, `1`)" in said


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is missing")
def test_the_picture_s_caption_names_the_cast_whole(story):
    caption = _caption(tk.to_svg(story))
    joined = " ".join(caption)
    assert "allow_" not in joined
    assert f"{TERM} is false" in joined, caption


def test_a_term_too_long_for_the_sentence_ends_after_a_whole_name():
    names = [f"column_number_{k}_of_the_table" for k in range(6)]
    table = pa.table({n: [k] for k, n in enumerate(names)})
    expr = " + ".join(names) + " > 1000"
    story = tk.explain_row(expr, table, 0)
    quoted = re.findall(r"`([^`]*)`", story.why)
    cut = [q for q in quoted if q.endswith("…")]
    assert cut, story.why  # the comparison's text is longer than a term may be
    for term in cut:
        kept = term[:-1].rstrip()
        last = re.findall(r"\w+$", kept)
        assert not last or last[0] in names or last[0].isdigit(), (term, story.why)


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is missing")
def test_a_caption_too_long_for_the_picture_ends_after_a_whole_word():
    table = pa.table({f"c{k}": [k] for k in range(20)})
    expr = " or ".join(f"c{k} > {k + 100_000}" for k in range(20))
    story = tk.explain_row(expr, table, 0)
    lines = _caption(tk.to_svg(story))[1:]  # under the line naming the row
    assert len(lines) == 3 and lines[-1].endswith(" …"), lines
    words = set(story.why.split())
    assert all(word in words for line in lines for word in line.split() if word != "…"), lines
