"""The variance family against DuckDB over random tables: groups of one value (null for
the sample forms), all-null groups, large offsets, integers and decimals; and
through Substrait, where `variance` and `std_dev` say which one by their option."""

from __future__ import annotations

import decimal
import math
import statistics

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import plan
from toolkit.errors import ExprscopeError
from toolkit.interop.substrait.functions import AGGREGATE_DISTRIBUTIONS

FUNCTIONS = ("var_samp", "var_pop", "stddev_samp", "stddev_pop")


def _close(want, got) -> bool:
    if want is None or got is None:
        return want is got
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(want, got, rel_tol=1e-9, abs_tol=1e-9)


_ALL = object()  # every row: the ungrouped aggregate


def _exact(name: str, table: pa.Table, group) -> float | None:
    """`name` (function_column) of the rows of `group`, computed by `statistics` in
    rational arithmetic: exact before its final rounding."""
    function, column = name.rsplit("_", 1)
    rows = table.to_pylist()
    values = [r[column] for r in rows if r[column] is not None
              and (group is _ALL or r["g"] == group)]
    sample = function.endswith("samp")
    if len(values) < (2 if sample else 1):
        return None
    variance = (statistics.variance if sample else statistics.pvariance)(values)
    return float(variance) ** 0.5 if function.startswith("stddev") else float(variance)


def _floats():
    # no NaN: DuckDB gives a population variance of 0 for a lone NaN, where Spark and
    # Arrow give NaN (tests/spark/test_variance_spark.py has NaN against Spark)
    return st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False),
                     st.sampled_from([0.0, -0.0, 1e9 + 0.5, 1e9 + 1.5]))


@st.composite
def tables(draw):
    rows = draw(st.integers(0, 40))
    groups = draw(st.lists(st.one_of(st.none(), st.integers(0, 5)), min_size=rows,
                           max_size=rows))
    x = draw(st.lists(_floats(), min_size=rows, max_size=rows))
    i = draw(st.lists(st.one_of(st.none(), st.integers(-10**12, 10**12)), min_size=rows,
                      max_size=rows))
    d = draw(st.lists(st.one_of(st.none(), st.decimals(-10**6, 10**6, places=2,
                                                        allow_nan=False)),
                      min_size=rows, max_size=rows))
    return pa.table({"g": pa.array(groups, pa.int64()), "x": pa.array(x, pa.float64()),
                     "i": pa.array(i, pa.int64()), "d": pa.array(d, pa.decimal128(12, 2))})


@settings(max_examples=60, deadline=None)
@given(tables(), st.booleans())
def test_variances_equal_duckdb(table, grouped):
    aggs = [(f, c, f"{f}_{c}") for f in FUNCTIONS for c in ("x", "i", "d")]
    p = plan.scan("t", table).aggregate(["g"] if grouped else [], aggs)
    with plan.validation("always"):
        got = plan.create_physical_plan(plan.optimize(p)).collect()
    calls = ", ".join(f"{f}({c}) AS {f}_{c}" for f, c, _ in [(f, c, 0) for f in FUNCTIONS
                                                            for c in ("x", "i", "d")])
    con = duckdb.connect()
    con.register("t", table)
    sql = (f"SELECT g, {calls} FROM t GROUP BY g" if grouped else f"SELECT {calls} FROM t")
    want = con.sql(sql).to_arrow_table()
    key = "g" if grouped else None
    got_rows = sorted(got.to_pylist(), key=lambda r: (r[key] is None, r[key] or 0) if key else 0)
    want_rows = sorted(want.to_pylist(), key=lambda r: (r[key] is None, r[key] or 0) if key else 0)
    assert len(got_rows) == len(want_rows)
    for g_row, w_row in zip(got_rows, want_rows):
        for name in w_row:
            w = w_row[name]
            w = float(w) if isinstance(w, decimal.Decimal) else w
            if name == "g":
                assert w == g_row[name]
                continue
            # DuckDB's streaming update loses digits on large offsets (1e9 + 0.5: 2e-8 of
            # 1/3); where it differs, the exact variance (rational arithmetic) decides
            assert _close(w, g_row[name]) or _close(
                _exact(name, table, g_row.get("g") if grouped else _ALL), g_row[name]), \
                (name, w, g_row[name], g_row.get("g"))


def test_a_group_of_one_value_has_a_null_sample_variance_and_a_zero_population_one():
    table = pa.table({"g": [1, 2, 2], "x": [5.0, 1.0, 3.0]})
    p = plan.scan("t", table).aggregate(["g"], [(f, "x", f) for f in FUNCTIONS])
    rows = sorted(plan.create_physical_plan(p).collect().to_pylist(), key=lambda r: r["g"])
    assert rows[0] == {"g": 1, "var_samp": None, "var_pop": 0.0, "stddev_samp": None,
                       "stddev_pop": 0.0}
    assert rows[1]["var_samp"] == 2.0 and rows[1]["stddev_pop"] == 1.0
    assert p.schema.field("var_samp").nullable  # even over a column without nulls


def test_substrait_keeps_which_variance_and_reads_a_missing_option_as_sample():
    from substrait import plan_pb2

    table = pa.table({"g": [1, 1, 1, 2], "x": [1.0, 2.0, 4.0, 3.0]})
    p = plan.scan("t", table).aggregate(["g"], [(f, "x", f) for f in FUNCTIONS])
    back = plan.from_substrait(p.to_substrait(), {"t": table})
    assert [a.func for a in back.aggregates] == list(FUNCTIONS)
    message = plan_pb2.Plan.FromString(p.to_substrait())
    aggregate = message.relations[0].root.input.aggregate
    written = [(m.measure.options[0].name, list(m.measure.options[0].preference))
               for m in aggregate.measures]
    assert written == [("distribution", [AGGREGATE_DISTRIBUTIONS[f]]) for f in FUNCTIONS]
    for m in aggregate.measures:
        del m.measure.options[:]
    unsaid = plan.from_substrait(message.SerializeToString(), {"t": table})
    assert [a.func for a in unsaid.aggregates] == ["var_samp", "var_samp", "stddev_samp",
                                                   "stddev_samp"]
    aggregate.measures[0].measure.options.add(name="distribution", preference=["UNBIASED"])
    with pytest.raises(ExprscopeError, match="distribution option"):
        plan.from_substrait(message.SerializeToString(), {"t": table})


@pytest.mark.parametrize("func", ["sum", "var_samp"])
def test_a_variance_of_a_string_is_refused_naming_the_types(func):
    table = pa.table({"s": ["a", "b"]})
    with pytest.raises(ExprscopeError, match="variances take numbers"):
        plan.scan("t", table).aggregate([], [(func, "s", "v")])
