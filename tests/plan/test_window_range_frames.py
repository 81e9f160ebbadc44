"""RANGE frames with offsets, lag/lead with a default, exact decimal sums and averages, and
several functions over one sort, each against DuckDB's rows on random tables with nulls,
ties, NaN and both sort directions."""

from __future__ import annotations

import decimal
import math

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import plan
from toolkit.errors import ExprscopeError

cents = st.one_of(st.none(), st.decimals(min_value=-9999, max_value=9999, places=2,
                                          allow_nan=False, allow_infinity=False))
rows = st.lists(st.tuples(st.one_of(st.none(), st.integers(-2, 2)),
                          st.one_of(st.none(), st.integers(-6, 6)),
                          st.one_of(st.none(), st.integers(-50, 50)), cents,
                          st.one_of(st.none(), st.sampled_from([-1.5, 0.0, 0.25, 2.0, 3.5]))),
                max_size=30)
offset = st.one_of(st.none(), st.integers(-4, 4))


def _table(drawn) -> pa.Table:
    return pa.table({"id": pa.array(range(len(drawn)), pa.int64()),
                     "g": pa.array([r[0] for r in drawn], pa.int64()),
                     "o": pa.array([r[1] for r in drawn], pa.int32()),
                     "v": pa.array([r[2] for r in drawn], pa.int64()),
                     "d": pa.array([r[3] for r in drawn], pa.decimal128(7, 2)),
                     "f": pa.array([r[4] for r in drawn], pa.float64())})


def _bound(value, unbounded: str) -> str:
    if value is None:
        return unbounded
    if value == 0:
        return "CURRENT ROW"
    return f"{abs(value)} {'PRECEDING' if value < 0 else 'FOLLOWING'}"


def _duckdb(table: pa.Table, sql: str) -> dict:
    con = duckdb.connect()
    con.register("t", table)
    return {row[0]: row[1:] for row in con.execute(sql).fetchall()}


def _close(ours, theirs) -> bool:
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if isinstance(ours, float) or isinstance(theirs, float):
        return math.isclose(float(ours), float(theirs), rel_tol=1e-9, abs_tol=1e-9)
    return ours == theirs


@settings(max_examples=100, deadline=None)
@given(drawn=rows, func=st.sampled_from(["sum", "avg", "min", "max", "count"]),
       key=st.sampled_from(["o", "f"]), arg=st.sampled_from(["v", "d"]),
       partitioned=st.booleans(), descending=st.booleans(), nulls_first=st.booleans(),
       frame=st.tuples(offset, offset).filter(
           lambda f: f[0] is None or f[1] is None or f[0] <= f[1]))
def test_range_frames_return_duckdbs_rows(drawn, func, key, arg, partitioned, descending,
                                          nulls_first, frame):
    """A row's frame holds the rows whose order key lies within the offsets of its own (null
    and NaN keys: their peers), for integer and float keys in both directions."""
    table = _table(drawn)
    direction = "descending" if descending else "ascending"
    nulls = "nulls_first" if nulls_first else "nulls_last"
    spec = {"func": func, "arg": arg, "partition_by": ["g"] if partitioned else [],
            "order_by": [(key, direction, nulls)], "frame": ("range", *frame)}
    got = plan.create_physical_plan(plan.scan("t", table).window([spec], ["w"])).collect()
    over = (("PARTITION BY g " if partitioned else "")
            + f"ORDER BY {key} {'DESC' if descending else 'ASC'} "
            f"NULLS {'FIRST' if nulls_first else 'LAST'} "
            f"RANGE BETWEEN {_bound(frame[0], 'UNBOUNDED PRECEDING')} AND "
            f"{_bound(frame[1], 'UNBOUNDED FOLLOWING')}")
    if func == "avg" and arg == "d":  # DuckDB's decimal average is a double: check exactly
        want = _duckdb(table, f"SELECT id, sum(d) OVER ({over}), count(d) OVER ({over}) "
                              "FROM t")
        expected = {i: None if n == 0 else (s / n).quantize(decimal.Decimal("0.01"),
                                                            decimal.ROUND_HALF_UP)
                    for i, (s, n) in want.items()}
    else:
        expected = {i: w for i, (w,) in _duckdb(
            table, f"SELECT id, {func}({arg}) OVER ({over}) FROM t").items()}
    ours = dict(zip(got.column("id").to_pylist(), got.column("w").to_pylist()))
    wrong = {i: (ours[i], expected[i]) for i in ours if not _close(ours[i], expected[i])}
    assert not wrong, f"{func}({arg}) OVER ({over}): (ours, duckdb) differ at rows {wrong}"


@settings(max_examples=100, deadline=None)
@given(drawn=rows, func=st.sampled_from(["lag", "lead"]), steps=st.integers(0, 3),
       default=st.sampled_from(["literal", "column"]), partitioned=st.booleans())
