"""bool_and, bool_or, count of a condition (Spark's count_if) and percentile against
DuckDB over random tables: groups of nulls, a global aggregate over no rows, ties,
integers and decimals, fractions at 0, 1 and between; first_value / last_value over
windows against DuckDB's; Substrait round trips where Substrait has the function, and
clear errors for bad input."""

from __future__ import annotations

import decimal
import math

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.errors import ExprscopeError

FRACTIONS = (0.0, 0.25, 0.5, 0.9, 1.0)


def _close(want, got) -> bool:
    if want is None or got is None:
        return want is got
    want = float(want) if isinstance(want, decimal.Decimal) else want
    if isinstance(want, float) and (math.isnan(want) or math.isnan(got)):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(want, got, rel_tol=1e-9, abs_tol=1e-9)


@st.composite
def tables(draw):
    rows = draw(st.integers(0, 40))

    def column(values):
        return draw(st.lists(st.one_of(st.none(), values), min_size=rows, max_size=rows))

    # no NaN: DuckDB orders NaN as Spark does, but its interpolation of NaN differs from
    # Spark's; tests/spark/test_percentile_spark.py has NaN against Spark
    return pa.table({
        "g": pa.array(column(st.integers(0, 5)), pa.int64()),
        "b": pa.array(column(st.booleans()), pa.bool_()),
        "x": pa.array(column(st.one_of(st.floats(-1e6, 1e6, allow_nan=False),
                                       st.sampled_from([0.0, 1.5, -2.0]))), pa.float64()),
        "i": pa.array(column(st.integers(-10**12, 10**12)), pa.int64()),
        "d": pa.array(column(st.decimals(-10**6, 10**6, places=2, allow_nan=False)),
                      pa.decimal128(12, 2))})


def _rows(table: pa.Table, key: str | None) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda r: (r[key] is None, r[key] or 0) if key else 0)


@settings(max_examples=60, deadline=None)
@given(tables(), st.booleans(), st.sampled_from(FRACTIONS))
def test_boolean_aggregates_and_percentiles_equal_duckdb(table, grouped, fraction):
    counted = tk.if_else(tk.field("x") > 1.0, tk.literal(True),
                         tk.literal(pa.scalar(None, pa.bool_())))
    aggs = [("bool_and", "b", "all_b"), ("bool_or", "b", "any_b"), ("count", counted, "big"),
            *[("percentile", c, f"p_{c}", fraction) for c in ("x", "i", "d")]]
    p = plan.scan("t", table).aggregate(["g"] if grouped else [], aggs)
    with plan.validation("always"):
        got = plan.create_physical_plan(plan.optimize(p)).collect()
    # DuckDB's count_if over no rows is null where Spark's is 0: its count of the
    # condition's true rows is Spark's
    calls = ("bool_and(b) AS all_b, bool_or(b) AS any_b, "
             "count(CASE WHEN x > 1 THEN true END) AS big, "
             # DuckDB's of a decimal is a decimal of the same scale; Spark's is a double
             + ", ".join(f"quantile_cont({c}::DOUBLE, {fraction}) AS p_{c}"
                         for c in ("x", "i", "d")))
    con = duckdb.connect()
    con.register("t", table)
    sql = f"SELECT g, {calls} FROM t GROUP BY g" if grouped else f"SELECT {calls} FROM t"
    key = "g" if grouped else None
    got_rows, want_rows = _rows(got, key), _rows(con.sql(sql).to_arrow_table(), key)
    assert len(got_rows) == len(want_rows)
    for g_row, w_row in zip(got_rows, want_rows):
        for name, want in w_row.items():
            assert _close(want, g_row[name]), (name, want, g_row[name], g_row.get("g"))


@settings(max_examples=40, deadline=None)
@given(tables(), st.booleans(), st.sampled_from([None, (-1, 1), (1, 3), (None, -1)]))
def test_first_and_last_values_equal_duckdb(table, ignore_nulls, rows):
    table = table.append_column("id", pa.array(range(table.num_rows), pa.int64()))
    frame = None if rows is None else ("rows", *rows)
    specs = [{"func": f, "arg": c, "partition_by": ["g"], "order_by": ["id"], "frame": frame,
              "ignore_nulls": ignore_nulls}
             for f in ("first_value", "last_value") for c in ("x", "d")]
    names = ["fx", "fd", "lx", "ld"]
    p = plan.scan("t", table).window(specs, names)
    with plan.validation("always"):
        got = plan.create_physical_plan(plan.optimize(p)).collect()

    def bound(v, unbounded):
        if v is None:
            return unbounded
        return "CURRENT ROW" if v == 0 else f"{abs(v)} {'PRECEDING' if v < 0 else 'FOLLOWING'}"

    over = "PARTITION BY g ORDER BY id"
    if rows is not None:
        over += (f" ROWS BETWEEN {bound(rows[0], 'UNBOUNDED PRECEDING')} AND "
                 f"{bound(rows[1], 'UNBOUNDED FOLLOWING')}")
    nulls = " IGNORE NULLS" if ignore_nulls else ""
    calls = ", ".join(f"{f}({c}{nulls}) OVER ({over}) AS {n}" for (f, c), n in zip(
        [(f, c) for f in ("first_value", "last_value") for c in ("x", "d")], names))
    con = duckdb.connect()
    con.register("t", table)
    want = con.sql(f"SELECT id, {calls} FROM t").to_arrow_table()
    got_rows, want_rows = _rows(got, "id"), _rows(want, "id")
    for g_row, w_row in zip(got_rows, want_rows):
        for name in names:
            assert _close(w_row[name], g_row[name]), (name, w_row, g_row)


