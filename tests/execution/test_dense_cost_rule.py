"""The cost rule: branches run densely where selecting cannot save work or failures,
and never on rows where they would fail."""

import numpy as np
import pyarrow as pa

import toolkit as tk
from toolkit.execution.dense_path import MIN_DENSE_ROWS, break_even


def _nodes(expr, data):
    events = []

    class Listener:
        def on_eval(self, event):
            events.append(event)

    value = tk.evaluate(expr, data, observer=Listener())
    return value, {s.path: s for s in events[0].nodes}


def test_a_failing_branch_past_its_break_even_runs_densely_but_never_sees_unselected_rows():
    n = MIN_DENSE_ROWS * 4
    rng = np.random.default_rng(3)
    r = rng.random(n)
    a = rng.integers(1, 9, n)
    a[r >= 0.6] = 0  # every zero divisor lies on a row the branch does not select
    table = pa.table({"r": r, "a": a, "k": rng.integers(0, 100, n)})
    expr = tk.bind(tk.parse("if(r < 0.6, k / a, 0)"), table.schema)
    value, stats = _nodes(expr, table)
    divide = stats[(1,)]
    assert divide.how == "masked" and divide.rows == n  # dense, its other rows made null
    want = np.where(r < 0.6, table["k"].to_numpy() // np.where(a == 0, 1, a), 0)
    assert value.to_numpy().tolist() == want.tolist()


def test_a_small_batch_runs_cheap_forms_densely_but_keeps_fallible_branches_selected():
    n = 1000
    a = np.arange(n) % 5
    big = np.where(a == 0, 2 ** 60, a)  # not exactly a double: the cast fails on these rows
    table = pa.table({"a": a, "big": big, "b": np.arange(n, dtype=float)})
    # integer division by zero and an int64 -> double cast out of range, both unselected
    for text in ("if(a != 0, b / big, 0.0)", "if(a != 0, 100 / a, 0)",
                 "a != 0 and b / big > 2"):
        expr = tk.bind(tk.parse(text), table.schema)
        value, stats = _nodes(expr, table)
        assert len(value) == n
        assert all(s.how != "dense" for path, s in stats.items() if path[:1] == (1,)), text
    cheap = tk.bind(tk.parse("coalesce(b, b * 2, 0.0)"), table.schema)
    value, stats = _nodes(cheap, table)
    assert stats[(1,)].how == "dense" and stats[(1,)].rows == n
    assert value.equals(tk.evaluate(cheap, table, mode="eager"))


def test_the_break_even_falls_with_the_work_a_branch_saves():
    schema = pa.schema([("b", pa.float64()), ("s", pa.string())])
    costly = tk.bind(tk.parse("ln(b + 1) * sqrt(b) + exp(b / 100)"), schema)
    cheap = tk.bind(tk.parse("b * 2"), schema)
    strings = tk.bind(tk.parse("utf8_upper(s)"), schema)
    assert 0.1 < break_even(costly) < 0.5  # selecting pays at 10%, not at 50%
    assert break_even(cheap) < break_even(costly)
    assert break_even(strings) < 0.2  # gathering and merging strings costs more than most kernels
