"""A large traced evaluation's sample (its first rows, each branch's first rows, the rows
around a failure, of the columns read and of the result) is taken when the trace is
first read, or when the caller lets its data go; a result let go first is let go by the
trace too, its sampled rows computed again when read: the same rows either way, and
many traces of one long-lived table leave nothing behind."""

from __future__ import annotations

import dataclasses
import gc
import weakref

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.strategies import typed
from tests.tracing.nulls_table import nulls_table
from toolkit.functions import registry

_SHAPES = [
    "case when k < 100 then b * 2 when k < 500 then b + 1 else 0.5 end",
    "k > 20 and b < 90 and a != 0",
    "coalesce(x, b * 2, 0.5)",
    "if(a != 0, b / a, 0.0)",
    "utf8_upper(s)",
]


def _table(rows: int, seed: int) -> pa.Table:
    return nulls_table(rows, seed, strings=True)


def _seen(event) -> tuple:
    return event.sample.to_pylist(), event.data.to_pydict(), event.result.to_pylist()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_SHAPES), st.integers(0, 2**16), st.sampled_from(["data", "result"]),
       st.booleans())
def test_a_sample_read_after_the_data_is_let_go_is_the_one_read_at_once(text, seed, let_go,
                                                                        fuse):
    """Read at once, or read after the caller let its table or its result go (whichever
    goes first takes it): the same rows of the same columns and result."""
    table = _table(60_000, seed)
    with tk.trace() as at_once:
        tk.evaluate(text, table, fuse=fuse)
    want = _seen(at_once.evaluations[-1])
    with tk.trace() as later:
        result = tk.evaluate(text, table, fuse=fuse)
    if let_go == "data":
        del table
    else:
        del result
    gc.collect()
    assert _seen(later.evaluations[-1]) == want, text


def test_a_failing_evaluation_s_sample_holds_the_rows_around_the_failure():
    """The evaluation raises; its trace, read after the caller let the table go, still
    shows the rows on each side of the failing one."""
    n = 50_000
    table = pa.table({"a": pa.array(np.arange(n) % 97 + 1), "b": pa.array(np.arange(n))})
    table = table.set_column(0, "a", pa.array(np.where(np.arange(n) == 31_337, 0,
                                                       np.arange(n) % 97 + 1)))
    with tk.trace() as t, pytest.raises(tk.ExprscopeError):
        tk.evaluate("b / a", table)
    del table
    gc.collect()
    sample = t.evaluations[-1].sample.to_pylist()
    assert set(range(31_332, 31_343)) <= set(sample)
    assert t.evaluations[-1].data.column("a").to_pylist()[sample.index(31_337)] == 0


def test_many_traces_of_one_table_keep_no_finalizer_once_let_go():
    """Each traced evaluation watches the caller's table and result to take its sample
    (and write its codes) when they go; a trace let go first leaves nothing watching."""
    table = _table(60_000, 1)

    def ours() -> int:
        return sum(1 for info in weakref.finalize._registry.values()
                   if getattr(info.func, "__self__", None).__class__.__name__ == "_WhenLetGo")

    before = ours()
    for _ in range(30):
        with tk.trace():
            tk.evaluate(_SHAPES[0], table, fuse=True)
    gc.collect()
    assert ours() == before