def test_percentile_reads_nan_above_every_number_as_spark():
    table = pa.table({"g": [1, 1, 1, 2, 2], "x": [float("nan"), 1.0, 3.0, float("nan"), 2.0]})
    p = plan.scan("t", table).aggregate(["g"], [("percentile", "x", "m", 0.5),
                                                ("percentile", "x", "lo", 0.0)])
    rows = _rows(plan.create_physical_plan(p).collect(), "g")
    assert rows[0]["m"] == 3.0 and rows[0]["lo"] == 1.0
    assert math.isnan(rows[1]["m"]) and rows[1]["lo"] == 2.0  # halfway between 2 and NaN


@pytest.mark.parametrize("groups", [3, 70_000])  # the group numbers fit 16 bits, or not
def test_percentiles_of_many_rows_and_groups_equal_duckdb(groups):
    import numpy as np

    rng = np.random.default_rng(groups)
    rows = 300_000
    table = pa.table({"g": rng.integers(0, groups, rows),
                      "x": pa.array(rng.normal(0, 100, rows), mask=rng.random(rows) < 0.2)})
    p = plan.scan("t", table).aggregate(["g"], [("percentile", "x", "p", 0.3)])
    got = plan.create_physical_plan(p).collect().sort_by("g")
    con = duckdb.connect()
    con.register("t", table)
    want = con.sql("SELECT g, quantile_cont(x, 0.3) AS p FROM t GROUP BY g").to_arrow_table()
    want = want.sort_by("g")
    assert got.column("g").to_pylist() == want.column("g").to_pylist()
    assert all(_close(w, g) for w, g in zip(want.column("p").to_pylist(),
                                            got.column("p").to_pylist()))


@pytest.mark.parametrize("fraction", [-0.1, 1.5, float("nan"), "0.5", None, True])
def test_a_fraction_outside_zero_to_one_is_refused(fraction):
    table = pa.table({"x": [1.0]})
    with pytest.raises(ExprscopeError, match="fraction"):
        plan.scan("t", table).aggregate([], [("percentile", "x", "p", fraction)])


def test_percentile_without_its_fraction_and_wrong_types_are_refused():
    table = pa.table({"x": [1.0], "s": ["a"], "b": [True]})
    scan = plan.scan("t", table)
    with pytest.raises(ExprscopeError, match="needs its fraction"):
        scan.aggregate([], [("percentile", "x", "p")])
    with pytest.raises(ExprscopeError, match="only percentile takes a fraction"):
        scan.aggregate([], [("sum", "x", "p", 0.5)])
    with pytest.raises(ExprscopeError, match="bool_and and bool_or take booleans"):
        scan.aggregate([], [("bool_and", "x", "a")])
    with pytest.raises(ExprscopeError, match="percentile"):
        scan.aggregate([], [("percentile", "s", "p", 0.5)])
    with pytest.raises(ExprscopeError, match="only first_value and last_value take"):
        scan.window([{"func": "sum", "arg": "x", "ignore_nulls": True}], ["w"])
    with pytest.raises(ExprscopeError, match="needs an argument"):
        scan.window([{"func": "first_value", "order_by": ["x"]}], ["w"])


def test_substrait_carries_bool_and_bool_or_and_first_value_and_refuses_the_rest():
    table = pa.table({"g": [1, 1, 2], "b": [True, False, None], "x": [1.0, None, 2.0]})
    scan = plan.scan("t", table)
    p = scan.aggregate(["g"], [("bool_and", "b", "a"), ("bool_or", "b", "o")])
    back = plan.from_substrait(p.to_substrait(), {"t": table})
    assert [a.func for a in back.aggregates] == ["bool_and", "bool_or"]
    w = scan.window([{"func": "last_value", "arg": "x", "partition_by": ["g"],
                      "order_by": ["x"], "frame": ("rows", -1, 1)}], ["w"])
    read = plan.from_substrait(w.to_substrait(), {"t": table})
    assert read.explain() == w.explain()
    with pytest.raises(ExprscopeError, match="no aggregate for exprscope's percentile"):
        scan.aggregate([], [("percentile", "x", "p", 0.5)]).to_substrait()
    ignoring = scan.window([{"func": "first_value", "arg": "x", "order_by": ["x"],
                             "ignore_nulls": True}], ["w"])
    with pytest.raises(ExprscopeError, match="IGNORE NULLS"):
        ignoring.to_substrait()
