"""Rows of a sampled evaluation looked up on demand: any row while the batch is alive, the
sample's rows after, rows filtered by branch, and the failing row."""

import functools
import gc

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from widgets import SelectionView
from widgets.selection_rows import NOT_KEPT

ROWS = 60_000


def _table(rows: int = ROWS) -> pa.Table:
    rng = np.random.default_rng(5)
    return pa.table({"a": pa.array(rng.integers(-3, 4, rows)),
                     "b": pa.array(rng.integers(0, 1000, rows))})


def _traced(table, expr, mode="lazy"):
    with tk.trace() as t:
        try:
            result = tk.evaluate(expr, table, mode=mode)
        except tk.KernelError:
            result = None
    return t, result


EXPR = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), tk.field("b"))


def _expected(table, row):
    a, b = table["a"][row].as_py(), table["b"][row].as_py()
    return {"a": a, "b": b, "value": int(pc.divide(b, a).as_py()) if a else b,
            "if_else@root": "then" if a else "else"}


def test_any_row_of_a_live_batch_is_looked_up_and_highlighted():
    table = _table()
    t, result = _traced(table, EXPR)
    view = SelectionView(t.evaluations[0])
    assert view.rows.sample is not None and 30_000 not in set(view.rows.sample.tolist())
    assert view.go_to_row(30_000)
    record = next(r for r in view.visible_rows() if r["row"] == 30_000)
    assert {k: record[k] for k in ("a", "b", "value", "if_else@root")} == _expected(table, 30_000)
    assert record["value"] == result[30_000].as_py()
    assert 'class="exprscope-target-row"' in view.table.value
    assert f"all {ROWS:,} rows" in view.page_label.value


def test_a_let_go_result_is_computed_again_for_the_rows_shown_without_tracing_it():
    table = _table()
    t, result = _traced(table, EXPR)
    expected = result[41_234].as_py()
    del result
    gc.collect()
    view = SelectionView(t.evaluations[0])
    assert view.go_to_row(41_234)
    assert next(r for r in view.visible_rows() if r["row"] == 41_234)["value"] == expected
    assert len(t.evaluations) == 1  # the lookup is not a step of the trace


def test_once_the_batch_is_gone_only_the_sample_can_be_shown_and_the_view_says_so():
    table = _table()
    t, result = _traced(table, EXPR)
    event = t.evaluations[0]
    kept = int(event.sample[-1].as_py())
    del table, result
    gc.collect()
    view = SelectionView(event)
    assert not view.go_to_row(30_001)
    assert "not in the kept sample" in view.lookup_note.value
    assert view.go_to_row(kept) and view.lookup_note.value == ""
    # branches are known for every row even so; inputs are not
    record = view.rows.look_up([30_001])[0]
    assert record["a"] == NOT_KEPT and record["if_else@root"] in ("then", "else")


def test_rows_filtered_by_branch_are_every_row_that_took_it():
    table = _table()
    t, _ = _traced(table, EXPR)
    view = SelectionView(t.evaluations[0], page_size=50)
    zeros = int(pc.sum(pc.equal(table["a"], 0)).as_py())
    options = dict((v, k) for k, v in view.branch_filter.options)
    assert f"else ({zeros:,} rows)" in options[(0, "else")]
    view.branch_filter.value = (0, "else")
    assert view.row_count == zeros
    view.go_to_page(view.page_count - 1)
    rows = view.visible_rows()
    assert rows and all(r["if_else@root"] == "else" and r["a"] == 0 for r in rows)
    assert "rows that took else of if a != 0" in view.page_label.value
    view.branch_filter.value = (None, None)
    assert view.row_count == len(view.rows.sample)


def test_the_failing_row_of_a_large_eager_failure_is_one_click_away():
    table = _table()
    t, _ = _traced(table, tk.field("b") / tk.field("a"), mode="eager")
    event = t.evaluations[0]
    failing = event.error.row
    assert failing is not None and table["a"][failing].as_py() == 0
    view = SelectionView(event)
    view.go_to_page(view.page_count - 1)
    view.failing_button.click()
    assert any(r["row"] == failing for r in view.visible_rows())
    assert 'class="exprscope-failing-row"' in view.table.value


def test_a_row_past_the_end_is_named_not_a_traceback():
    table = _table(20_000)
    t, _ = _traced(table, EXPR)
    view = SelectionView(t.evaluations[0])
    assert not view.go_to_row(25_000)
    assert "no row 25,000: the batch has 20,000 rows" in view.lookup_note.value


@functools.lru_cache(maxsize=1)
def _live():
    """One live evaluation for the property below (its table and result stay held here)."""
    table = _table()
    t, result = _traced(table, EXPR)
    return table, result, SelectionView(t.evaluations[0]).rows


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, ROWS - 1), min_size=1, max_size=30, unique=True))
def test_looked_up_rows_agree_with_the_batch(rows):
    table, _, selection_rows = _live()
    records = selection_rows.look_up(sorted(rows))
    assert [r["row"] for r in records] == sorted(rows)
    for r in records:
        assert {k: r[k] for k in ("a", "b", "value", "if_else@root")} == \
            _expected(table, r["row"])
