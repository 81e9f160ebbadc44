"""Random plans of up to 12 nodes optimize within the round bound and keep their rows.

Plans are drawn node by node over a table with nulls in every column: filters,
projections that rename, reorder and recompute, aggregates, sorts, limits (only
right after a sort on every column, where the rows a limit keeps are decided),
joins, unions (ALL or DISTINCT) of the plan with a filtered copy of itself, [NOT]
EXISTS / IN subqueries and scalar subqueries, correlated (an aggregate over the rows
matching an outer column, count(*) included) or not. The optimized plan must give the unoptimized plan's rows: as
multisets, or in order where a sort on every column fixes the order.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.types as pat
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.plan.builder import join_condition

MAX_NODES = 12
JOIN_KINDS = ["inner", "left", "right", "full", "semi", "anti", "cross"]

BASE = pa.table({
    "k": pa.array([i % 5 if i % 7 else None for i in range(24)], pa.int64()),
    "a": pa.array([(i * 37) % 50 - 10 if i % 5 else None for i in range(24)], pa.int64()),
    "x": pa.array([((i * 13) % 17) / 4 if i % 6 else None for i in range(24)], pa.float64()),
    "s": pa.array([["JFK", "LGA", "EWR"][i % 3] if i % 4 else None for i in range(24)]),
})
RIGHT = pa.table({"k": pa.array([0, 1, 1, 3, None, 7], pa.int64()),
                  "y": pa.array([10, None, 30, 40, 50, 60], pa.int64())})
NAMES = ["k", "a", "x", "s", "b", "c"]


def _kind(field) -> str:
    if pat.is_integer(field.type):
        return "int"
    if pat.is_floating(field.type):
        return "float"
    return "str" if pat.is_string(field.type) else "other"


def _columns(p, kinds) -> list[int]:
    return [i for i, f in enumerate(p.schema) if _kind(f) in kinds]


@st.composite
def _atom(draw, p):
    numeric = _columns(p, ("int", "float"))
    strings = _columns(p, ("str",))
    choices = ["null"] + (["cmp"] if numeric else []) + (["text"] if strings else [])
    kind = draw(st.sampled_from(choices))
    if kind == "null":
        return tk.is_null(tk.field(draw(st.integers(0, len(p.schema) - 1))))
    if kind == "text":
        return tk.field(draw(st.sampled_from(strings))) == draw(st.sampled_from(["JFK", "EWR"]))
    column = draw(st.sampled_from(numeric))
    compare = draw(st.sampled_from([tk.less, tk.less_equal, tk.greater, tk.greater_equal,
                                    tk.equal, tk.not_equal]))
    return compare(tk.field(column), draw(st.integers(-10, 40)))


@st.composite
def _predicate(draw, p):
    out = draw(_atom(p))
    for _ in range(draw(st.integers(0, 2))):
        join = draw(st.sampled_from(["and", "or", "not"]))
        if join == "not":
            out = tk.not_(out)
        else:
            other = draw(_atom(p))
            out = tk.and_(out, other) if join == "and" else tk.or_(out, other)
    return out


@st.composite
def _output(draw, p):
    """One output column: a column as it is, or one recomputed from a column."""
    i = draw(st.integers(0, len(p.schema) - 1))
    kind = _kind(p.schema.fields[i])
    how = draw(st.sampled_from(["as is", "recompute"]))
    if how == "as is" or kind not in ("int", "float"):
        return tk.field(i)
    if kind == "int":
        return draw(st.sampled_from([tk.field(i) + 1, tk.field(i) * 2, tk.field(i) - 3]))
    return draw(st.sampled_from([tk.field(i) * 0.5, tk.field(i) + 1.5]))


@st.composite
def _projection(draw, p):
    outputs = draw(st.lists(_output(p), min_size=1, max_size=4))
    names = draw(st.permutations(NAMES))[:len(outputs)]
    return p.project(outputs, names=names)


@st.composite
def _aggregate(draw, p, tag: int):
    keys = draw(st.lists(st.integers(0, len(p.schema) - 1), max_size=2, unique=True))
    numeric = _columns(p, ("int", "float"))
    specs = [("count", None, f"n{tag}")]
    if numeric:
        func = draw(st.sampled_from(["sum", "min", "max", "mean", "count"]))
        specs.append((func, tk.field(draw(st.sampled_from(numeric))), f"v{tag}"))
    return p.aggregate([tk.field(i) for i in keys], specs)


@st.composite
def _sort(draw, p):
    """A sort on some columns (or all of them) in random order and directions."""
    columns = draw(st.permutations(range(len(p.schema))))
    total = draw(st.booleans())
    columns = columns if total else columns[:draw(st.integers(1, len(columns)))]
    keys = [(tk.field(i), draw(st.sampled_from(["ascending", "descending"])),
             draw(st.sampled_from(["nulls_first", "nulls_last"]))) for i in columns]
    return p.sort(keys), len(columns) == len(p.schema)


SUBQUERY_AGGREGATES = [("count", None), ("count", "y"), ("sum", "y"), ("min", "y"),
                       ("max", "y"), ("mean", "y")]


@st.composite
def _scalar_subquery(draw, p, tag: int):
    """`(SELECT f(y) [+ 1] FROM q WHERE [q.y > c AND] q.k = outer.col)` as a column of `p`
    (correlated on an int column, or not correlated at all)."""
    relation = f"q{tag}"
    rows = plan.scan(relation, RIGHT)
    if draw(st.booleans()):
        rows = rows.filter(tk.field(f"{relation}.y") > draw(st.integers(0, 45)))
    func, arg = draw(st.sampled_from(SUBQUERY_AGGREGATES))
    sub = rows.aggregate([], [(func, None if arg is None else f"{relation}.{arg}", f"g{tag}")])
    if draw(st.booleans()):
        sub = sub.project([tk.field(f"g{tag}") + 1], names=[f"g{tag}"])
    if draw(st.booleans()):
        return plan.ScalarSubquery(p, sub)
    outer = p.schema.fields[draw(st.sampled_from(_columns(p, ("int",))))]
    return plan.ScalarSubquery(p, sub, correlation=[(outer.qualified_name, f"{relation}.k")])


@st.composite
def _subquery_filter(draw, p, tag: int):
    """`WHERE [NOT] EXISTS (SELECT * FROM q WHERE q.k = outer.col [AND q.y < outer.col2])`
    or `WHERE col [NOT] IN (SELECT k FROM q)`."""
    relation = f"q{tag}"
    inner = plan.scan(relation, RIGHT)
    column = p.schema.fields[draw(st.sampled_from(_columns(p, ("int",))))].qualified_name
    negated = draw(st.booleans())
    if draw(st.booleans()):  # IN: NOT IN's nulls make it unknown, so false
        inner = inner.project([f"{relation}.k"])
        equal = tk.field(column) == tk.field(f"{relation}.k")
        if negated:
            return plan.SubqueryFilter(p, inner, "in", True, [],
                                       tk.or_(equal, tk.is_null(equal)))
        return plan.SubqueryFilter(p, inner, "in", False, [(column, f"{relation}.k")])
    both = p.join(inner, how="cross")
    condition = draw(_predicate(both)) if draw(st.booleans()) else None
    if condition is not None:  # its columns by name, as the plan's join() takes them
        condition = join_condition(p, inner, condition)
    return plan.SubqueryFilter(p, inner, "exists", negated, [(column, f"{relation}.k")],
                               condition)


@st.composite
def random_plans(draw, join_kinds=JOIN_KINDS, join_conditions=True, unions: bool = False,
                 subqueries: bool = False):
    """(plan, whether its top node fixes the order of every row). `join_kinds` and
    `join_conditions` narrow the joins drawn (Substrait writes inner and left equi-joins);
    with `unions`, also unions (which the Substrait writer does not write); with
    `subqueries`, also [NOT] EXISTS / IN filters and scalar subqueries, correlated or not."""
    p, nodes, joins, fully_sorted = plan.scan("t", BASE), 1, 0, False
    while nodes < MAX_NODES and draw(st.integers(0, 9)) > 0:
        kinds = ["filter", "project", "aggregate", "sort"] + (["union"] if unions else [])
        if subqueries and nodes + 3 <= MAX_NODES and _columns(p, ("int",)):
            kinds += ["scalar", "exists"]
        if fully_sorted:
            kinds.append("limit")
        if nodes + 2 <= MAX_NODES and _columns(p, ("int",)) and joins < 2:
            kinds.append("join")
        kind = draw(st.sampled_from(kinds))
        try:
            if kind == "filter":
                p = p.filter(draw(_predicate(p)))
            elif kind == "project":
                p = draw(_projection(p))
            elif kind == "aggregate":
                p = draw(_aggregate(p, nodes))
            elif kind == "scalar":
                p = draw(_scalar_subquery(p, nodes))
                nodes += 2
            elif kind == "exists":
                p = draw(_subquery_filter(p, nodes))
                nodes += 1
            elif kind == "union":
                p = p.union(p.filter(draw(_predicate(p))), distinct=draw(st.booleans()))
                nodes += 1
            elif kind == "sort":
                p, fully_sorted = draw(_sort(p))
                nodes += 1
                continue
            elif kind == "limit":
                p = p.limit(draw(st.integers(0, 12)), draw(st.integers(0, 3)))
                nodes += 1
                continue
            else:
                key = p.schema.fields[draw(st.sampled_from(_columns(p, ("int",))))]
                relation = f"u{joins}"
                right = plan.scan(relation, RIGHT)
                how = draw(st.sampled_from(join_kinds))
                if how == "cross":  # a comma join: the keys in a filter above, or none
                    p = p.join(right, how="cross")
                    if draw(st.booleans()):
                        p = p.filter(tk.and_(tk.field(key.qualified_name)
                                             == tk.field(f"{relation}.k"), draw(_predicate(p))))
                else:
                    both = p.join(right, how="cross")
                    condition = (draw(_predicate(both))
                                 if join_conditions and draw(st.booleans()) else None)
                    p = p.join(right, on=[(key.qualified_name, f"{relation}.k")], how=how,
                               condition=condition)
                joins += 1
                nodes += 1
        except (plan.PlanError, plan.DuplicateFieldError, plan.AmbiguousColumnError):
            continue  # a name clash the builder refuses: draw another node
        nodes += 1
        fully_sorted = False
    return p, fully_sorted


def _value(v):
    """Floats to 9 significant digits: sums and means may add in another order."""
    if isinstance(v, float) and math.isfinite(v) and v != 0:
        return round(v, 8 - math.floor(math.log10(abs(v))))
    return v


def _rows(table: pa.Table, ordered: bool) -> list[tuple]:
    rows = [tuple(_value(v) for v in row.values()) for row in table.to_pylist()]
    return rows if ordered else sorted(rows, key=lambda row: [(v is None, str(v)) for v in row])


class _RuleEvents(tk.Observer):
    def __init__(self):
        self.rules: list[str] = []

    def on_plan_rule(self, event):
        self.rules.append(event.rule)


@given(drawn=random_plans(unions=True, subqueries=True))
def test_random_plans_optimize_within_the_bound_and_keep_their_rows(drawn):
    p, ordered = drawn
    events = _RuleEvents()
    optimized = plan.optimize(p, observer=events)
    assert len(events.rules) <= plan.MAX_ROUNDS * len(plan.default_rules()) + 1
    assert optimized.schema == p.schema
    want = plan.create_physical_plan(p).collect()
    got = plan.create_physical_plan(optimized).collect()
    assert _rows(got, ordered) == _rows(want, ordered), (p.explain(), optimized.explain())
