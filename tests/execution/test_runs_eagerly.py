"""Untraced, a special form whose branches are all cheap on the batch runs as eager
evaluation does, and so does any form on a small batch; a branch that could fail on an
unselected row is then taken on trust, and a failure on trust costs a second, careful
evaluation, never an error."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.execution.batch_context import BatchContext
from toolkit.execution.dense_path import EVERY_SIZE, MIN_DENSE_ROWS, SMALL_EAGER_ROWS
from toolkit.execution.forms import runs_eagerly
from toolkit.execution.prepare import prepare
from toolkit.functions.cast_range_check import RANGE_CHECK_MIN_ROWS


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


def test_a_form_whose_branch_could_fail_on_an_unselected_row_is_taken_on_trust_once():
    """On a small batch selecting costs more than computing the rows it spares, so a form
    whose branch can fail runs eagerly on trust; the failure on a row the form never
    selects is not the user's error: the batch runs again lazily, and the tree is never
    taken on trust again (its guard does guard something)."""
    batch = _batch(1_000)
    text = "if(a != 0, k / a, 0)"  # integer division by zero on the rows a = 0
    assert _decides(text, batch)  # a tree never seen failing: on trust
    bound = tk.bind(tk.parse(text), batch.schema)
    for _ in range(2):
        assert len(tk.evaluate(bound, batch)) == 1_000  # the failing rows' values unused
    assert prepare(bound, batch.schema).density.trust.failed
    with pytest.raises(tk.KernelError):
        tk.evaluate(bound, batch, mode="eager")
    assert not _decides(text, _batch(MIN_DENSE_ROWS + 1))  # a large batch: never on trust


def test_a_string_branch_on_a_small_batch_runs_eagerly_unless_an_unselected_row_fails():
    """utf8_upper fails on invalid UTF-8: a bad string on a row its branch does not take
    never reaches the user, whether the form ran eagerly on trust or lazily."""
    good = pa.array(["alpha", "Beta", None, "gamma"] * 250)
    bad = pa.array([b"alpha", b"Beta", None, b"\xff"] * 250, pa.binary()).view(pa.string())
    text = "case when a < 10 then utf8_upper(s) else s end"
    for strings in (good, bad):
        batch = pa.record_batch({"a": pa.array([1, 2, 3, 50] * 250), "s": strings})
        assert _decides(text, batch)
        value = tk.evaluate(tk.parse(text), batch)
        assert value.slice(0, 3).to_pylist() == ["ALPHA", "BETA", None]
        assert value.view(pa.binary())[3] == strings.view(pa.binary())[3]  # as it was
    with pytest.raises(tk.KernelError):
        tk.evaluate(tk.parse(text), batch, mode="eager")


@pytest.mark.parametrize(("text", "below"), [
    ("(b * 2 + x) * 3 - b / 7", EVERY_SIZE),  # no form at all
    ("coalesce(x, b * 2, 0.0)", EVERY_SIZE),  # cheap children: eager on any batch
    ("case when a < 10 then b else 0.0 end", MIN_DENSE_ROWS),  # a large case_when funnels
    ("if(a != 0, b / a, 0.0)", RANGE_CHECK_MIN_ROWS),  # its cast taken on trust
    ("if(b < 50, ln(b + 1), 0.0)", SMALL_EAGER_ROWS),  # costly: eager on small batches
    ("choose(a - a, b, b * 2)", 0),  # a form with no dense children: always a form
])
def test_whether_a_whole_tree_runs_eagerly_is_decided_once_per_tree(text, below):
    batch = _batch(10)
    bound = tk.bind(tk.parse(text), batch.schema)
    facts = prepare(bound, batch.schema, simplify=False).density
    assert facts.eager_below == below
    assert tk.evaluate(bound, batch).equals(tk.evaluate(bound, batch, mode="eager"))


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
