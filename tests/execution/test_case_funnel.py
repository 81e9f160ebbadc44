"""A case_when with many cases funnels: each condition sees only the rows no earlier case
took, each value runs on its own rows only, and one merge assembles the result."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

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
    assert sum(counts[f"then {i}"] for i in range(n)) + counts["else"] == ROWS
    for i in range(n):
        value = stats[(1 + i,)]
        assert value.rows == counts[f"then {i}"], i  # not every row of the domain
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
    assert counts["when 11"] == 0 and counts["then 11"] == 0


def _long_table(rows=80_000, seed=11):
    rng = np.random.default_rng(seed)
    k = pa.array(rng.integers(0, 1000, rows), mask=rng.random(rows) < 0.1)
    b = pa.array(rng.random(rows) * 100, mask=rng.random(rows) < 0.05)
    return pa.table({"k": k, "b": b})


def test_a_long_funnel_narrows_to_the_remaining_rows_and_still_gives_arrows_answer():
    """Past half the rows taken, with many cases left, the conditions run on the rows no
    case took (gathered once), as DuckDB's funnel narrows its selection."""
    table, n = _long_table(), 60
    bound = tk.bind(tk.parse(_text(n)), table.schema)
    with tk.trace() as trace:
        lazy = tk.evaluate(bound, table)
    assert lazy.equals(_oracle(table, n))
    assert tk.evaluate(bound, table, mode="eager").equals(lazy)
    event = trace.evaluations[-1]
    counts = {b.branch: b.count for b in event.branches}
    stats = {s.path: s for s in event.nodes}
    remaining = pa.array([True] * table.num_rows)
    for i in range(n):
        assert counts[f"when {i}"] == remaining.true_count, i
        cond = pc.fill_null(pc.less(table["k"], (i + 1) * 1000 // (n + 1)), False)
        remaining = pc.and_not(remaining, cond.combine_chunks())
    late = stats[(0, n - 1)]  # the last condition ran on fewer rows than the batch
    assert late.rows < table.num_rows // 2 and late.used_rows == counts[f"when {n - 1}"]
    assert "funnel narrowed" in late.why  # the trace says why it ran on fewer rows


def test_a_failing_condition_after_the_funnel_narrowed_never_sees_a_taken_row():
    """k = 300 makes `1000 / (k - 300)` divide by zero; those rows are taken by an early
    case, so the lazy funnel, narrowed or not, never evaluates the division on them."""
    table, n = _long_table(seed=12), 40
    whens = [f"when k < {(i + 1) * 20} then b * {i}" for i in range(n)]
    late = " ".join(f"when 1000 / (k - 300) > {j} then b + {j}" for j in range(20))
    bound = tk.bind(tk.parse(f"case {' '.join(whens)} {late} else 0.0 end"), table.schema)
    with tk.trace() as trace:
        lazy = tk.evaluate(bound, table)
    k, b = table["k"], table["b"]
    assert pc.sum(pc.equal(k, 300)).as_py() > 0
    # the rows no early case took (k >= 800; a null k is never taken): k - 300 is never 0
    rest = pc.fill_null(pc.greater_equal(k, n * 20), False)
    ratio = pc.divide(pa.scalar(1000, pa.int64()), pc.subtract(pc.filter(k, rest), 300))
    want = pc.if_else(pc.greater(ratio, 0), pc.add(pc.filter(b, rest), 0.0), 0.0)
    assert pc.filter(lazy, rest).equals(want)
    stats = {s.path: s for s in trace.evaluations[-1].nodes}
    assert stats[(0, n + 19)].rows < table.num_rows // 2  # narrowed before the divisions
    with pytest.raises(tk.KernelError, match="divide by zero"):
        tk.evaluate(bound, table, mode="eager")
