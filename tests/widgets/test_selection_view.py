"""The selection view shows, row by row, which branch of a lazy special form each row took."""

import pyarrow as pa
import pytest

import toolkit as tk
from widgets import SelectionView


def _evaluation(expr, data, mode="lazy"):
    with tk.trace() as t:
        result = tk.evaluate(expr, data, mode=mode)
    (step,) = [s for s in t.steps if hasattr(s, "branches")]
    return step, result


def test_rows_show_the_branch_taken_and_the_value():
    a, b = tk.field("a"), tk.field("b")
    data = pa.table({"a": [0, 2, None, 5], "b": [7, 8, 9, 10]})
    step, result = _evaluation(tk.if_else(a != 0, b / a, -1), data)
    view = SelectionView(step)
    rows = view.visible_rows()
    assert [r["row"] for r in rows] == [0, 1, 2, 3]
    assert [r["if_else@root"] for r in rows] == ["else", "then", "null", "then"]
    assert [r["value"] for r in rows] == result.to_pylist() == [-1, 4, None, 2]
    assert [(r["a"], r["b"]) for r in rows] == [(0, 7), (2, 8), (None, 9), (5, 10)]
    # what the user sees: the branch names in the table and the division ran on 2 of 4 rows
    assert "<td " in view.table.value and ">then</td>" in view.table.value
    assert "divide_checked(b, a)" in view.nodes.value and "2 of 4" in view.nodes.value
    assert "1, 3" in view.nodes.value


def test_nested_forms_mark_rows_that_never_reached_them(penguins):
    depth, length = tk.field("bill_depth_mm"), tk.field("bill_length_mm")
    expr = tk.coalesce(tk.if_else(length > 45, tk.case_when([(depth > 18, 1)], 0), 2), -1)
    step, result = _evaluation(expr, penguins)
    view = SelectionView(step, page_size=400)
    rows = view.visible_rows()
    lengths = penguins.column("bill_length_mm").to_pylist()
    depths = penguins.column("bill_depth_mm").to_pylist()
    for r, length_mm, depth_mm in zip(rows, lengths, depths):
        if length_mm is None:
            assert r["if_else@0"] == "null" and r["case_when@0/1"] == "·"
            assert r["coalesce@root"] == "arg 1" and r["value"] == -1
        elif length_mm > 45:
            assert r["case_when@0/1"] == ("then 0" if depth_mm > 18 else "else")
        else:
            assert r["if_else@0"] == "else" and r["case_when@0/1"] == "·"
    assert [r["value"] for r in rows] == result.to_pylist()


def test_pages_move_through_a_large_batch(penguins):
    expr = tk.if_else(tk.field("year") == 2008, tk.field("body_mass_g"), 0.0)
    step, _ = _evaluation(expr, penguins)
    view = SelectionView(step, page_size=50)
    assert view.page_count == 7
    assert view.visible_rows()[0]["row"] == 0 and view.previous_button.disabled
    assert view.next_page() == 1
    assert view.visible_rows()[0]["row"] == 50
    assert "rows 50–99 of 344" in view.page_label.value
    view.go_to_page(99)
    assert view.page == 6 and view.next_button.disabled
    assert [r["row"] for r in view.visible_rows()] == list(range(300, 344))
    view.previous_page()
    assert view.page == 5


def test_eager_mode_evaluates_every_branch_on_every_row():
    a = tk.field("a")
    data = pa.table({"a": [1, 2, 3]})
    step, _ = _evaluation(tk.if_else(a > 1, a * 10, a), data, mode="eager")
    view = SelectionView(step)
    assert "eager evaluation" in view.summary.value
    multiply = [n for n in view.rows.node_rows() if n.label == "multiply_checked"]
    assert multiply and multiply[0].rows == 3


def test_labels_are_escaped_in_html():
    weird = "<b>x</b>"
    data = pa.table({weird: ["<script>", None]})
    step, _ = _evaluation(tk.coalesce(tk.field(weird), "&amp;"), data)
    view = SelectionView(step)
    html = view.summary.value + view.table.value + view.nodes.value
    assert "<script>" not in html and "<b>x</b>" not in html
    assert "&lt;script&gt;" in view.table.value and "&amp;amp;" in view.table.value


def test_a_batch_too_large_to_keep_shows_an_honest_sample_and_complete_counts():
    from toolkit.execution.evaluation import KEEP_DATA_ROWS, SAMPLE_FIRST

    n = KEEP_DATA_ROWS + 5
    data = pa.table({"a": pa.array(range(n), pa.int64())})
    a = tk.field("a")
    step, _ = _evaluation(tk.if_else(a > n - 11, a * 2, a), data)
    view = SelectionView(step, page_size=1000)
    # the first rows, then the first rows of each branch: the then branch's ten are its last
    expected = list(range(SAMPLE_FIRST)) + list(range(n - 10, n))
    assert view.rows.sample.tolist() == expected
    assert f"A sample of {len(expected):,} of the {n:,} rows" in view.summary.value
    rows = view.visible_rows()
    assert [r["row"] for r in rows] == expected  # the batch's own row numbers
    last = rows[-1]
    assert last["row"] == n - 1 and last["value"] == 2 * (n - 1)
    assert last["if_else@root"] == "then" and rows[0]["if_else@root"] == "else"
    assert "sampled rows 0–209 of 210" in view.page_label.value
    multiply = next(r for r in view.rows.node_rows() if r.label == "multiply_checked")
    assert multiply.rows == 10 and multiply.row_indices.tolist() == list(range(n - 10, n))
    assert f"10 of {n:,}" in view.nodes.value  # node counts cover every row


