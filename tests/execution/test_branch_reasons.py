"""The reason a traced node gives for how it ran is true of that node: a literal is one value
for the rows its branch took (not a branch run densely, not "used on 0" of rows it never ran
on); a branch run densely by its cost names the share it needed, which its rows reached; a
masked branch says its other rows were made null; a selected one why it was not dense."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.execution.dense_path import MIN_DENSE_ROWS, break_even


def _traced(text: str, table: pa.Table):
    with tk.trace() as t:
        value = tk.evaluate(tk.parse(text), table)
    event = t.evaluations[0]
    return value, event, {tuple(s.path): s for s in event.nodes}


def _share_in(why: str) -> float:
    return int(re.search(r"(\d+)% of the rows selected", why).group(1)) / 100


@pytest.mark.parametrize("rows", [1_000, 50_000])
def test_a_literal_branch_of_a_dense_form_is_one_value_for_the_rows_its_branch_took(rows):
    rng = np.random.default_rng(5)
    table = pa.table({"a": rng.integers(0, 10, rows), "b": rng.random(rows)})
    value, event, stats = _traced("if(a > 3, b * 2.0, 0.0)", table)
    assert value.equals(tk.evaluate(tk.parse("if(a > 3, b * 2.0, 0.0)"), table, mode="eager"))
    then, zero = stats[(1,)], stats[(2,)]
    else_rows = int(pc.sum(pc.less_equal(table["a"], 3)).as_py())
    assert then.how == "dense" and then.rows == rows  # computed on every row, one kernel
    assert zero.how == "literal" and "literal" in zero.why and "dense" not in zero.why
    assert zero.rows == zero.used == else_rows  # the rows its branch took, nothing computed
    text = tk.to_text(event, color=False, width=200)
    zero_line = next(line for line in text.splitlines() if "[else" in line)
    assert f"{else_rows:,} of {rows:,} rows" in zero_line and "computed on" not in zero_line


def test_a_literal_whose_branch_took_no_row_is_not_said_to_run_on_any():
    rows = 1_000
    table = pa.table({"b": np.arange(rows, dtype=float)})  # b is never null
    _, event, stats = _traced("coalesce(b, b * 2, 0.0)", table)
    zero = stats[(2,)]
    assert zero.how == "literal" and zero.rows == 0 and zero.used == 0
    assert "computed on" not in tk.to_text(event, color=False, width=200).split("0.0")[-1][:80]


def test_a_branch_chosen_dense_by_its_cost_names_the_break_even_its_rows_reached():
    n = MIN_DENSE_ROWS * 4
    rng = np.random.default_rng(7)
    table = pa.table({"r": rng.random(n), "b": rng.random(n) * 100})
    text = "if(r < 0.6, ln(b + 1) * sqrt(b) + exp(b / 100), 0.0)"
    _, _, stats = _traced(text, table)
    costly = stats[(1,)]
    even = break_even(tk.bind(tk.parse(text), table.schema).args[1])
    assert 0.1 < even < 0.6
    assert costly.how == "dense" and costly.rows == n
    assert costly.why.startswith(f"at least {even:.0%} of the rows selected (its break-even")
    assert costly.why.endswith("cannot fail")
    assert costly.used / n >= _share_in(costly.why)  # true of the rows it ran on


def test_a_masked_branch_says_its_other_rows_were_made_null_and_a_selected_one_why():
    n = MIN_DENSE_ROWS * 4
    rng = np.random.default_rng(3)
    r = rng.random(n)
    a = rng.integers(1, 9, n)
    a[r >= 0.6] = 0  # every zero divisor lies on a row the branch does not select
    table = pa.table({"r": r, "a": a, "k": rng.integers(0, 100, n)})
    _, _, stats = _traced("if(r < 0.6, k / a, 0)", table)
    divide = stats[(1,)]
    assert divide.how == "masked"
    assert "the others made null so no failing kernel sees them" in divide.why
    assert divide.used / n >= _share_in(divide.why)
    # the same branch on a few rows: under its break-even, so on those rows only
    _, _, stats = _traced("if(r < 0.005, k / a, 0)", table)
    divide = stats[(1,)]
    assert divide.how == "selected" and divide.rows == divide.used < n
    assert divide.why.startswith("under its break-even of ")
    assert divide.used / n < _share_in(divide.why)
    # a branch that could fail where a special form hides the failure cannot run densely
    _, _, stats = _traced("if(r < 0.6, coalesce(k / a, 0), 1)", table)
    assert stats[(1,)].how == "selected"
    assert stats[(1,)].why == "it could fail on a row it was not selected for"


@pytest.mark.parametrize("inner", ["if(b > 50, b, ln(b + 2))",
                                   "utf8_length(if(b > 50, s, utf8_upper(s)))"])
def test_a_column_under_a_selection_is_read_not_said_to_pass_a_zero_break_even(inner):
    n = MIN_DENSE_ROWS * 16
    rng = np.random.default_rng(11)
    words = pa.array(["alpha", "Beta", None, "gamma ray"])
    table = pa.table({"r": rng.random(n), "b": rng.random(n) * 100,
                      "s": pc.take(words, pa.array(rng.integers(0, 4, n)))})
    # the outer branch is costly and takes a third of the rows, under its break-even: it runs
    # on them only, and the inner if_else reads the column under that selection
    text = f"if(r < 0.35, ln(b + 1) + {inner}, 0.0)"
    value, _, stats = _traced(text, table)
    assert value.equals(tk.evaluate(tk.parse(text), table, mode="eager"))
    form = (1, 1) if inner.startswith("if") else (1, 1, 0, 0)  # below the length and its cast
    assert stats[form].how == "selected"
    column = stats[(*form, 1)]
    assert column.how == "dense" and column.why == "a column: read, not computed"
    assert not any(re.search(r"\b0% of the rows", s.why) for s in stats.values())


def test_every_reason_of_a_large_case_when_is_true_of_its_node():
    n = MIN_DENSE_ROWS * 4
    rng = np.random.default_rng(13)
    table = pa.table({"x": rng.integers(0, 100, n), "b": rng.random(n)})
    cases = " ".join(f"when x < {3 * (i + 1)} then b * {i}" for i in range(30))
    _, event, stats = _traced(f"case {cases} else 0 end", table)
    for path, stat in stats.items():
        node = event.expr
        for step in path:
            node = node.args[step]
        if node.is_literal:
            assert stat.how in ("", "all rows", "literal", "selected"), (path, stat)
            assert "dense" not in stat.why and "cheap branches" not in stat.why
        if stat.how in ("dense", "masked") and "% of the rows selected" in stat.why:
            assert _share_in(stat.why) > 0  # a share of 0% is no reason to run densely
