"""A large traced evaluation's sample (its first rows, each branch's first rows, the rows
around a failure, of the columns read and of the result) is taken when the trace is
first read, or when the caller lets its data or result go: the same rows either way,
and many traces of one long-lived table leave nothing behind."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.tracing.nulls_table import nulls_table

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
