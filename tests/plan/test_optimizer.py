"""The logical optimizer: what each rule does, that it is reported, and that results never change."""

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan


@pytest.fixture
def t():
    return pa.table({"id": pa.array([1, 2, 3, 4, 5], pa.int64()),
                     "x": pa.array([5.0, None, 1.0, 7.0, 2.0]),
                     "s": pa.array(["a", "b", None, "a", "c"]),
                     "unused": pa.array([0] * 5)})


def _kinds(p):
    return [type(n).__name__ for n in p.walk()]


def test_filter_moves_below_projection_with_the_expression_substituted(t):
    p = plan.scan("t", t).project(["id", tk.field("x") * 2], names=["id", "x2"]).filter(
        tk.field("x2") > 5)
    o = plan.optimize(p)
    assert _kinds(o) == ["Projection", "Filter", "TableScan"]
    assert o.input.predicate.to_string() in ("(multiply_checked(2, t.x) > 5)",
                                           "(multiply_checked(t.x, 2) > 5)")
    assert o.schema == p.schema


def test_filter_implied_by_the_filter_beneath_is_dropped(t):
    p = plan.scan("t", t).filter(tk.field("x") > 3).filter(tk.field("x") > 1)
    o = plan.optimize(p)
    assert _kinds(o) == ["Filter", "TableScan"]
    assert o.predicate.to_string() == "(t.x > 3)"


def test_contradicting_filter_becomes_an_empty_relation_and_empties_above(t, recorder):
    p = (plan.scan("t", t).filter(tk.field("x") > 3).project(["id", "x"])
         .filter(tk.field("x") < 2).sort([("id", "ascending")]))
    o = plan.optimize(p)
    assert _kinds(o) == ["EmptyRelation"]
    assert o.schema == p.schema
    assert plan.create_physical_plan(o).collect().num_rows == 0
    changed = [e.rule for e in recorder.rules if e.changed]
    assert "eliminate_filter" in changed and "propagate_empty_relation" in changed


def test_filters_split_across_the_sides_of_an_inner_join(t):
    other = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "y": pa.array([9, 8, 7])})
    p = (plan.scan("t", t).join(plan.scan("u", other), on="id")
         .filter(tk.and_(tk.field("x") > 1, tk.field("y") < 9)))
    o = plan.optimize(p)
    join = o if isinstance(o, plan.Join) else o.input
    assert isinstance(join, plan.Join)
    assert join.left.label() == "Filter: (t.x > 1)" and join.right.label() == "Filter: (u.y < 9)"
    left = plan.scan("t", t).join(plan.scan("u", other), on="id", how="left").filter(
        tk.field("y") < 9)
    assert _kinds(plan.optimize(left))[:2] == ["Filter", "Join"]  # not below a left join's right


def test_a_filter_that_can_fail_is_not_merged_into_one_that_guards_it():
    data = pa.table({"a": pa.array([0, 2, None], pa.int64()), "b": pa.array([1, 4, 6], pa.int64())})
    p = plan.scan("t", data).filter(tk.field("a") != 0).filter(
        tk.call("divide", [tk.field("b"), tk.field("a")]) > 1)
    o = plan.optimize(p)
    assert _kinds(o) == ["Filter", "Filter", "TableScan"]
    assert plan.create_physical_plan(o).collect().to_pylist() == [{"a": 2, "b": 4}]


def test_unused_columns_are_pruned_down_to_the_scan(t):
    p = plan.scan("t", t).filter(tk.field("x") > 0).aggregate(["s"], [("sum", "id", "total")])
    o = plan.optimize(p)
    scan = next(n for n in o.walk() if isinstance(n, plan.TableScan))
    assert scan.projection == ("id", "x", "s")
    counted = plan.optimize(plan.scan("t", t).aggregate([], [("count", None, "n")]))
    assert next(n for n in counted.walk() if isinstance(n, plan.TableScan)).projection == ("id",)


def test_adjacent_projections_merge(t):
    p = plan.scan("t", t).project([tk.field("x") + 1], names=["y"]).project(
        [tk.field("y") * 2], names=["z"])
    o = plan.optimize(p)
    assert _kinds(o) == ["Projection", "TableScan"]
    assert plan.create_physical_plan(o).collect().equals(plan.create_physical_plan(p).collect())
    reused = plan.scan("t", t).project([tk.field("x") + 1], names=["y"]).project(
        [tk.field("y") * tk.field("y")], names=["z"])
    assert _kinds(plan.optimize(reused))[:2] == ["Projection", "Projection"]  # not computed twice


