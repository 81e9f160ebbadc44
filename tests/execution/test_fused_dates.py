"""Dates in fused loops: a date32 is the int32 count of days since the epoch, so the six
comparisons of two dates, and the forms (`if_else`, `case_when`, `coalesce`) choosing
between dates, fuse as the int32 they are. Oracles: the same evaluation unfused (one
Arrow kernel or lazy form per node) and Acero's projection of the comparisons, on
columns with nulls and the edges of the int32 range, plain, sliced and chunked, traced
and not.
"""

from __future__ import annotations

import contextlib
import datetime as dt

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution.prepare import prepare

DATE = pa.date32()
_DAYS = [0, 1, -1, 8766, 9131, 9132, 10592, 2**31 - 1, -2**31]  # 1994-01-01 is day 8766
_COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@st.composite
def tables(draw):
    n = draw(st.integers(1, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    share = draw(st.sampled_from([0.0, 0.3]))

    def dates():
        days = np.where(rng.random(3 * n) < 0.3, rng.choice(_DAYS, 3 * n),
                        rng.integers(8000, 11000, 3 * n)).astype(np.int32)
        return pa.Array.from_buffers(DATE, 3 * n, [None, pa.py_buffer(days)]).cast(DATE) \
            if share == 0 else pa.array(
                [None if m else dt.date(1970, 1, 1) + dt.timedelta(days=int(d))
                 if -719162 <= d <= 2932896 else None
                 for d, m in zip(days, rng.random(3 * n) < share)], DATE)

    table = pa.table({"d": dates(), "e": dates(), "x": rng.random(3 * n)})
    layout = draw(st.sampled_from(["plain", "sliced", "chunked"]))
    if layout == "plain":
        return table.slice(0, n).combine_chunks()
    if layout == "sliced":
        return table.combine_chunks().slice(draw(st.integers(1, 2 * n)), n)
    return pa.Table.from_batches(table.to_batches(max_chunksize=draw(st.integers(1, 3 * n))))


def _date_literal(day: int):
    return tk.literal(pa.scalar(day, pa.int32()).cast(DATE))


dates = st.one_of(st.sampled_from(["d", "e"]).map(tk.field),
                  st.sampled_from(_DAYS).map(_date_literal))
comparisons = st.tuples(st.sampled_from(_COMPARISONS), st.sampled_from(["d", "e"]),
                        dates).map(lambda c: tk.call(c[0], [tk.field(c[1]), c[2]]))
conditions = st.one_of(comparisons, st.floats(0, 1).map(
    lambda v: tk.call("less", [tk.field("x"), tk.literal(v)])))


@st.composite
def trees(draw):
    shape = draw(st.sampled_from(["and", "or", "if_else", "case_when", "coalesce"]))
    if shape in ("and", "or"):
        terms = draw(st.lists(conditions, min_size=2, max_size=5))
        out = terms[0]
        for term in terms[1:]:
            out = tk.call(f"{shape}_kleene", [out, term])
        return out
    if shape == "if_else":
        return tk.if_else(draw(conditions), draw(dates), draw(dates))
    if shape == "coalesce":
        return tk.coalesce(*draw(st.lists(dates, min_size=2, max_size=4)))
    cases = draw(st.integers(1, 6))
    return tk.case_when([(draw(conditions), draw(dates)) for _ in range(cases)],
                        else_=draw(dates))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), tables())
def test_fused_dates_equal_unfused_traced_and_not(expr, table):
    """Values compared as their int32 days (Python's dates end at year 9999)."""
    def days(value):
        value = pa.chunked_array([value]) if isinstance(value, pa.Array) else value
        return value.cast(pa.int32()) if value.type == DATE else value

    for traced in (False, True):
        with tk.trace() if traced else contextlib.nullcontext():
            got = tk.evaluate(expr, table, fuse=True)
            want = tk.evaluate(expr, table, fuse=False)
        assert got.type == want.type, str(expr)
        assert days(got).equals(days(want)), str(expr)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(comparisons, min_size=2, max_size=4), tables())
def test_fused_date_comparisons_equal_pyarrows_kernels(terms, table):
    expr = terms[0]
    for term in terms[1:]:
        expr = tk.call("and_kleene", [expr, term])
    # the tree as drawn (simplifying may leave one comparison): the loop is what runs
    assert prepare(expr, table.schema, simplify=False).fused.untraced, str(expr)
    columns = pa.table(table) if isinstance(table, pa.RecordBatch) else table

    def theirs(term):
        left, right = term.args
        other = columns[str(right)] if right.kind == "field" else right.value
        return pc.call_function(term.name, [columns[str(left)], other])

    want = theirs(terms[0])
    for term in terms[1:]:
        want = pc.and_kleene(want, theirs(term))
    got = tk.evaluate(expr, table, fuse=True, simplify=False)
    assert got.to_pylist() == want.to_pylist(), str(expr)


def test_q6_filter_fuses_whole_on_lineitem_shaped_dates():
    """TPC-H Q6's filter, dates and doubles: one loop, and the rows of Arrow's kernels."""
    rng = np.random.default_rng(6)
    n = 200_000
    days = pa.array(rng.integers(8000, 10600, n).astype(np.int32)).view(DATE)
    table = pa.table({"l_shipdate": days, "l_discount": rng.integers(0, 11, n) / 100,
                      "l_quantity": rng.integers(1, 51, n).astype(np.float64)})
    expr = tk.parse("l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01' "
                    "and l_discount between 0.05 and 0.07 and l_quantity < 24")
    prepared = prepare(expr, table.schema)
    assert id(prepared.expr) in prepared.fused.untraced
    want = pc.and_kleene(pc.and_kleene(
        pc.and_kleene(pc.greater_equal(table["l_shipdate"], pa.scalar(dt.date(1994, 1, 1))),
                      pc.less(table["l_shipdate"], pa.scalar(dt.date(1995, 1, 1)))),
        pc.and_kleene(pc.greater_equal(table["l_discount"], 0.05),
                      pc.less_equal(table["l_discount"], 0.07))),
        pc.less(table["l_quantity"], 24.0))
    assert tk.evaluate(expr, table, fuse=True).to_pylist() == want.to_pylist()