def _typed_table(rows: int, seed: int) -> pa.Table:
    """`typed.SCHEMA`'s columns with nulls, NaN and -0.0, in two chunks, and a column no
    tree reads (a list: it stands as nulls when the result is computed again)."""
    rng = np.random.default_rng(seed)

    def holes(p=0.2):
        return rng.random(rows) < p

    floats = rng.choice([0.0, -0.0, 1.0, np.nan, np.inf, -1.5, 3.25, 7.0], rows)
    columns = [
        pa.array(rng.integers(-50, 50, rows).astype(np.int32), mask=holes()),
        pa.array(rng.integers(-50, 50, rows).astype(np.int32)),
        pa.array(rng.integers(-50, 50, rows), mask=holes()),
        pa.array(floats, mask=holes()),
        pa.array(rng.permutation(floats)),
        pa.array(rng.random(rows) < 0.4, mask=holes()),
        pa.array(rng.random(rows) < 0.6),
        pa.array(rng.choice(["", "a", "b", "xyz"], rows), mask=holes()),
    ]
    table = pa.Table.from_arrays(columns, schema=typed.SCHEMA).append_column(
        "unread", pa.array([[i] for i in range(rows)], pa.list_(pa.int64())))
    return pa.Table.from_batches(table.to_batches(max_chunksize=rows // 2 + 1))


_TYPED = _typed_table(24_000, 5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed.expressions(), st.sampled_from(["lazy", "eager"]), st.booleans())
def test_a_result_let_go_is_computed_again_as_it_was(expr, mode, one_batch):
    """The caller lets its result go and keeps its data: the trace lets go of the result
    too, and the sample's rows of it, computed again from the sampled columns when read,
    are the rows the result held (values, type, nulls, NaN and -0.0 alike), lazily or
    eagerly, over a table or one batch."""
    data = _TYPED.combine_chunks().to_batches()[0] if one_batch else _TYPED
    with tk.trace() as t:
        result = tk.evaluate(expr, data, mode=mode)
    if not isinstance(result, (pa.Array, pa.ChunkedArray)):
        return  # a tree of literals: one value, held as it is
    held = result.take(pa.array(np.arange(len(result))))  # a copy, not the same buffers
    del result
    gc.collect()
    event = t.evaluations[-1]
    got, want = event.result, held.take(event.sample)
    assert got.type == want.type, str(expr)
    # repr tells NaN, -0.0 and null apart, and NaN equals NaN
    assert [repr(v) for v in got.to_pylist()] == [repr(v) for v in want.to_pylist()], \
        str(expr)


def test_a_trace_does_not_hold_a_result_its_caller_let_go():
    """A traced evaluation over a table the caller keeps: once the caller lets the 16 MB
    result go, so does the trace, unread (it held the result's buffers until then)."""
    table = _table(2_000_000, 3)
    with tk.trace() as t:
        result = tk.evaluate("case when k < 100 then b * 2 when k < 500 then b + 1 "
                             "else 0.5 end", table)
    gc.collect()
    with_result = pa.total_allocated_bytes()
    del result
    gc.collect()
    assert with_result - pa.total_allocated_bytes() >= 16_000_000
    assert len(t.evaluations[-1].result) == len(t.evaluations[-1].sample)


def test_an_impure_call_s_result_is_sampled_when_let_go(monkeypatch):
    """A function whose value is not its row's alone (here: noise added to its argument)
    cannot be computed again: the trace takes its rows of the result when the caller
    lets it go, and they are the values the caller was given."""
    negate = registry.get_function("negate")
    rng = np.random.default_rng(0)

    def noisy(function, args, options, kernel):
        return pc.add(pc.negate(args[0]), pa.array(rng.random(len(args[0]))))

    monkeypatch.setitem(registry._FUNCTIONS, "noisy_negate", dataclasses.replace(
        negate, name="noisy_negate", pure=False, execute=noisy, aliases=()))
    table = _table(60_000, 2)
    with tk.trace() as t:
        result = tk.evaluate(tk.call("noisy_negate", [tk.field("b")]), table)
    given = result.to_numpy()
    del result
    gc.collect()
    event = t.evaluations[-1]
    got = event.result.to_numpy()
    want = given[event.sample.to_numpy()]
    assert np.array_equal(got, want, equal_nan=True)


def test_letting_a_result_go_takes_no_sample(monkeypatch):
    """A result let go while the data stays costs the trace nothing then (no branch's
    first rows searched, no row taken): the sample is taken when the trace is read."""
    from toolkit.execution import evaluation_sample
    searched = []
    real = evaluation_sample.first_rows_of_branches
    monkeypatch.setattr(evaluation_sample, "first_rows_of_branches",
                        lambda *args: searched.append(1) or real(*args))
    table = _table(60_000, 4)
    with tk.trace() as t:
        result = tk.evaluate(_SHAPES[0], table, fuse=True)
    del result
    gc.collect()
    assert searched == []
    assert len(t.evaluations[-1].result) == len(t.evaluations[-1].sample) > 200
    assert searched == [1]
