"""A case_when with many cases funnels: each condition sees only the rows no earlier case
took, each value runs on its own rows only, and one merge assembles the result."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk

ROWS = 40_000  # above the size where cheap branches would run densely


def _table():
    rng = np.random.default_rng(5)
    b = pa.array(rng.random(ROWS) * 100, mask=rng.random(ROWS) < 0.05)
    return pa.table({"k": rng.integers(0, 1000, ROWS), "b": b})


def _text(n: int) -> str:
    whens = " ".join(f"when k < {(i + 1) * 1000 // (n + 1)} then b * {i}" for i in range(n))
    return f"case {whens} else -1.0 end"


def _oracle(table, n):
    k, b = table["k"], table["b"]
    conds = [pc.less(k, (i + 1) * 1000 // (n + 1)) for i in range(n)]
    struct = pc.make_struct(*conds, field_names=[str(i) for i in range(n)])
    return pc.case_when(struct, *[pc.multiply(b, float(i)) for i in range(n)], -1.0)


def test_thirty_cases_give_arrows_answer_with_each_value_computed_on_its_rows():
    table, n = _table(), 30
    bound = tk.bind(tk.parse(_text(n)), table.schema)
    with tk.trace() as trace:
        lazy = tk.evaluate(bound, table)
    assert lazy.equals(_oracle(table, n).cast(lazy.type))
    assert tk.evaluate(bound, table, mode="eager").equals(lazy)
    event = trace.evaluations[-1]
    counts = {b.branch: b.count for b in event.branches}
    stats = {s.path: s for s in event.nodes}
    assert sum(counts[f"then {i + 1}"] for i in range(n)) + counts["else"] == ROWS
    for i in range(n):
        value = stats[(1 + i,)]
        assert value.rows == counts[f"then {i + 1}"], i  # not every row of the domain
        assert value.how == "selected"


def test_the_funnel_stops_once_every_row_is_taken_and_never_runs_a_later_case():
    table = _table()
    cases = " ".join(f"when k < {100 * (i + 1)} then b * {i}" for i in range(10))
    # k < 1000 takes every remaining row: the failing division below is never reached
    text = f"case {cases} when k >= 0 then b / (k - k) when k / (k - k) > 0 then 1.0 end"
    bound = tk.bind(tk.parse(text), table.schema)
    with tk.trace() as trace:
        value = tk.evaluate(bound, table)
    assert value.null_count == table["b"].null_count
    counts = {b.branch: b.count for b in trace.evaluations[-1].branches}
    assert counts["when 12"] == 0 and counts["then 12"] == 0
