"""Wide nodes fold their middle arguments, long and/or chains fold, pictures open on the root."""

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from render_helpers import needs_dot

import toolkit as tk
from toolkit.errors import UsageError
from toolkit.render.branch_table import BranchTable
from toolkit.render.dot import to_dot
from toolkit.render.svg import fitted, inline_svg, opening_box, root_box, to_svg
from toolkit.render.wide_nodes import parse_focus_text, span_text

X, Y = tk.field("x"), tk.field("y")


def _case_when(branches: int) -> tk.Expression:
    """Branch j (from 1) takes the rows with x in [4(j-1), 4j); null x goes to else."""
    return tk.case_when([(X < 4 * (k + 1), Y * k) for k in range(branches)], else_=Y)


def _table(rows: int = 20_000, seed: int = 3) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table({"x": pa.array(rng.integers(0, 1000, rows), mask=rng.random(rows) < 0.2),
                     "y": rng.random(rows)})


def _nodes(source: str) -> int:
    return len(re.findall(r"^\s*\w+ \[label=", source, re.MULTILINE))


def test_a_250_branch_case_when_draws_its_ends_and_one_box_that_counts_the_rest():
    table = _table()
    with tk.trace() as t:
        tk.evaluate(_case_when(250), table)
    source = to_dot(t.evaluations[0]).source
    # the oracle: branches 5 to 248 take x in [16, 992), counted by pyarrow on the data
    x = table["x"]
    rows = pc.sum(pc.and_(pc.greater_equal(x, 16), pc.less(x, 992))).as_py()
    assert f"⋯ 244 more branches: {rows:,} rows" in source
    assert "open: subtree 5-248" in source and "⋯ 244 more conditions" in source
    assert "open: subtree 0/4-247" in source
    assert _nodes(source) < 60  # not 1,500 boxes in one strip
    # the box opens by its range: those branches, folded again in the middle
    opened = to_dot(t.evaluations[0], focus="5-248").source
    assert "arguments 5–248 of the node at root" in opened
    assert "then 4: " in opened and "then 247: " in opened and "then 100: " not in opened
    assert "open: subtree 9-246" in opened


def test_what_is_drawn_not_the_width_sets_the_size_of_the_picture():
    assert _nodes(to_dot(_case_when(250)).source) == _nodes(to_dot(_case_when(25)).source)
    narrow = to_dot(tk.case_when([(X < k, Y) for k in range(4)], else_=Y)).source
    assert "more branches" not in narrow  # a node of a few arguments is drawn whole


def test_coalesce_and_a_long_or_chain_fold_and_a_big_value_set_prints_its_start():
    many = tk.coalesce(*[tk.field(f"f{i}") for i in range(40)])
    source = to_dot(many).source
    assert "⋯ 34 more arguments" in source and "open: subtree 4-37" in source
    chain = tk.or_([X == i for i in range(12)])
    source = to_dot(chain).source
    assert "or_kleene chain: 8 more terms" in source and "open: subtree 0/0/0/0" in source
    opened = to_dot(chain, focus="0/0/0/0").source
    assert "or_kleene chain: 4 more terms" in opened
    long_chain = tk.or_([X == i for i in range(10_000)])  # 10,000 links: no recursion
    assert _nodes(to_dot(long_chain).source) < 40
    lookup = tk.call("is_in", [X], options=pc.SetLookupOptions(pa.array(range(5000))))
    assert "… 4,994 more" in to_dot(lookup).source


def test_a_range_that_is_not_there_is_named():
    with pytest.raises(UsageError, match=r"no arguments 5-300: the node at root \(case_when\) "
                                         r"has 252 arguments"):
        to_dot(_case_when(250), focus="5-300")
    with pytest.raises(UsageError, match="the first, 9, comes after the last, 3"):
        to_dot(_case_when(250), focus="0/9-3")
    assert "arguments 5–9" in to_dot(_case_when(250), focus=(range(5, 10),)).source


@given(st.lists(st.integers(0, 3), max_size=20), st.integers(0, 500), st.integers(0, 500))
def test_a_range_written_for_people_reads_back(path, a, b):
    first, last = min(a, b), max(a, b)
    assert parse_focus_text(span_text(tuple(path), first, last)) == (tuple(path), (first, last))


@needs_dot
def test_the_root_is_found_and_marked_where_the_picture_starts_scrolled():
    chain = tk.or_([X == i for i in range(3)])
    svg = to_svg(chain)
    left, top, right, bottom = root_box(svg)
    assert 0.3 < left < right < 0.8 and top < bottom < 0.3  # the top node, not the legend
    framed = fitted(inline_svg(svg))
    assert "scroll-initial-target:nearest" in framed
    assert f"calc({100 * left:.2f}% - 40px)" in framed and "50cqw" in framed


