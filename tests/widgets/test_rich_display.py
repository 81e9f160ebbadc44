"""Trees display as SVG in Jupyter, and as readable text when graphviz's `dot` is missing."""

import html
import re

import pytest

import toolkit as tk
from toolkit.render.svg import MIN_FIT_SCALE
from widgets import Explorer
from widgets.rich_display import tree_html


@pytest.fixture(scope="module")
def recorded(penguins):
    with tk.trace() as t:
        optimized = tk.optimize(tk.parse("1 + 1 < year and sex = '<F&M>'"), penguins.schema)
        tk.evaluate(optimized, penguins)
    return t


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """A PATH with no `dot` on it, as on a machine without graphviz."""
    monkeypatch.setenv("PATH", str(tmp_path))


@pytest.mark.parametrize("which", ["expression", "trace", "pass step", "evaluation step"])
def test_everything_displays_as_svg_and_text(ip, recorded, which):
    obj = {"expression": recorded.steps[0].before, "trace": recorded,
           "pass step": recorded.steps[0], "evaluation step": recorded.steps[-1]}[which]
    data, _ = ip.display_formatter.format(obj)
    assert data["image/svg+xml"].lstrip().startswith(("<svg", "<?xml"))
    assert "</svg>" in data["image/svg+xml"]
    assert data["text/plain"].strip()


@pytest.mark.parametrize("which", ["expression", "trace", "pass step", "evaluation step"])
def test_without_dot_the_text_tree_shows_instead(ip, recorded, no_dot, which):
    obj = {"expression": recorded.steps[0].before, "trace": recorded,
           "pass step": recorded.steps[0], "evaluation step": recorded.steps[-1]}[which]
    data, _ = ip.display_formatter.format(obj)
    assert "image/svg+xml" not in data
    assert data["text/plain"] == tk.to_text(obj, color=False)


def test_the_explorer_falls_back_to_escaped_text_without_dot(recorded, no_dot):
    explorer = Explorer(recorded)
    assert "<svg" not in explorer.tree.value
    assert 'class="exprscope-tree-text"' in explorer.tree.value
    text = tk.to_text(recorded.steps[0], color=False)
    assert html.escape(text) in explorer.tree.value
    explorer.next()  # still steps through
    assert html.escape(tk.to_text(recorded.steps[1], color=False)) in explorer.tree.value


def test_labels_never_become_markup(recorded):
    """The literal '<F&M>' reaches the page escaped, in the SVG and in the fallback alike."""
    first = recorded.steps[0]
    svg_html = tree_html(first)
    assert "<F&M>" not in svg_html and "&lt;F&amp;M&gt;" in svg_html


def test_a_fitted_picture_is_bounded_by_the_cell_the_window_and_readability():
    import re

    terms = " or ".join(f"species = 'S{i}'" for i in range(12))
    html_ = tree_html(tk.parse(terms))
    width, height = (float(x) for x in re.search(
        r'viewBox="[\d.\-]+ [\d.\-]+ ([\d.]+) ([\d.]+)"', html_).groups())
    style = re.search(r'<div class="exprscope-picture" style="([^"]+)"', html_).group(1)
    floor, _, natural, _, ratio = re.fullmatch(
        r"position:relative;width:max\(([\d.]+)pt, min\((100)%, ([\d.]+)pt, "
        r"calc\((78)vh \* ([\d.]+)\)\)\);max-width:none", style).groups()
    assert '<svg style="display:block;width:100%;height:auto"' in html_  # fills that frame
    # no wider than the cell, its natural width, or what fits 78% of the window's height...
    assert abs(float(natural) - width) <= 1 and abs(float(ratio) - width / height) < 0.01
    # ...and never below MIN_FIT_SCALE of its size, where 9pt text would drop below 9 px
    assert abs(float(floor) - width * MIN_FIT_SCALE) <= 1 and MIN_FIT_SCALE * 9 * 4 / 3 >= 9
    assert "overflow:auto" in html_  # a picture held at that size scrolls in its box


def test_the_explorers_before_and_after_wrap_between_words(recorded):
    """A long before or after goes on to the next line at a space, never inside a word
    (a notebook's own <pre> style breaks anywhere)."""
    explorer = Explorer(recorded)
    explorer.jump_to_next_change()
    shown = explorer.before_after.value
    for part in ("exprscope-before", "exprscope-after"):
        style = re.search(rf'<pre class="{part}" style="([^"]*)"', shown).group(1)
        assert "white-space:pre-wrap" in style and "word-break:normal" in style, style