def test_lag_and_lead_take_a_default_of_the_current_row(drawn, func, steps, default,
                                                        partitioned):
    table = _table(drawn)
    spec = {"func": func, "arg": "v", "offset": steps,
            "default": -7 if default == "literal" else "v",
            "partition_by": ["g"] if partitioned else [], "order_by": ["o", "id"]}
    got = plan.create_physical_plan(plan.scan("t", table).window([spec], ["w"])).collect()
    over = ("PARTITION BY g " if partitioned else "") + "ORDER BY o ASC NULLS LAST, id"
    fill = "-7" if default == "literal" else "v"
    expected = {i: w for i, (w,) in _duckdb(
        table, f"SELECT id, {func}(v, {steps}, {fill}) OVER ({over}) FROM t").items()}
    assert dict(zip(got.column("id").to_pylist(), got.column("w").to_pylist())) == expected


@settings(max_examples=100, deadline=None)
@given(drawn=rows, frame=st.tuples(offset, offset).filter(
    lambda f: f[0] is None or f[1] is None or f[0] <= f[1]))
def test_decimal_window_sums_are_exact(drawn, frame):
    table = _table(drawn)
    spec = {"func": "sum", "arg": "d", "order_by": ["o", "id"], "frame": ("rows", *frame)}
    p = plan.scan("t", table).window([spec], ["w"])
    assert p.schema.field("w").type == pa.decimal128(38, 2)
    got = plan.create_physical_plan(p).collect()
    over = (f"ORDER BY o ASC NULLS LAST, id ROWS BETWEEN "
            f"{_bound(frame[0], 'UNBOUNDED PRECEDING')} AND "
            f"{_bound(frame[1], 'UNBOUNDED FOLLOWING')}")
    expected = {i: w for i, (w,) in _duckdb(
        table, f"SELECT id, sum(d) OVER ({over}) FROM t").items()}
    assert dict(zip(got.column("id").to_pylist(), got.column("w").to_pylist())) == expected


def test_decimal_sums_near_the_top_of_decimal128_stay_exact_and_overflow_is_an_error():
    big = decimal.Decimal("9" * 36)  # 10**36 - 1, three of them still fit 38 digits
    table = pa.table({"o": [1, 2, 3], "d": pa.array([big, big, decimal.Decimal("-" + "9" * 36)], pa.decimal128(38, 0))})
    running = {"func": "sum", "arg": "d", "order_by": ["o"]}
    got = plan.create_physical_plan(plan.scan("t", table).window([running], ["w"])).collect()
    assert got.column("w").to_pylist() == [big, decimal.Decimal(2 * (10**36 - 1)), big]
    huge = decimal.Decimal("9" * 38)
    over = pa.table({"o": [1, 2], "d": pa.array([huge, huge], pa.decimal128(38, 0))})
    with pytest.raises(ExprscopeError, match="window sum overflows decimal128"):
        plan.create_physical_plan(plan.scan("t", over).window([running], ["w"])).collect()


def test_functions_over_the_same_keys_share_one_sort(monkeypatch):
    """Three functions over one partition and order sort the rows once; a fourth over
    other keys sorts again. The results are those of separate windows."""
    from toolkit.plan import window_kernels

    calls = []
    original = window_kernels.sort_order
    monkeypatch.setattr(window_kernels, "sort_order",
                        lambda *a: calls.append(1) or original(*a))
    table = _table([(1, 2, 3, None, 1.0), (1, 1, 5, decimal.Decimal("1.25"), None),
                    (2, 1, None, decimal.Decimal("-2.00"), 2.0)])
    same = {"partition_by": ["g"], "order_by": ["o"]}
    specs = [{"func": "rank", **same}, {"func": "sum", "arg": "v", **same},
             {"func": "lag", "arg": "d", **same}, {"func": "row_number", "order_by": ["id"]}]
    together = plan.create_physical_plan(
        plan.scan("t", table).window(specs, ["a", "b", "c", "e"])).collect()
    assert len(calls) == 2
    for spec, name in zip(specs, "abce"):
        alone = plan.create_physical_plan(plan.scan("t", table).window([spec], [name]))
        assert together.column(name).equals(alone.collect().column(name))


def test_range_frame_over_ten_thousand_partitions_is_vectorised():
    """A million-row table with a RANGE frame: every frame's count equals the count of rows
    within the offsets, computed independently with a join in DuckDB on a sample."""
    import numpy as np

    rng = np.random.default_rng(7)
    n = 1_000_000
    table = pa.table({"id": np.arange(n), "g": rng.integers(0, 10_000, n),
                      "o": rng.integers(0, 1_000, n)})
    spec = {"func": "count", "partition_by": ["g"], "order_by": ["o"],
            "frame": ("range", -3, 2)}
    got = plan.create_physical_plan(plan.scan("t", table).window([spec], ["w"])).collect()
    sample = got.filter(pa.compute.less(got.column("id"), 2_000))
    con = duckdb.connect()
    con.register("t", table)
    want = dict(con.execute(
        "SELECT a.id, count(*) FROM t a JOIN t b ON a.g = b.g AND b.o BETWEEN a.o - 3 "
        "AND a.o + 2 WHERE a.id < 2000 GROUP BY a.id").fetchall())
    assert dict(zip(sample.column("id").to_pylist(), sample.column("w").to_pylist())) == want
