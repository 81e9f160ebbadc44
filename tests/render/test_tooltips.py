"""Under the pointer, every part of a picture says what it is, never graphviz's own names."""

import re
import xml.etree.ElementTree as ET

import pyarrow as pa
import pytest
from render_helpers import evaluation, needs_dot

import toolkit as tk

XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
SVG = "{http://www.w3.org/2000/svg}"
GRAPHVIZ_NAME = re.compile(r"(\w+(->|&#45;&gt;|-&gt;)\w+|[a-z_]*\d+|cluster_\w+|exprscope)")


def _pictures():
    schema = pa.schema([("a", pa.int64()), ("b", pa.int64())])
    deep = tk.field("a")
    for k in range(40):
        deep = tk.if_else(tk.field("a") != k, deep, k)
    table = pa.table({"a": [0, 1, 2, 0], "b": [1, 2, 3, 4]})
    with tk.trace() as t:
        tk.optimize(tk.parse("not (not (a = 1)) and 1 + 2 > b"), schema)
    yield "passes", [p for p in t.passes if p.changed], {}
    yield "evaluation", [evaluation(table, tk.parse("if(a != 0, b / a, 0)"))], {}
    yield "a failure", [evaluation(table, tk.parse("b / a"), mode="eager")], {}
    yield "folded", [evaluation(table, deep)], {"depth": 4}
    yield "summarized", [deep], {"max_nodes": 20}


@needs_dot
@pytest.mark.parametrize("name, steps, options", list(_pictures()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_node_and_edge_has_a_tooltip_of_words(name, steps, options):
    for step in steps:
        svg = tk.to_svg(step, **options)
        assert "<title>" not in svg  # graphviz's names (n6, n0->n1) would show as tooltips
        root = ET.fromstring(svg)
        groups = [g for g in root.iter(f"{SVG}g") if g.get("class") in ("node", "edge")]
        assert groups
        for group in groups:
            tips = [el.get(XLINK_TITLE) for el in group.iter() if el.get(XLINK_TITLE)]
            assert tips, f"{name}: a {group.get('class')} without a tooltip"
            assert not any(GRAPHVIZ_NAME.fullmatch(tip) for tip in tips), tips


@needs_dot
def test_edge_tooltips_name_the_role_and_the_rows_of_a_branch():
    table = pa.table({"a": [0, 1, 2, 0], "b": [1, 2, 3, 4]})
    svg = tk.to_svg(evaluation(table, tk.parse("if(a != 0, b / a, 0)")))
    tips = [el.get(XLINK_TITLE) for el in ET.fromstring(svg).iter() if el.get(XLINK_TITLE)]
    assert "if_else: cond" in tips
    assert "if_else: then: 2 of 4 rows (50.0%)" in tips