def test_observer_is_called_after_every_rule_with_before_and_after(t):
    seen = []

    class Watch(tk.Observer):
        def on_plan_rule(self, event):
            seen.append(event)

    p = plan.scan("t", t).project(["id", "x"]).filter(tk.field("x") > 1)
    o = plan.optimize(p, observer=Watch())
    rules = [r.name for r in plan.default_rules()]
    assert [e.rule for e in seen[:len(rules)]] == rules
    first_change = next(e for e in seen if e.changed)
    assert first_change.before is p
    assert seen[-1].after.equals(o)
    assert all(e.before.equals(e.after) != e.changed for e in seen)


def test_optimizing_an_optimized_plan_changes_nothing(t):
    p = plan.scan("t", t).filter(tk.field("x") > 1).project(["id", "s"]).filter(
        tk.field("s") == "a")
    o = plan.optimize(p)
    assert plan.optimize(o) is o


# -- the property: optimized and unoptimized plans give the same rows -------------------------

_NUMERIC = ["dep_delay", "arr_delay", "distance", "air_time", "month", "dep_time"]


@st.composite
def _atoms(draw):
    kind = draw(st.sampled_from(["cmp", "null", "text"]))
    if kind == "cmp":
        column = draw(st.sampled_from(_NUMERIC))
        op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
        value = draw(st.integers(-10, 400))
        ops = {"<": (tk.less, pc.less), "<=": (tk.less_equal, pc.less_equal),
               ">": (tk.greater, pc.greater), ">=": (tk.greater_equal, pc.greater_equal),
               "==": (tk.equal, pc.equal), "!=": (tk.not_equal, pc.not_equal)}
        ours, theirs = ops[op]
        return ours(tk.field(column), value), theirs(pc.field(column), value)
    if kind == "null":
        column = draw(st.sampled_from(["dep_time", "arr_delay", "tailnum"]))
        return tk.is_null(tk.field(column)), pc.field(column).is_null()
    value = draw(st.sampled_from(["JFK", "LGA", "EWR"]))
    return tk.field("origin") == value, pc.field("origin") == value


def _predicates():
    def combine(children):
        pair = st.tuples(children, children)
        return st.one_of(
            pair.map(lambda ab: (tk.and_(ab[0][0], ab[1][0]), ab[0][1] & ab[1][1])),
            pair.map(lambda ab: (tk.or_(ab[0][0], ab[1][0]), ab[0][1] | ab[1][1])),
            children.map(lambda a: (tk.not_(a[0]), ~a[1])))

    return st.recursive(_atoms(), combine, max_leaves=4)