@needs_dot
def test_a_picture_opens_on_its_root_with_the_caption_over_it_and_the_legend_beside_it():
    with tk.trace() as t:
        tk.evaluate(tk.or_([X == i for i in range(12)]), _table(2_000))
    svg = to_svg(t.evaluations[0])
    root, around = root_box(svg), opening_box(svg)
    legend = re.search(r'class="node legend">.*?points="([^"]+)"', svg, re.DOTALL)
    assert legend is not None  # an evaluation explains its strips
    assert around[0] <= root[0] and root[2] < around[2]  # the legend is right of the root
    assert around[1] < root[1]  # the caption is over it: the box opens showing it
    framed = fitted(inline_svg(svg))
    assert f"top:{100 * around[1]:.2f}%" in framed
    assert f"calc({100 * (around[0] + around[2]) / 2:.2f}% - 50cqw)" in framed


@needs_dot
def test_a_saved_svg_has_its_natural_size_whatever_its_width():
    """An image viewer shows a file of `to_svg` at its width and height: 9pt labels stay
    9pt, not a 5,000-point drawing squeezed into a window."""
    for expr in (_case_when(250), X + 1):
        svg = to_svg(expr)
        width, height = (float(v) for v in re.search(
            r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
        view_width, view_height = (float(v) for v in re.search(
            r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', svg).groups())
        assert abs(width - view_width) <= 1 and abs(height - view_height) <= 1


_FORMS = st.sampled_from(["if_else", "case_when", "coalesce"])


@given(_FORMS, st.integers(1, 3000), st.integers(0, 2**32 - 1))
def test_a_page_of_rows_gets_the_branch_the_whole_column_gives(form, rows, seed):
    rng = np.random.default_rng(seed)
    nulls = rng.random(rows) < 0.2
    table = pa.table({"x": pa.array(rng.integers(0, 100, rows), mask=nulls),
                      "y": pa.array(rng.random(rows), mask=rng.random(rows) < 0.3)})
    expr = {"if_else": tk.if_else(X < 50, Y, Y * 2),
            "case_when": tk.case_when([(X < 10 * k, Y * k) for k in range(1, 12)]),
            "coalesce": tk.coalesce(Y, tk.cast(X, pa.float64()), 0.5)}[form]
    with tk.trace() as t:
        tk.evaluate(expr, table)
    wanted = rng.choice(rows, size=min(rows, 25), replace=False)
    wanted.sort()
    quick, whole = BranchTable(t.evaluations[0]), BranchTable(t.evaluations[0])
    for f_quick, f_whole in zip(quick.forms, whole.forms):
        counts = quick.branch_counts(f_quick)  # from the recorded counts where it can
        names, codes = whole.taken(f_whole)  # every row's branch, built
        assert quick.taken_at(f_quick, wanted) == [names[c] for c in codes[wanted]]
        assert counts == whole.branch_counts(f_whole)


@needs_dot
def test_the_report_opens_each_folded_range_below_its_picture(tmp_path):
    with tk.trace() as t:
        tk.evaluate(_case_when(250), _table(2_000))
    page = tk.write_report(t, tmp_path / "wide.html").read_text(encoding="utf-8")
    assert "open the folded arguments 5-248" in page
    assert "open the folded arguments 0/4-247" in page
    assert "arguments 5–248 of the node at root" in page  # drawn, in its details


@given(st.integers(1, 5000), st.integers(0, 2**32 - 1))
def test_a_density_strip_counts_each_stretch_of_rows_as_dividing_every_row_would(total, seed):
    from toolkit.render.selection_strip import DENSITY_CELLS, strip_of

    rng = np.random.default_rng(seed)
    rows = np.flatnonzero(rng.random(total) < rng.random())
    strip = strip_of(pa.array(rows, pa.int64()), total)
    assert strip.selected == len(rows)
    if total > DENSITY_CELLS:
        counts = np.bincount(rows * DENSITY_CELLS // total, minlength=DENSITY_CELLS)
        sizes = np.diff(-(-np.arange(DENSITY_CELLS + 1) * total // DENSITY_CELLS))
        assert np.allclose(strip.cells, np.minimum(1.0, counts / np.maximum(sizes, 1)))


@given(st.sampled_from(["case_when", "coalesce", "make_struct"]), st.integers(1, 400),
       st.booleans(), st.data())
def test_the_arguments_drawn_and_folded_cover_each_argument_once_in_order(name, n, has_else,
                                                                        data):
    from toolkit.render.wide_nodes import HEAD, TAIL, WIDE_ARGS, shown_args

    if name == "case_when":
        node = tk.case_when([(X < k, Y) for k in range(n)], else_=Y if has_else else None)
    elif name == "coalesce":
        node = tk.coalesce(*[tk.field(f"f{i}") for i in range(n)])
    else:
        node = tk.call("make_struct", [X] * n,
                       options=pc.MakeStructOptions([str(i) for i in range(n)]))
    args = len(node.args)
    first = data.draw(st.integers(0, args - 1))
    last = data.draw(st.integers(first, args - 1))
    for span in (None, (first, last)):
        items = shown_args(node, span)
        covered = [i for item in items
                   for i in (range(item[0], item[1] + 1) if isinstance(item, tuple) else [item])]
        lo, hi = span or (0, args - 1)
        assert covered == list(range(lo, hi + 1))
        drawn = [item for item in items if not isinstance(item, tuple)]
        assert len(drawn) <= max(WIDE_ARGS, HEAD + TAIL + 2)  # what is drawn stays small
        assert sum(isinstance(item, tuple) for item in items) == (hi - lo + 1 > WIDE_ARGS)
