"""Expression trees in DOT: one node per expression node, shaped by kind, typed once bound."""

import re
import xml.etree.ElementTree as ET

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import HOSTILE, needs_dot, svg_texts

import toolkit as tk
from toolkit.render.dot import MAX_NODES
from toolkit.render.labels import visible


def _nodes(source: str) -> list[str]:
    return re.findall(r"^\s*(\w+) \[label=", source, re.M)


def test_one_node_per_expression_node_with_shapes_by_kind():
    expr = tk.if_else(tk.field("a") > 1, tk.field("b"), tk.literal(0))
    source = tk.to_dot(expr).source
    assert len(_nodes(source)) == 6
    assert len(re.findall(r"->", source)) == 5
    assert source.count('class="kind-special"') == 1 and "shape=hexagon" in source
    assert source.count('class="kind-field"') == 2
    assert source.count('class="kind-literal"') == 2
    assert source.count('class="kind-call"') == 1
    assert "cond" in source and "then" in source and "else" in source  # roles on edges


def test_types_appear_once_bound(schema):
    expr = tk.field("a") + 1
    unbound = tk.to_dot(expr).source
    bound = tk.to_dot(expr.bind(schema)).source
    assert unbound.count(">int64<") == 1  # a literal always has its type
    assert bound.count(">int64<") == 3  # add, a and the literal


def test_cast_shows_its_target_type(schema):
    source = tk.to_dot(tk.field("a").cast("float32")).source
    assert "to float" in source


def test_a_value_set_shows_inline_as_literals_print():
    import pyarrow.compute as pc

    species = tk.field("species").isin(["Gentoo", "Chinstrap"])
    label = re.search(r"n0 \[label=(<.*?>)\s", tk.to_dot(species).source).group(1)
    assert "{&quot;Gentoo&quot;, &quot;Chinstrap&quot;}" in label
    assert "value_set" not in label and "\\n" not in label  # the full options are the tooltip
    many = tk.call("is_in", [tk.field("a")],
                   pc.SetLookupOptions(pa.array(range(1000)), skip_nulls=True))
    text = tk.to_text(many)
    assert "{0, 1, 2, 3, 4, 5, … 994 more}, nulls skipped" in text
    assert len(text.splitlines()[0]) < 80


def test_huge_trees_are_summarized_and_say_so():
    expr = tk.field("a")
    for _ in range(10_000):
        expr = expr + 1
    source = tk.to_dot(expr, depth=None).source  # every level: the node budget cuts it
    hidden = [int(n.replace(",", "")) for n in re.findall(r"⋯ ([\d,]+) more nodes?\b", source)]
    assert hidden and len(_nodes(source)) == MAX_NODES + len(hidden)
    assert MAX_NODES + sum(hidden) == 20_001  # every node is drawn or counted
    assert f"showing {MAX_NODES:,} of 20,001 nodes" in source
    # the last level's lone literal is one node, said so ("1 more nodes" it was)
    assert 1 in hidden and "⋯ 1 more node<" in source and "⋯ 1 more nodes" not in source


@needs_dot
def test_hostile_names_are_text_in_dot_and_svg():
    expr = tk.call("add", [tk.field(name) for name in HOSTILE])
    source = tk.to_dot(expr).source
    assert "<script>" not in source and "\\N" not in source.replace("\\\\N", "")
    texts = svg_texts(tk.to_svg(expr))
    for name in HOSTILE:
        assert visible(name) in texts, name


@needs_dot
def test_tooltips_show_each_subtree_in_full_never_internal_ids():
    expr = tk.call("add", [tk.field(name) for name in HOSTILE])
    root = ET.fromstring(tk.to_svg(expr))
    titles = [el.get("{http://www.w3.org/1999/xlink}title") for el in root.iter()
              if el.get("{http://www.w3.org/1999/xlink}title") is not None]
    titles = [t for t in titles if not re.fullmatch(r"add: argument \d+", t)]  # the edges
    assert len(titles) == 1 + len(HOSTILE)
    assert not any(re.fullmatch(r"n\d+", t) for t in titles)
    for name in HOSTILE:
        one_line = visible(" ".join(name.split()))
        assert one_line in titles, name  # the field's own tooltip, backslashes and all
        assert one_line in titles[0]  # and inside its parent's
    cast = tk.field("i").cast("float64").bind(pa.schema([("i", pa.int32())]))
    (cast_title, _) = [el.get("{http://www.w3.org/1999/xlink}title")
                       for el in ET.fromstring(tk.to_svg(cast)).iter()
                       if el.get("{http://www.w3.org/1999/xlink}title")
                       and "argument" not in el.get("{http://www.w3.org/1999/xlink}title")]
    assert cast_title == "cast(i, to double)"  # as labels write it, not Arrow's option list


@needs_dot
@settings(max_examples=25)
@given(st.text(min_size=1, max_size=20).filter(lambda s: s.strip()))
def test_any_field_name_shows_as_itself(name):
    texts = svg_texts(tk.to_svg(tk.field(name) > 1))
    shown = " ".join(" ".join(t.split()) for t in texts)  # a long name wraps over lines
    want = " ".join(visible(name).split())
    assert want in shown or (len(want) > 60 and want[:40] in shown)


@needs_dot
def test_svg_comes_from_dot():
    svg = tk.to_svg(tk.field("a") + 1)
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "</svg>" in svg
    assert svg_texts(svg)[:1] == ["add_checked"]


def test_literal_values_are_labels():
    source = tk.to_dot(tk.literal(pa.scalar("x<y", pa.string()))).source
    assert "&quot;x&lt;y&quot;" in source


def test_a_long_trace_overview_keeps_the_steps_that_matter():
    from toolkit import plan
    from toolkit.observe import EvalEvent, InvariantCheck, PassEvent, PlanRuleEvent

    data = pa.table({"a": [1, 2, 3], "b": [4, 5, 6], "c": ["x", "y", "z"]})
    p = plan.scan("t", data).filter(tk.field("a") > 1).project([tk.field("a")], names=["a"])
    with tk.trace() as t:
        plan.create_physical_plan(plan.optimize(p)).collect()
    assert len(t.steps) > 24
    source = tk.to_dot(t).source
    clusters = re.findall(r"subgraph cluster_s(\d+)", source)
    kept = [t.steps[int(i)] for i in clusters]
    assert kept and any(isinstance(s, EvalEvent) for s in kept)
    for s in kept:  # passing checks and unchanged passes and rules are left out
        assert not isinstance(s, InvariantCheck)
        assert s.changed if isinstance(s, (PassEvent, PlanRuleEvent)) else True
    assert f"of {len(t.steps)} steps" in source


@pytest.mark.parametrize("name", ["]", "]]", "]<&>", "a\\]"])
def test_names_graphviz_cannot_parse_raw_still_draw(name):
    # graphviz's HTML-label parser fails on text starting with "]": written as &#93;
    svg = tk.to_dot(tk.field(name)).pipe(format="svg").decode()
    assert "&#93;" in svg or "]" in svg
