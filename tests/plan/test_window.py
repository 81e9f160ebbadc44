"""Window functions as a plan node, against DuckDB's rows on random tables with nulls and
ties; the window's invariants (an impossible frame, an unknown function) as clear errors;
the optimizer's rules keep a window's meaning."""

from __future__ import annotations

import math

import duckdb
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.errors import ExprscopeError

small = st.one_of(st.none(), st.integers(-2, 2))
rows = st.lists(st.tuples(small, small, st.one_of(st.none(), st.integers(-50, 50)),
                          st.one_of(st.none(), st.sampled_from(["p", "q", "", "pp"]))),
                max_size=25)
bound = st.one_of(st.none(), st.integers(-3, 3))


def _table(drawn) -> pa.Table:
    return pa.table({"id": pa.array(range(len(drawn)), pa.int64()),
                     "g": pa.array([r[0] for r in drawn], pa.int64()),
                     "o": pa.array([r[1] for r in drawn], pa.int64()),
                     "v": pa.array([r[2] for r in drawn], pa.int64()),
                     "s": pa.array([r[3] for r in drawn], pa.string())})


def _sql_bound(value, unbounded):
    if value is None:
        return unbounded
    if value == 0:
        return "CURRENT ROW"
    return f"{abs(value)} {'PRECEDING' if value < 0 else 'FOLLOWING'}"


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


@settings(max_examples=150, deadline=None)
@given(drawn=rows, func=st.sampled_from(["row_number", "rank", "dense_rank", "lag", "lead",
                                         "sum", "avg", "min", "max", "count", "count_star",
                                         "var_samp", "var_pop", "stddev_samp", "stddev_pop"]),
       arg=st.sampled_from(["v", "s"]), partitioned=st.booleans(), ordered=st.booleans(),
       descending=st.booleans(), nulls_first=st.booleans(), frame=st.one_of(
           st.none(), st.tuples(bound, bound).filter(
               lambda f: f[0] is None or f[1] is None or f[0] <= f[1])),
       offset=st.integers(0, 3), optimized=st.booleans())
def test_window_returns_duckdbs_rows(drawn, func, arg, partitioned, ordered, descending,
                                     nulls_first, frame, offset, optimized):
    table = _table(drawn)
    numeric = ("sum", "avg", "var_samp", "var_pop", "stddev_samp", "stddev_pop")
    if func in numeric or func in ("row_number", "rank", "dense_rank", "count_star"):
        arg = "v" if func in numeric else None
    if func in ("row_number", "rank", "dense_rank", "lag", "lead"):
        frame = None
    if func in ("lag", "lead", "row_number"):
        ordered = True
    order = [("o", "descending" if descending else "ascending",
              "nulls_first" if nulls_first else "nulls_last")] if ordered else []
    if func in ("row_number", "lag", "lead") or frame is not None:
        order.append("id")  # rows between peers come in a fixed order only with a tie-break
    spec = {"func": "count" if func == "count_star" else func, "arg": arg,
            "partition_by": ["g"] if partitioned else [], "order_by": order,
            "frame": None if frame is None else ("rows", *frame)}
    if func in ("lag", "lead"):
        spec["offset"] = offset
    p = plan.scan("t", table).window([spec], ["w"])
    if optimized:  # a filter on the partition column and a projection above the window
        p = plan.optimize(p.filter(tk.field("g") >= -1).project(["id", "w"]))
    got = plan.create_physical_plan(p).collect()

    over = []
    if partitioned:
        over.append("PARTITION BY g")
    if order:
        over.append("ORDER BY " + ", ".join(
            k if isinstance(k, str) else
            f"o {'DESC' if descending else 'ASC'} NULLS {'FIRST' if nulls_first else 'LAST'}"
            for k in order))
    if frame is not None:
        over.append(f"ROWS BETWEEN {_sql_bound(frame[0], 'UNBOUNDED PRECEDING')} AND "
                    f"{_sql_bound(frame[1], 'UNBOUNDED FOLLOWING')}")
    call = {"count_star": "count(*)", "lag": f"lag({arg}, {offset})",
            "lead": f"lead({arg}, {offset})"}.get(func, f"{func}({arg or ''})")
    sql = f"SELECT id, {call} OVER ({' '.join(over)}) AS w FROM t"
    if optimized:
        sql = f"SELECT id, w FROM ({sql.replace('FROM t', ', g FROM t')}) WHERE g >= -1"
    con = duckdb.connect()
    con.register("t", table)
    expected = dict(con.execute(sql).fetchall())
    ours = dict(zip(got.column("id").to_pylist(), got.column("w").to_pylist()))
    assert ours.keys() == expected.keys()
    wrong = {i: (ours[i], expected[i]) for i in ours if not (
        ours[i] is None and expected[i] is None or _same(ours[i], expected[i]))}
    assert not wrong, f"{sql}: (ours, duckdb) differ at rows {wrong}"
    if not optimized:
        assert got.column_names == ["id", "g", "o", "v", "s", "w"]
        assert got.slice(0, got.num_rows).select(range(5)).equals(table)  # input order kept


