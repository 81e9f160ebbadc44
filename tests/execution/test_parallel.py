"""Morsels on the pool: every core gets a share, chunks are joined whole, a failure stops the rest."""

import threading

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.errors import KernelError
from toolkit.execution import parallel
from toolkit.execution.morsel_size import morsel_rows

from .eval_recorder import Recorder

a = tk.field("a")
INT_SCHEMA = pa.schema([("a", pa.int64())])


def calls_of(event, label):
    """Kernel calls of the node; 0 when no morsel that ran it finished (none recorded)."""
    return next((n.calls for n in event.nodes if n.label == label), 0)


def test_one_batch_of_a_cut_tree_is_shared_by_every_worker(monkeypatch):
    """A 262,144-row batch (Spark's engine mode) is one morsel's worth: it still uses every core."""
    monkeypatch.setattr(parallel, "WORKERS", 2)
    expr = tk.bind((a + 1) * 2, INT_SCHEMA)
    assert morsel_rows(expr) == 262_144
    batch = pa.record_batch({"a": pa.array(range(262_144), pa.int64())})
    threads = _threads_used(monkeypatch)
    rec = Recorder()
    out = tk.evaluate(expr, batch, observer=rec)
    assert isinstance(out, pa.Array) and len(out) == 262_144
    assert out[0].as_py() == 2 and out[-1].as_py() == 262_144 * 2
    assert calls_of(rec.events[0], "add_checked") == 2
    assert len(threads) == min(2, parallel._pool()._max_workers)


def test_a_tree_not_cut_keeps_one_piece_per_million_rows():
    """`utf8_upper(s)` gains nothing from cutting: a 300K-row batch is one kernel call."""
    batch = pa.record_batch({"s": pa.array(["ab", None, "Cd"] * 100_000)})
    rec = Recorder()
    out = tk.evaluate(tk.call("utf8_upper", [tk.field("s")]), batch, observer=rec)
    assert out.to_pylist()[:3] == ["AB", None, "CD"]
    assert calls_of(rec.events[0], "utf8_upper") == 1


@pytest.mark.parametrize("parallel_min_rows", [1, 10**9], ids=["pool", "caller's thread"])
def test_chunks_of_many_morsels_are_joined_in_order(monkeypatch, parallel_min_rows):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", parallel_min_rows)
    monkeypatch.setattr(parallel, "MORSEL_ROWS", 7)
    chunks = [list(range(50)), [], list(range(50, 53)), list(range(53, 200))]
    t = pa.table({"a": pa.chunked_array(chunks, pa.int64())})
    out = tk.evaluate(a * 10, t)
    assert [len(c) for c in out.chunks] == [50, 0, 3, 147]
    assert out.to_pylist() == [10 * i for i in range(200)]


def test_after_a_failure_later_morsels_are_not_started_in_the_callers_thread(monkeypatch):
    monkeypatch.setattr(parallel, "MORSEL_ROWS", 10)
    values = list(range(1, 1001))
    values[15] = 0
    rec = Recorder()
    with pytest.raises(KernelError) as info:
        tk.evaluate(tk.literal(10) / a, pa.table({"a": pa.array(values, pa.int64())}),
                    observer=rec)
    assert info.value.row == 15
    assert calls_of(rec.events[0], "divide_checked") == 1  # the morsel before it (a failed call is not counted)


def test_after_a_failure_the_pool_skips_what_is_left(monkeypatch):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 1)
    monkeypatch.setattr(parallel, "MORSEL_ROWS", 8)
    values = [1] * 16_000  # 2,000 morsels
    values[3] = values[9_000] = 0
    rec = Recorder()
    with pytest.raises(KernelError) as info:
        tk.evaluate(tk.literal(10) / a, pa.table({"a": pa.array(values, pa.int64())}),
                    observer=rec)
    assert info.value.row == 3  # the first in row order, never the one at 9,000
    assert calls_of(rec.events[0], "divide_checked") < 1_000


def test_joined_morsels_let_go_of_their_arrays():
    """Each chunk is built once; the morsels' own results are not kept alongside it."""
    morsels = parallel.split(pa.table({"a": pa.array(range(100), pa.int64())}), 10)
    assert [m.offset for m in morsels] == list(range(0, 100, 10))

    def work(m):
        return parallel.Outcome(m.batch.column(0), None)

    outcomes, chunks = parallel.run_morsels(work, morsels, 100, pa.concat_arrays)
    assert chunks[0].to_pylist() == list(range(100))
    assert all(o.value is None for o in outcomes)


def _threads_used(monkeypatch) -> set:
    """The threads that evaluate morsels from now on (each morsel held briefly, so a second
    worker would have time to take the next one)."""
    threads: set = set()
    original = parallel._Run.one

    def one(run, i):
        threads.add(threading.get_ident())
        threading.Event().wait(0.05)
        return original(run, i)

    monkeypatch.setattr(parallel._Run, "one", one)
    return threads


def test_serial_keeps_every_morsel_in_the_callers_thread(monkeypatch):
    """Inside `serial()` (a caller that is already one of several workers) nothing goes to the pool."""
    monkeypatch.setattr(parallel, "MORSEL_ROWS", 50_000)
    threads = _threads_used(monkeypatch)
    t = pa.table({"a": pa.array(range(300_000), pa.int64())})
    with parallel.serial():
        out = tk.evaluate((a + 1) * 2, t)
    assert threads == {threading.get_ident()}
    assert out.to_pylist()[-1] == 300_000 * 2
    threads.clear()
    tk.evaluate((a + 1) * 2, t)  # outside the block: the pool again
    assert len(threads) == min(2, parallel._pool()._max_workers)


def test_a_spark_partition_evaluates_in_its_own_thread_only(monkeypatch):
    """Spark runs one task per core: exprscope's threads inside each would oversubscribe them."""
    from toolkit.plan.physical_plan import ProjectionExec, ScanExec
    from toolkit.spark.running.engine import PartitionSource, _partition_function

    threads = _threads_used(monkeypatch)
    scan = ScanExec("partition", PartitionSource(INT_SCHEMA, "stage 1"), None)
    fragment = ProjectionExec(scan, [tk.bind((a + 1) * 2, INT_SCHEMA)], ["x"], [True], ["a"])
    run_partition = _partition_function(fragment, "stage 1", None, False, "always")
    batch = pa.record_batch({"a": pa.array(range(262_144), pa.int64())})
    (out,) = list(run_partition(iter([batch])))
    assert out.column(0)[-1].as_py() == 262_144 * 2
    assert threads == {threading.get_ident()}


def test_many_morsels_are_one_task_per_worker_not_one_per_morsel(monkeypatch):
    """A table of 60 row groups (a Parquet file's) is evaluated by the caller's thread and
    WORKERS - 1 pool tasks that each take the next morsel until none is left: the pool is
    handed a task per worker, whatever the count of morsels, and the values are in order."""
    monkeypatch.setattr(parallel, "WORKERS", 3)
    pool = parallel._pool()
    submitted = []
    real_submit = pool.submit

    def counting_submit(fn, *args, **kwargs):
        submitted.append(fn)
        return real_submit(fn, *args, **kwargs)

    monkeypatch.setattr(pool, "submit", counting_submit)
    chunks = [list(range(i * 5_000, (i + 1) * 5_000)) for i in range(60)]
    t = pa.table({"a": pa.chunked_array(chunks, pa.int64())})
    out = tk.evaluate(a * 3 - 1, t)
    assert len(submitted) == 2
    assert [len(c) for c in out.chunks] == [5_000] * 60
    assert out.to_pylist() == [3 * i - 1 for i in range(300_000)]
