"""A tree's large evaluations run on the pool or in the caller's thread, whichever its
evaluations measured faster: the first ones try both ways, the faster then runs, the
other is tried again now and then; the values are the same either way."""

from __future__ import annotations

import threading

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.execution import evaluation, parallel, thread_choice
from toolkit.execution.thread_choice import RECHECK_EVERY, RECHECKS, TRIALS, ThreadChoice


def _ways(choice: ThreadChoice, key, pool_seconds: float, alone_seconds: float, runs: int):
    out = []
    for _ in range(runs):
        pooled = choice.pooled(key)
        choice.record(key, pooled, 1_000_000, pool_seconds if pooled else alone_seconds)
        out.append(pooled)
    return out


def test_the_faster_way_runs_after_both_are_tried():
    choice = ThreadChoice()
    ways = _ways(choice, "lazy", pool_seconds=0.004, alone_seconds=0.002, runs=3 * RECHECK_EVERY)
    assert ways[:TRIALS] == [True, False, True]
    tried_again = [i for i, pooled in enumerate(ways) if pooled and i >= TRIALS]
    assert tried_again == [*sorted(RECHECKS), RECHECK_EVERY, 2 * RECHECK_EVERY]
    # the other way of one tree (eager, traced, ...) is measured on its own
    assert _ways(choice, "eager", 0.001, 0.002, TRIALS + 1)[TRIALS:] == [True]


def test_a_way_that_became_faster_is_taken_at_the_next_trial():
    """The machine's load changed: the pool, slower at first, is faster when tried again."""
    choice = ThreadChoice()
    _ways(choice, "lazy", 0.004, 0.002, RECHECK_EVERY)
    # from now on the pool takes a quarter of the time: tried again at the next recheck
    # (run RECHECK_EVERY), four times faster than the best time alone, it runs from then
    later = _ways(choice, "lazy", 0.0005, 0.002, 5)
    assert later == [True] * 5


def test_the_first_evaluation_is_a_warm_up_not_counted():
    """The pool's first run was slow (its threads started, its loops compiled then): it is
    not counted, so the pool, faster from then on, wins after the trials."""
    choice = ThreadChoice()
    first = choice.pooled("lazy")
    choice.record("lazy", first, 1_000_000, 0.050)
    ways = [first] + _ways(choice, "lazy", 0.001, 0.002, 9)
    # (the 4th and 8th try the caller's thread again, slower as measured)
    assert ways == [True, False, True, True, False, True, True, True, False, True]


@pytest.mark.parametrize("pool_faster", [True, False])
def test_evaluations_go_the_measured_faster_way_with_the_same_values(monkeypatch, pool_faster):
    """A 40-chunk table: the first evaluations run on the pool (a warm-up), in the caller's
    thread, on the pool; then the way the (here simulated) clock measured faster runs; every value is
    the same."""
    monkeypatch.setattr(parallel, "WORKERS", 2)
    seconds = {True: 0.001 if pool_faster else 0.004, False: 0.002}
    used: list[bool] = []
    real_run = parallel.run_morsels

    def run_and_note(*args, pooled=True, **kwargs):
        used.append(pooled)
        return real_run(*args, pooled=pooled, **kwargs)

    clock = iter(range(10_000))
    monkeypatch.setattr(evaluation, "run_morsels", run_and_note)
    # `now()` read before and after each run of the morsels: the simulated seconds apart
    ticks: list[float] = []

    def fake_now():
        if len(ticks) % 2 == 0:
            ticks.append(next(clock))
        else:
            ticks.append(ticks[-1] + seconds[used[-1]])
        return ticks[-1]

    monkeypatch.setattr(evaluation, "now", fake_now)
    table = pa.table({"a": pa.chunked_array([list(range(i * 5_000, (i + 1) * 5_000))
                                             for i in range(40)], pa.int64())})
    expr = tk.bind(tk.parse("a * 3 - 1"), table.schema)
    values = {tk.evaluate(expr, table, fuse=False).to_pylist()[-7] for _ in range(TRIALS + 6)}
    assert values == {3 * 199_993 - 1}
    assert used[:TRIALS] == [True, False, True]
    # the 4th and 8th (counted from 0) try the other way again, as measured it is slower
    assert used[TRIALS:] == [pool_faster if i not in (4, 8) else not pool_faster
                             for i in range(TRIALS, TRIALS + 6)]


def test_the_caller_s_thread_alone_runs_every_morsel(monkeypatch):
    """Run the caller's way, no morsel reaches the pool's threads."""
    monkeypatch.setattr(thread_choice._Measured, "pooled", lambda self: False)
    seen: set = set()
    real_one = parallel._Run.one

    def one(run, i):
        seen.add(threading.get_ident())
        return real_one(run, i)

    monkeypatch.setattr(parallel._Run, "one", one)
    table = pa.table({"a": pa.chunked_array([[1] * 50_000] * 8, pa.int64())})
    assert tk.evaluate("a + 1", table).to_pylist()[-1] == 2
    assert seen == {threading.get_ident()}