def test_partitions_of_one_row_and_an_empty_input():
    table = pa.table({"g": [1, 2, 3], "v": [5, None, 7]})
    p = plan.scan("t", table).window(
        [{"func": f, "arg": None if f in ("rank", "row_number") else "v", "partition_by": ["g"],
          "order_by": ["v"]} for f in ("row_number", "rank", "lag", "sum", "min", "count")],
        ["rn", "rk", "lg", "sm", "mn", "ct"])
    got = plan.create_physical_plan(p).collect().to_pydict()
    assert got["rn"] == [1, 1, 1] and got["rk"] == [1, 1, 1]
    assert got["lg"] == [None, None, None]
    assert got["sm"] == [5, None, 7] and got["mn"] == [5, None, 7] and got["ct"] == [1, 0, 1]
    empty = plan.create_physical_plan(plan.scan("t", table.slice(0, 0)).window(
        [{"func": "sum", "arg": "v", "order_by": ["g"]}], ["s"])).collect()
    assert empty.num_rows == 0 and empty.schema.field("s").type == pa.int64()


def _window(spec):
    table = pa.table({"g": [1], "v": [1.5], "s": ["x"]})
    return plan.scan("t", table).window([spec], ["w"])


@pytest.mark.parametrize("spec, words", [
    ({"func": "sum", "arg": "v", "frame": ("rows", 2, -1)},
     ["impossible window frame", "2 FOLLOWING", "1 PRECEDING"]),
    ({"func": "median", "arg": "v"}, ["unknown window function 'median'", "row_number"]),
    ({"func": "lag"}, ["lag needs an argument"]),
    ({"func": "lead", "arg": "v", "offset": -1}, ["lead's offset", "-1"]),
    ({"func": "rank", "frame": ("rows", -1, 0)}, ["rank reads no frame"]),
    ({"func": "sum", "arg": "s"}, ["window sum takes integers, floats or decimals", "string"]),
    ({"func": "stddev_pop", "arg": "s"}, ["window stddev_pop takes integers", "string"]),
    ({"func": "var_samp"}, ["var_samp needs an argument"]),
    ({"func": "sum", "arg": "nope"}, ["nope"]),
    ({"func": "sum", "arg": "v", "frame": ("groups", -1, 0)}, ["('range', start, end)"]),
    ({"func": "sum", "arg": "v", "frame": ("range", -1, 0)},
     ["RANGE BETWEEN 1 PRECEDING AND CURRENT ROW", "exactly one order key, not 0"]),
    ({"func": "sum", "arg": "v", "order_by": ["s"], "frame": ("range", -1, 0)},
     ["adds its offsets to the order key", "string"]),
    ({"func": "sum", "arg": "v", "order_by": ["g"], "frame": ("range", -0.5, 0)},
     ["fractional offset", "integer order key"]),
    ({"func": "sum", "arg": "v", "order_by": ["g"], "frame": ("range", -2**70, 0)},
     ["larger than the order key's type int64 can hold"]),
    ({"func": "sum", "arg": "v", "frame": ("range", float("nan"), 0)}, ["must be a number"]),
    ({"func": "lag", "arg": "v", "order_by": ["g"], "default": "s"},
     ["lag's default t.s is string", "argument t.v is double"]),
    ({"func": "sum", "arg": "v", "default": 1.0}, ["only lag and lead take a default"]),
    ({"func": "sum", "arg": "v", "partition": ["g"]}, ["unknown keys ['partition']"]),
])
def test_bad_windows_are_clear_errors(spec, words):
    with pytest.raises(ExprscopeError) as caught:
        _window(spec)
    for word in words:
        assert word in str(caught.value)


def test_explain_shows_the_window_and_a_filter_stays_above_it():
    table = pa.table({"g": [1, 1, 2], "o": [1, 2, 3], "v": [1, 2, 3]})
    p = plan.scan("t", table).window(
        [{"func": "sum", "arg": "v", "partition_by": ["g"], "order_by": ["o"],
          "frame": ("rows", -1, None)}], ["running"]).filter(tk.field("v") > 1)
    text = plan.optimize(p).explain()
    assert text.index("Filter") < text.index("WindowAggr")
    assert ("sum(t.v) OVER (PARTITION BY [t.g] ORDER BY [t.o ASC NULLS LAST] ROWS BETWEEN "
            "1 PRECEDING AND UNBOUNDED FOLLOWING) AS running") in text
    physical = plan.create_physical_plan(plan.optimize(p))
    assert "WindowAggExec" in physical.explain()
    assert physical.collect().column("running").to_pylist() == [3, 3]