def test_a_two_thousand_deep_evaluation_opens_with_bounded_tables():
    import pyarrow as pa

    from widgets import Explorer
    from widgets.selection_rows import MAX_FORM_COLUMNS
    from widgets.selection_view import MAX_NODE_ROWS

    table = pa.table({"a": list(range(2000))})
    expr = tk.field("a")
    for k in range(2000):
        expr = tk.if_else(tk.field("a") > (k % 1000), expr, tk.literal(k))
    with tk.trace() as t:
        tk.evaluate(expr.bind(table.schema), table, simplify=False)
    explorer = Explorer(t)
    view = explorer.selection_view
    assert view is not None
    assert view.nodes.value.count("<tr>") == MAX_NODE_ROWS + 1  # the header row too
    n_nodes = len(t.evaluations[-1].nodes)
    assert n_nodes > 8_000
    assert f"{n_nodes - MAX_NODE_ROWS:,} more are not listed" in view.nodes.value
    header = view.table.value.split("</tr>")[0]
    assert header.count('class="exprscope-form-head"') == MAX_FORM_COLUMNS
    assert "<code>if a &gt; 999</code>" in header  # each column named by its condition
    assert "1,988 more below them" in view.table.value
    assert "(depth " in view.nodes.value  # deep paths are cut, with their depth


def test_an_eager_failure_opens_on_its_failing_row_highlighted_without_a_column_of_nulls():
    import pyarrow as pa

    from widgets.selection_view import SelectionView

    values = list(range(1, 100))
    values[57] = 0  # row 57 divides by zero
    table = pa.table({"a": values})
    with tk.trace() as t:
        with pytest.raises(tk.KernelError):
            tk.evaluate(tk.parse("if(a > -1, 100 / a, 0)").bind(table.schema), table,
                        mode="eager")
    view = SelectionView(t.evaluations[-1], page_size=20)
    assert view.page == 2 and "rows 40–59" in view.page_label.value
    html = view.table.value
    assert html.count('class="exprscope-failing-row"') == 1
    failing = html.split('class="exprscope-failing-row"')[1].split("</tr>")[0]
    assert ">57<" in failing and "✘ fails here: KernelError" in failing
    assert "value (none: the evaluation failed)" in html and ">null<" not in html


def test_a_sample_survives_json_and_a_forged_one_is_refused():
    import json

    from toolkit.execution.evaluation import KEEP_DATA_ROWS

    n = KEEP_DATA_ROWS * 3
    data = pa.table({"a": pa.array(range(n), pa.int64())})
    with tk.trace() as t:
        tk.evaluate(tk.parse(f"if(a > {n - 20}, a * 2, a)").bind(data.schema), data)
    back = tk.Trace.from_json(t.to_json()).evaluations[-1]
    live = t.evaluations[-1]
    assert back.sample.equals(live.sample) and back.data.equals(live.data)
    assert SelectionView(back).visible_rows() == SelectionView(live).visible_rows()
    doc = json.loads(t.to_json())
    step = next(s for s in doc["steps"] if s["kind"] == "eval")
    step["sample"] = list(reversed(step["sample"]))
    with pytest.raises(tk.errors.TraceFormatError, match="increasing order"):
        tk.Trace.from_json(json.dumps(doc))


def test_rows_that_never_reached_a_form_are_said_in_words_where_a_mark_would_puzzle():
    a = tk.field("a")
    data = pa.table({"a": [0, 1, 2, 0, 1]})
    step, _ = _evaluation(tk.if_else(a == 0, 9, tk.if_else(a == 1, 10, 20)), data)
    view = SelectionView(step)
    assert "(if_else at 2): not reached: 2, then: 2, else: 1" in view.summary.value
    assert "·:" not in view.summary.value
    # the table keeps its compact mark, and says what it means below
    assert ">·</td>" in view.table.value
    assert "· the row never reached that special form" in view.table.value
    labels = [label for label, _ in view.branch_filter.options]
    assert "if a == 1: not reached (2 rows)" in labels and "if a == 1: else (1 row)" in labels
    view.branch_filter.value = (1, "·")
    assert [r["row"] for r in view.visible_rows()] == [0, 3]
    assert "rows that never reached if a == 1" in view.page_label.value


def test_node_and_form_texts_are_short_as_the_tree_labels_are():
    data = pa.table({"a": pa.array([1, 2, 3], pa.int32()), "s": ["x", "Gentoo", "y"]})
    expr = tk.parse("if(s in ('Gentoo', 'Chinstrap'), cast(a as double) / 2, 0.0)")
    step, _ = _evaluation(expr.bind(data.schema), data)
    view = SelectionView(step)
    html = view.summary.value + view.nodes.value
    assert "cast(a, to double)" in view.nodes.value
    assert "is_in(s, {&quot;Gentoo&quot;, &quot;Chinstrap&quot;})" in html
    assert "allow_int_overflow" not in html and "value_set" not in html and "\\n" not in html
