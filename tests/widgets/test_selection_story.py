"""The selection view tells one row's story: click a row (or go to it) and its value at every
node, the branch it took and why open beside the table, computed for that row alone.

Column heads name what each special form is about (an `or` chain's term, an `if_else`'s
condition), and the value column comes right after the row number, held at the left edge.
"""

import functools
import gc
import json
import math
import re

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies.paired import KINDS, ROOT, expressions, tables
from widgets import Explorer, SelectionView, selection_rows

BIG = 2_000_000
TERMS = 12


def _traced(expr, data, mode="lazy"):
    with tk.trace() as t:
        try:
            result = tk.evaluate(expr, data, mode=mode)
        except tk.KernelError:
            result = None
    return t, result


def _click(view: SelectionView, row: int, tag: str = "TD") -> None:
    """What ipyevents sends when the user clicks a cell of row `row` in the browser."""
    content = {"event": "click", "target": {"tagName": tag, "id": "",
                                            "className": f"exprscope-row-{row}"}}
    view.row_clicks._handle_mouse_msg(None, content, None)


def _heads(view: SelectionView) -> list[str]:
    """The table's column heads as the user reads them (tags dropped, entities kept)."""
    header = view.table.value.split("</tr>")[0]
    return [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", header)]


def _tooltips(view: SelectionView) -> list[str]:
    header = view.table.value.split("</tr>")[0]
    return re.findall(r'<th class="exprscope-form-head"[^>]*title="([^"]*)"', header)


@functools.lru_cache(maxsize=1)
def _big_or():
    """A 2,000,000-row table, a null x every 20th row, and a 12-term `or` filter over it."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 100, BIG)
    cols = {"x": pa.array(x, mask=np.arange(BIG) % 20 == 3)}
    for i in range(1, TERMS):
        cols[f"c{i}"] = pa.array(rng.integers(0, 1000, BIG))
    table = pa.table(cols)
    text = " or ".join(["x > 98"] + [f"c{i} = {i}" for i in range(1, TERMS)])
    return table, tk.parse(text)


def test_clicking_a_row_opens_its_story_beside_the_table():
    a, b = tk.field("a"), tk.field("b")
    data = pa.table({"a": [0, 2, None, 5], "b": [7, 8, 9, 10]})
    expr = tk.if_else(a != 0, b / a, -1)
    t, result = _traced(expr, data)
    view = SelectionView(t.evaluations[0])
    assert view.story is None and view.story_box.layout.display == "none"
    _click(view, 0)
    story = view.story
    assert story.row == 0 and story.value.equals(result[0]) and story.value.as_py() == -1
    assert view.story_box.layout.display != "none"
    pane = view.story_pane.value
    assert "<b>Row 0</b>: -1" in pane and "<svg" in pane
    assert html_unescaped(story.why) in html_unescaped(pane)
    # the branch the row took, and the division its if_else spared it, are in the story
    assert story.node("root").branch == "else"
    assert "would raise" in story.node("1").note and "would raise" in pane
    assert 'class="exprscope-target-row"' in view.table.value  # the clicked row is marked
    # a click on another row, and a click on a head (no row) that changes nothing
    _click(view, 3)
    assert view.story.row == 3 and view.story.value.as_py() == 2
    view.row_clicks._handle_mouse_msg(None, {"event": "click", "target": {
        "tagName": "TH", "id": "", "className": ""}}, None)
    assert view.story.row == 3
    view.close_story_button.click()
    assert view.story is None and view.story_box.layout.display == "none"


def html_unescaped(text: str) -> str:
    import html

    return html.unescape(text)


def test_a_null_x_in_a_12_term_or_over_2_million_rows_is_found_by_go_to_row(monkeypatch):
    table, expr = _big_or()
    t, result = _traced(expr, table)
    calls = []
    real = selection_rows.story_of_batch
    monkeypatch.setattr(selection_rows, "story_of_batch",
                        lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    view = SelectionView(t.evaluations[0])
    view.next_page()
    view.previous_page()
    assert calls == []  # showing rows computes no story
    row = BIG - 17  # 1,999,983: x is null there
    assert table["x"][row].as_py() is None
    assert view.go_to_row(row)
    assert calls == [row]  # one story, for that one row
    story = view.story
    assert story.row == row and story.num_rows == BIG
    assert story.value.equals(result[row])  # the traced evaluation's own value there
    assert "the null comes from column x" in story.why
    assert story.inputs["x"].as_py() is None
    # the value column is the second, right after the row number, held at the left edge
    heads = _heads(view)
    assert heads[:3] == ["row", "value", "x"]
    value_cell = re.search(rf'<td class="exprscope-row-{row}" style="([^"]*)" title',
                           view.table.value).group(1)
    assert "position:sticky" in value_cell
    # every `or` column is named by its term, none by a node path
    terms = [f"or c{i} == {i}" for i in range(1, TERMS)]
    assert heads[-len(terms):] == terms  # in the order they were written
    assert not any(re.fullmatch(r"or_kleene [\d/]+|or_kleene root", h) for h in heads)
    tips = _tooltips(view)
    assert any("or c11 == 11: whether the row needed this term" in tip and
               "&#10;or_kleene at root" in tip for tip in tips)
    # the row's own cells read null for x and for the value
    cells = re.findall(rf'<td class="exprscope-row-{row}"[^>]*>([^<]*)</td>',
                       view.table.value)
    assert cells[:3] == [f"{row:,}", "null", "null"]


def test_long_terms_are_cut_in_the_head_and_whole_in_the_tooltip():
    long_name = "a_column_with_a_very_long_descriptive_name"
    data = pa.table({long_name: [1, None, 3], "y": [1, 2, 3]})
    expr = tk.parse(f"{long_name} > 1 and y < 3")
    t, _ = _traced(expr, data)
    view = SelectionView(t.evaluations[0])
    (head,) = [h for h in _heads(view) if h.startswith("and ")]
    assert head == "and y &lt; 3"
    expr = tk.parse(f"y < 3 and {long_name} * 2 > 1")
    t, _ = _traced(expr, data)
    view = SelectionView(t.evaluations[0])
    (head,) = [h for h in _heads(view) if h.startswith("and ")]
    assert head.endswith("…") and len(head) <= 30
    (tip,) = _tooltips(view)
    assert f"multiply({long_name}, 2) &gt; 1" in tip  # the whole term


def test_special_form_columns_are_named_by_their_condition_or_text():
    a, b = tk.field("a"), tk.field("b")
    data = pa.table({"a": [0, 1, 2, None], "b": [5, None, 7, 8]})
    expr = tk.coalesce(tk.if_else(a > 0, tk.case_when([(b > 6, 1)], 0), 2), -1)
    t, result = _traced(expr, data)
    view = SelectionView(t.evaluations[0])
    heads = _heads(view)
    assert heads[:2] == ["row", "value"]
    assert "if a &gt; 0" in heads
    assert any(h.startswith("coalesce(if_else(") for h in heads)
    assert any(h.startswith("case_when(") for h in heads)
    assert not any(re.search(r"\b\d+/\d+\b|\broot\b", h) for h in heads)
    # cells keep the pictures' branch names, numbered from 0
    assert ">then 0</td>" in view.table.value or ">else</td>" in view.table.value
    _click(view, 2)
    assert view.story.value.equals(result[2]) and view.story.value.as_py() == 1


def test_a_sampled_rows_story_after_the_batch_is_gone_and_why_others_have_none():
    n = 60_000
    data = pa.table({"a": pa.array(np.arange(n) % 7 - 3), "b": pa.array(np.arange(n))})
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), tk.field("b"))
    t, result = _traced(expr, data)
    expected = result.to_pylist()
    event = t.evaluations[0]
    kept = int(event.sample[-1].as_py())
    del data, result
    gc.collect()
    view = SelectionView(event)
    assert view.go_to_row(kept)
    assert view.story.row == kept and view.story.value.as_py() == expected[kept]
    assert view.open_story(30_001) is None
    assert "needs its data" in view.lookup_note.value
    assert view.story.row == kept  # the story shown stays


def test_a_trace_read_back_from_json_still_tells_the_kept_rows_stories():
    data = pa.table({"a": [3, 0, None, -1], "s": ["p", "q", "r", "s"]})
    expr = tk.parse("if(a > 0, s, 'none')")
    t, result = _traced(expr, data)
    back = tk.Trace.from_json(t.to_json()).evaluations[-1]
    view = SelectionView(back)
    for row in range(4):
        _click(view, row)
        assert view.story.value.equals(result[row]), row


def test_the_failing_row_of_an_eager_failure_tells_its_error():
    data = pa.table({"a": [1, 2, 0, 4]})
    t, _ = _traced(tk.parse("if(a > -1, 100 / a, 0)"), data, mode="eager")
    view = SelectionView(t.evaluations[0])
    view.failing_button.click()
    story = view.story
    assert story.row == 2 and story.value is None and "divide by zero" in story.error
    assert "<b>Row 2</b>: fails" in view.story_pane.value


def test_hostile_names_and_values_are_escaped_in_heads_tooltips_and_the_story():
    name = '"><img src=x onerror=alert(1)>'
    data = pa.table({name: ["<script>alert(1)</script>", None, 'x" onmouseover="y']})
    expr = tk.coalesce(tk.field(name), tk.literal("&lt;"))
    t, _ = _traced(expr, data)
    view = SelectionView(t.evaluations[0])
    for row in range(3):
        _click(view, row)
        html = view.table.value + view.story_pane.value
        assert "<script>" not in html and "<img" not in html
        assert 'onmouseover="' not in html and '"><img' not in html
    assert "&lt;script&gt;" in view.table.value
    assert view.story.value.as_py() == 'x" onmouseover="y'


def test_the_explorer_opens_the_story_of_a_row_of_its_evaluation_step():
    data = pa.table({"x": [5, None, 1], "y": [1, 2, 3]})
    with tk.trace() as t:
        opt = tk.optimize(tk.parse("x > 3 or y = 2"), data.schema)
        result = tk.evaluate(opt, data)
    explorer = Explorer(t)
    explorer.go(next(i for i, s in enumerate(t.steps) if hasattr(s, "branches")))
    view = explorer.selection_view
    assert view in explorer.detail.children
    _click(view, 1)
    assert view.story.value.equals(result[1]) and view.story.value.as_py() is True
    assert "<svg" in view.story_pane.value


@functools.lru_cache(maxsize=1)
def _live():
    """One live evaluation over nulls and a lazy division, held for the property below."""
    rng = np.random.default_rng(11)
    n = 60_000
    data = pa.table({"a": pa.array(rng.integers(-2, 3, n), mask=rng.random(n) < 0.2),
                     "b": pa.array(rng.integers(0, 100, n))})
    expr = tk.parse("coalesce(if(a != 0, b / a, b), -1) > 10 or b < 3")
    t, result = _traced(expr, data)
    return data, result, SelectionView(t.evaluations[0])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 59_999))
def test_the_story_of_any_row_agrees_with_the_evaluation(row):
    data, result, view = _live()
    assert view.go_to_row(row)
    story = view.story
    assert story.row == row and story.value.equals(result[row])
    assert {k: v.as_py() for k, v in story.inputs.items()} == \
        {"a": data["a"][row].as_py(), "b": data["b"][row].as_py()}
    # the view's page shows the same value the story tells
    record = next(r for r in view.visible_rows() if r["row"] == row)
    assert record["value"] == story.value.as_py()


def test_a_clicked_class_that_names_no_row_of_the_batch_is_ignored():
    data = pa.table({"a": [1, 2]})
    t, _ = _traced(tk.parse("if(a > 1, a, 0)"), data)
    view = SelectionView(t.evaluations[0])
    for cls in ("exprscope-row-99", "exprscope-row-" + "9" * 30, "exprscope-row--1", "x"):
        view.row_clicks._handle_mouse_msg(None, {"event": "click", "target": {
            "tagName": "TD", "id": "", "className": cls}}, None)
        assert view.story is None
    assert json.dumps(view.lookup_note.value)  # a note at most, no traceback


def _same(x, y) -> bool:
    u, v = x.as_py(), y.as_py()
    if isinstance(u, float) and isinstance(v, float) and math.isnan(u) and math.isnan(v):
        return True
    return x.type == y.type and u == v


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([*sorted(KINDS), ROOT]).flatmap(expressions), tables(),
       st.sampled_from(["lazy", "eager"]), st.data())
def test_a_clicked_rows_story_equals_the_traced_evaluation_at_that_row(pair, table, mode,
                                                                        data):
    """Random expressions of every type family over tables with nulls and chunks: the story
    a click opens holds the value the traced evaluation gave that row, and every head names
    a form, never a node path."""
    expr, _ = pair
    if table.num_rows == 0:
        return
    try:
        bound = tk.bind(expr, table.schema)
    except (tk.ExprscopeError, pa.ArrowException):
        return  # a literal that cannot be cast: nothing is evaluated
    t, result = _traced(bound, table, mode)
    (event,) = t.evaluations
    if result is None:
        return  # some row fails: the failing row's story is tested above
    view = SelectionView(event)
    row = data.draw(st.integers(0, table.num_rows - 1))
    _click(view, row)
    expected = result if isinstance(result, pa.Scalar) else result[row]
    assert view.story is not None and view.story.row == row
    assert _same(view.story.value, expected), (str(event.expr), row)
    assert not any(re.fullmatch(r"[a-z_]+ (root|[\d/]+)", h) for h in _heads(view)[2:])
