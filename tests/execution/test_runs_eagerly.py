"""Untraced, a special form whose branches are all cheap on the batch runs as eager
evaluation does; one with a branch that could fail on an unselected row never does, and
a cast taken on trust that fails costs a second, careful evaluation, never an error."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.execution.batch_context import BatchContext
from toolkit.execution.dense_path import MIN_DENSE_ROWS
from toolkit.execution.forms import runs_eagerly
from toolkit.execution.prepare import prepare


def _batch(rows: int, huge_row: int | None = None) -> pa.RecordBatch:
    rng = np.random.default_rng(3)
    a = rng.integers(0, 50, rows)
    if huge_row is not None:
        a[huge_row] = (1 << 60) + 1  # not exactly a double
    return pa.record_batch({
        "a": a, "b": rng.random(rows) * 100,
        "x": pa.array(rng.random(rows), mask=rng.random(rows) < 0.5),
        "k": rng.integers(0, 1000, rows)})


def _decides(text: str, batch: pa.RecordBatch) -> bool:
    bound = tk.bind(tk.parse(text), batch.schema)
    prepared = prepare(bound, batch.schema, simplify=False)  # the very tree: its facts
    ctx = BatchContext(batch, 0, lazy=True, observing=False, prepared=prepared)
    return runs_eagerly(ctx, bound, None)


@pytest.mark.parametrize("text", [
    "if(a > 3, b * 2, b + 1)",
    "coalesce(x, b * 2, 0.0)",
    "a > 3 and b < 50",
    "if(a != 0, b / a, 0.0)",  # the int64 -> double cast: proven on this batch
    "case when a < 10 then b when a < 20 then b * 2 else 0.0 end",
])
def test_cheap_forms_run_eagerly_and_give_the_lazy_answer(text):
    batch = _batch(1_000)
    assert _decides(text, batch)
    bound = tk.bind(tk.parse(text), batch.schema)
    untraced = tk.evaluate(bound, batch)
    with tk.trace():  # traced, the form runs as a form: selections are recorded
        traced = tk.evaluate(bound, batch)
    assert untraced.equals(traced)
    assert untraced.equals(tk.evaluate(bound, batch, mode="eager"))


def test_a_form_whose_branch_could_fail_on_an_unselected_row_stays_lazy():
    batch = _batch(1_000)
    text = "if(a != 0, k / a, 0)"  # integer division by zero on the rows a = 0
    assert not _decides(text, batch)
    bound = tk.bind(tk.parse(text), batch.schema)
    assert len(tk.evaluate(bound, batch)) == 1_000  # the failing rows were never computed
    with pytest.raises(tk.KernelError):
        tk.evaluate(bound, batch, mode="eager")


def test_a_cast_taken_on_trust_that_fails_sends_the_batch_round_again_lazily():
    """On a small batch a cast is taken on trust, checked as eager evaluation checks it;
    its failure on a row the form never selects is not the user's error: the batch is
    evaluated again, proving first, and the form then runs lazily."""
    batch = _batch(1_000, huge_row=5)
    text = "if(a != 0 and a < 100, b / a, 0.0)"  # the cast fails on the huge row only
    assert _decides(text, batch)  # on trust
    bound = tk.bind(tk.parse(text), batch.schema)
    value = tk.evaluate(bound, batch)
    with tk.trace():  # traced, nothing is taken on trust
        assert value.equals(tk.evaluate(bound, batch))
    assert value[5].as_py() == 0.0
    with pytest.raises(tk.KernelError):
        tk.evaluate(bound, batch, mode="eager")


def test_a_real_failure_after_a_trusted_cast_failed_is_reported_once_with_its_row():
    batch = _batch(1_000, huge_row=5)
    text = "if(a != 0 and a < 100, b / a, 0.0) + cast(k / (k - k) as double)"
    bound = tk.bind(tk.parse(text), batch.schema)
    with pytest.raises(tk.KernelError, match="divide by zero") as failed:
        tk.evaluate(bound, batch)
    assert failed.value.row == 0


def test_a_large_fixed_width_case_when_funnels_instead():
    batch = _batch(MIN_DENSE_ROWS + 1)
    assert not _decides("case when a < 10 then b when a < 20 then b * 2 else 0.0 end", batch)
    assert _decides("if(a > 3, b * 2, b + 1)", batch)