def test_a_window_round_trips_through_substrait():
    p = _window({"func": "rank", "order_by": ["v"]})
    assert plan.from_substrait(p.to_substrait(), {"t": p.input.source}).equals(p)


def test_float_sums_keep_each_frame_to_its_own_values():
    """NaN and infinities count only in the frames that hold them, and a partition of huge
    values does not round away a later partition's small ones (DuckDB as the oracle)."""
    t = pa.table({"g": [1, 1, 1, 2, 2, 2, 3, 3], "o": [1, 2, 3, 1, 2, 3, 1, 2],
                  "v": [1e18, -1e18, 3.0, 1.5, math.nan, 2.5, math.inf, 1.0]})
    specs = [{"func": "sum", "arg": "v", "partition_by": ["g"], "order_by": ["o"]},
             {"func": "sum", "arg": "v", "partition_by": ["g"], "order_by": ["o"],
              "frame": ("rows", 0, 0)},
             {"func": "avg", "arg": "v", "partition_by": ["g"], "order_by": ["o"],
              "frame": ("rows", -1, 0)}]
    got = (plan.create_physical_plan(plan.scan("t", t).window(specs, ["s", "s0", "a"]))
           .collect().sort_by([("g", "ascending"), ("o", "ascending")]))
    con = duckdb.connect()
    con.register("t", t)
    want = con.sql(
        "select sum(v) over (partition by g order by o) s, "
        "sum(v) over (partition by g order by o rows between current row and current row) s0, "
        "avg(v) over (partition by g order by o rows between 1 preceding and current row) a "
        "from t order by g, o").to_arrow_table()
    for name in ("s", "s0", "a"):
        ours, theirs = got.column(name).to_pylist(), want.column(name).to_pylist()
        assert [repr(x) for x in ours] == [repr(x) for x in theirs], name


@pytest.mark.parametrize("func", ["var_samp", "var_pop", "stddev_samp", "stddev_pop"])
@pytest.mark.parametrize("frame", [None, ("rows", -2, 1), ("rows", -1, None), ("rows", None, 0)])
def test_variances_keep_every_digit_far_from_zero(func, frame):
    """Values near 1e9 that differ by a few units: a variance from sums of squares loses
    every digit there (its error is about 1e18's rounding, 100 or more). Each frame's must
    be the exact one (Python's `statistics`, which computes with fractions) to within what
    Spark's running update keeps: its running mean rounds at 1e9's last bit (1.2e-7), a
    relative error near 1e-8 in the variance."""
    import statistics

    values = [1e9 + d for d in (0.5, 1.0, 3.25, -2.0, 7.0, 0.0, 1.5, -0.75, 2.0, 4.5)]
    values[3] = None
    table = pa.table({"id": pa.array(range(len(values)), pa.int64()),
                      "g": pa.array([0] * 6 + [1] * 4, pa.int64()),
                      "v": pa.array(values, pa.float64())})
    spec = {"func": func, "arg": "v", "partition_by": ["g"], "order_by": ["id"], "frame": frame}
    got = plan.create_physical_plan(plan.scan("t", table).window([spec], ["w"])).collect()
    start, end = (None, None) if frame is None else frame[1:]
    ours = got.column("w").to_pylist()
    for row, group in enumerate(table.column("g").to_pylist()):
        members = [i for i, g in enumerate(table.column("g").to_pylist()) if g == group]
        at = members.index(row)
        if frame is None:  # ordered, no frame: rows up to the current one (ids are unique)
            first, last = 0, at
        else:
            first = 0 if start is None else max(0, at + start)
            last = len(members) - 1 if end is None else min(len(members) - 1, at + end)
        frame_values = [values[members[i]] for i in range(first, last + 1)
                        if values[members[i]] is not None]
        sample = func.endswith("_samp")
        if len(frame_values) < (2 if sample else 1):
            assert ours[row] is None, (row, ours[row])
            continue
        exact = (statistics.variance if sample else statistics.pvariance)(frame_values)
        if func.startswith("stddev"):
            exact = math.sqrt(exact)
        assert math.isclose(ours[row], exact, rel_tol=1e-7), (row, ours[row], exact)


@pytest.mark.parametrize("func", ["var_samp", "var_pop", "stddev_samp", "stddev_pop"])
def test_a_variance_window_round_trips_through_substrait_as_itself(func):
    """`variance` and `std_dev` name sample or population in an option: a population
    variance written out must come back as the population one."""
    p = _window({"func": func, "arg": "v", "partition_by": ["g"], "order_by": ["v"],
                 "frame": ("rows", -1, 1)})
    back = plan.from_substrait(p.to_substrait(), {"t": p.input.source})
    assert back.equals(p)
    assert back.functions[0].func == func
    ours = plan.create_physical_plan(p).collect().column("w")
    assert plan.create_physical_plan(back).collect().column("w").equals(ours)
