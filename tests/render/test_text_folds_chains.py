"""`to_text` folds a long and/or chain where the picture does, in the picture's words: a
traced 1,000-term `and` printed 13,000 lines (15,217 at a million rows, in 33 s) where the
SVG drew 18 nodes, and read every link's rows to build strips nobody could scroll to."""

import re

import numpy as np
import pyarrow as pa
import pytest
from render_helpers import needs_dot

import toolkit as tk
from toolkit.model.expression import preorder
from toolkit.model.visit import node_at
from toolkit.render.text import display_width

TERMS = 1_000


@pytest.fixture(scope="module")
def traced_chain():
    rng = np.random.default_rng(3)
    table = pa.table({"c": rng.random(100_000)})
    c = tk.field("c")
    chain = c > 0.001
    for i in range(1, TERMS):
        chain = tk.and_(chain, c > 0.001 * (i % 7 + 1) / 10)
    with tk.trace() as t:
        tk.evaluate(chain, table)
    return t.evaluations[0]


@needs_dot
def test_the_text_of_a_long_chain_is_as_short_as_its_picture(traced_chain):
    read_before = sum(b.pieces is None for b in traced_chain.branches)
    text = tk.to_text(traced_chain, width=80, color=False)
    lines = text.splitlines()
    read = sum(b.pieces is None for b in traced_chain.branches) - read_before
    drawn = len(re.findall(r'<g id="node\d+" class="node', tk.to_svg(traced_chain)))
    assert drawn < 25
    assert len(lines) <= 2 * drawn, (len(lines), drawn)  # it printed 13,000 lines
    assert all(display_width(line) <= 80 for line in lines)
    assert read <= 5  # the rows of the strips it printed: the four links drawn and no more


@needs_dot
def test_the_text_says_what_it_folded_and_how_to_open_it_as_the_picture_does(traced_chain):
    folded = node_at(traced_chain.expr, (0, 0, 0, 0))
    nodes = sum(1 for _ in preorder(folded))  # the oracle: the folded subtree, counted
    title = f"▸ and_kleene chain: {TERMS - 4:,} more terms, {nodes:,} nodes folded"
    text = tk.to_text(traced_chain, width=100, color=False)
    assert f'{title} · open: focus="0/0/0/0"' in text
    assert title in tk.to_dot(traced_chain).source
    assert "open: subtree 0/0/0/0" in tk.to_dot(traced_chain).source
    opened = tk.to_text(traced_chain, width=100, color=False, focus="0/0/0/0")
    assert f"▸ and_kleene chain: {TERMS - 8:,} more terms" in opened
    assert 'open: focus="0/0/0/0/0/0/0/0"' in opened
