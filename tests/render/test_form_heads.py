"""Branch columns are named by what their form is about and a chain's follow its terms."""

import pyarrow as pa

import toolkit as tk
from toolkit.render.branch_table import BranchTable
from toolkit.render.form_heads import form_heading, reading_order

DATA = pa.table({"a": [1, None, 3, 0], "b": [0, 1, None, 2], "c": [5, 6, 7, None],
                 "d": [True, None, False, True]})


def _heads(text: str) -> list[str]:
    with tk.trace() as t:
        tk.evaluate(tk.parse(text), DATA)
    table = BranchTable(t.evaluations[-1])
    return [form_heading(f, table.node(f.path)).short for f in reading_order(table.forms)]


def test_a_left_deep_chain_reads_in_the_order_written():
    assert _heads("a > 0 or b > 0 or c > 5 or d") == ["or b > 0", "or c > 5", "or d"]
    assert _heads("a > 0 and b > 0 and c > 5") == ["and b > 0", "and c > 5"]


def test_other_shapes_keep_their_order_and_name_their_terms():
    # a right-deep chain: the outer `or` adds the whole inner one
    assert _heads("a > 0 or (b > 0 or c > 5)") == ["or (b > 0) or (c > 5)", "or c > 5"]
    # `and`s under an `or`: each its own form, outermost first
    assert _heads("(a > 0 and b > 0) or (c > 5 and d)") == [
        "or (c > 5) and d", "and b > 0", "and d"]
    assert _heads("if(a > 1, b, c)") == ["if a > 1"]
    assert _heads("coalesce(a, b, c)") == ["coalesce(a, b, c)"]


def test_the_tooltip_holds_the_whole_form_and_where_it_is():
    with tk.trace() as t:
        tk.evaluate(tk.parse("a > 0 or b > 0"), DATA)
    table = BranchTable(t.evaluations[-1])
    (form,) = table.forms
    heading = form_heading(form, table.node(form.path))
    assert heading.full.splitlines()[1:] == ["((a > 0) or (b > 0))", "or_kleene at root"]