# each example plans, optimizes and runs two plans: a third of the profile's examples
# (20 by default, more under HYPOTHESIS_PROFILE=thorough) keeps the suite quick
_PLAN_EXAMPLES = settings(max_examples=max(20, settings.default.max_examples // 3))


def _sorted_rows(table):
    rows = [tuple(r.values()) for r in table.to_pylist()]
    return sorted(rows, key=lambda row: [(v is None, v) for v in row])


@_PLAN_EXAMPLES
@given(first=_predicates(), second=_predicates())
def test_optimized_plan_gives_the_rows_of_the_unoptimized_plan_and_of_pyarrow(
        small_flights, first, second):
    p = (plan.scan("flights", small_flights).filter(first[0])
         .project(["carrier", "origin", "dep_delay", "arr_delay", "dep_time", "distance",
                   "air_time", "month", "tailnum"])
         .filter(second[0]).project(["carrier", "dep_delay", "distance"]))
    raw = plan.create_physical_plan(p).collect()
    optimized = plan.optimize(p)
    assert optimized.schema == p.schema
    got = plan.create_physical_plan(optimized).collect()
    reference = small_flights.filter(first[1]).filter(second[1]).select(
        ["carrier", "dep_delay", "distance"])
    assert _sorted_rows(raw) == _sorted_rows(got) == _sorted_rows(reference)


@given(predicate=_predicates(), key=st.sampled_from(["carrier", "origin", "month"]))
def test_optimized_aggregate_over_a_filter_matches_pyarrow(small_flights, predicate, key):
    p = (plan.scan("flights", small_flights).filter(predicate[0])
         .aggregate([key], [("count", None, "n"), ("sum", "distance", "d")]))
    got = plan.create_physical_plan(plan.optimize(p)).collect()
    reference = small_flights.filter(predicate[1]).group_by(key).aggregate(
        [("distance", "count", pc.CountOptions(mode="all")), ("distance", "sum")])
    assert _sorted_rows(got) == _sorted_rows(reference.select([key, "distance_count",
                                                               "distance_sum"]))


def test_filter_on_a_group_key_moves_below_the_aggregate_and_one_on_a_total_stays(t):
    p = (plan.scan("t", t).aggregate(["s"], [("sum", "id", "total")])
         .filter(tk.and_(tk.field("s") == "a", tk.field("total") > 1)))
    o = plan.optimize(p)
    assert [n.label() for n in o.walk()][:3] == [
        "Filter: (total > 1)", "Aggregate: groupBy=[t.s], aggr=[sum(t.id) AS total]",
        'Filter: (t.s == "a")']
    assert plan.create_physical_plan(o).collect().to_pylist() == [{"s": "a", "total": 5}]
    assert plan.create_physical_plan(p).collect().to_pylist() == [{"s": "a", "total": 5}]


def test_conjuncts_of_one_filter_simplify_each_other(t):
    merged = plan.scan("t", t).filter(tk.field("x") > 1).filter(tk.field("x") > 3)
    assert plan.optimize(merged).label() == "Filter: (t.x > 3)"
    twice = plan.scan("t", t).filter(tk.and_(tk.field("x") > 2, tk.field("x") > 2))
    assert plan.optimize(twice).label() == "Filter: (t.x > 2)"  # one of the two stays
    never = plan.scan("t", t).filter(tk.and_(tk.field("x") > 5, tk.field("s") == "a",
                                             tk.field("x") < 3))
    assert plan.optimize(never).label() == "EmptyRelation: filter false"
    for p in (merged, twice, never):
        assert (plan.create_physical_plan(plan.optimize(p)).collect()
                .equals(plan.create_physical_plan(p).collect()))


@st.composite
def _join_atoms(draw):
    kind = draw(st.sampled_from(["seats", "year", "null_seats", "delay", "origin", "mixed"]))
    if kind == "seats":
        return tk.field("seats") > draw(st.integers(0, 400))
    if kind == "year":
        return tk.field("planes.year") <= draw(st.integers(1960, 2014))
    if kind == "null_seats":
        return tk.is_null(tk.field("seats"))
    if kind == "delay":
        return tk.field("dep_delay") < draw(st.integers(-10, 200))
    if kind == "origin":
        return tk.field("origin") == draw(st.sampled_from(["JFK", "LGA", "EWR"]))
    return tk.field("seats") > tk.field("distance") / 10  # reads both sides


def _join_predicates():
    return st.recursive(_join_atoms(), lambda c: st.one_of(
        st.tuples(c, c).map(lambda ab: tk.and_(*ab)),
        st.tuples(c, c).map(lambda ab: tk.or_(*ab)),
        c.map(tk.not_)), max_leaves=4)


@_PLAN_EXAMPLES
@given(predicate=_join_predicates(), above=_join_predicates(),
       how=st.sampled_from(["inner", "left"]))
def test_filters_around_joins_give_the_same_rows_optimized(small_flights, planes, predicate,
                                                           above, how):
    p = (plan.scan("flights", small_flights)
         .join(plan.scan("planes", planes), on="tailnum", how=how)
         .filter(predicate)
         .project(["carrier", "origin", "dep_delay", "seats", "planes.year", "distance"])
         .filter(above))
    raw = plan.create_physical_plan(p).collect()
    got = plan.create_physical_plan(plan.optimize(p)).collect()
    assert _sorted_rows(raw) == _sorted_rows(got)


def test_a_filter_that_can_fail_stays_above_an_inner_join():
    left = pa.table({"k": pa.array([1, 2], pa.int64()), "a": pa.array([0, 2], pa.int64()),
                     "b": pa.array([5, 8], pa.int64())})
    right = pa.table({"k": pa.array([2], pa.int64())})
    # the row with a == 0 has no match: the original never divides by it
    p = plan.scan("l", left).join(plan.scan("r", right), on="k").filter(
        tk.call("divide", [tk.field("b"), tk.field("a")]) > 1)
    o = plan.optimize(p)
    assert isinstance(o, plan.Filter) and isinstance(o.input, plan.Join)
    assert plan.create_physical_plan(o).collect().column("b").to_pylist() == [8]
    left_join = plan.scan("l", left).join(plan.scan("r", right), on="k", how="left").filter(
        tk.call("divide", [tk.field("b"), tk.field("a")]) > 1)
    with pytest.raises(tk.KernelError):  # every left row survives a left join: both fail
        plan.create_physical_plan(left_join).collect()
    with pytest.raises(tk.KernelError):
        plan.create_physical_plan(plan.optimize(left_join)).collect()
