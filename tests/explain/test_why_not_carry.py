"""`p.why_not(predicate)`: the predicate over the plan's output is carried down to a source
through renaming and computing projections, aggregates' group keys and joins, and the
source rows it is true on are the compatible ones.

Oracle: the data itself. The plan is rebuilt with every filter and limit taken out,
each row of `t` tagged with its number (passed through every projection and join, made a
group key of every aggregate), and run; the rows whose tags reach an output row the
predicate is true on must all be listed. When every term was carried down and no join
is on the way, exactly they are (a join may drop a listed row for want of a partner:
that is a why-not answer, not a wrong listing)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.plan.test_random_plans_optimize import BASE, _predicate, random_plans
from toolkit import plan
from toolkit.explain.carry_down import carry_down, matching_rows, source_predicate
from toolkit.explain.journey import why_not
from toolkit.model.expression import Parameter
from toolkit.model.field_ref import FieldRef
from toolkit.plan.columns import qualify

TAG = "__r"
TAGGED = BASE.append_column(TAG, pa.array(range(BASE.num_rows), pa.int64()))


def _tagged(p):
    """`p` with filters and limits out, and `t.__r` carried to the output."""
    kind = type(p).__name__
    if kind == "TableScan":
        return plan.scan("t", TAGGED) if p.relation == "t" else p
    if kind in ("Filter", "Limit"):
        return _tagged(p.input)
    if kind == "Sort":
        return p.with_new_children([_tagged(p.input)])
    tag = Parameter(FieldRef(f"t.{TAG}"))
    if kind == "Projection":
        return plan.Projection(_tagged(p.input), list(p.exprs) + [tag], list(p.names) + [TAG],
                               list(p.relations) + ["t"])
    if kind == "Aggregate":
        return plan.Aggregate(_tagged(p.input), list(p.group_exprs) + [tag],
                              list(p.group_names) + [TAG], list(p.group_relations) + ["t"],
                              p.aggregates)
    if kind in ("Join", "ConditionJoin"):
        return p.with_new_children([_tagged(p.left), p.right])
    raise AssertionError(f"no tagging for {kind}")


def _compatible(p, predicate) -> set[int]:
    tagged = _tagged(p)
    out = plan.create_physical_plan(tagged).collect()
    out = out.rename_columns(tagged.schema.qualified_names)
    mask = pc.fill_null(tk.evaluate(predicate, out), False)
    return set(out.filter(mask).column(f"t.{TAG}").to_pylist()) - {None}  # u0 rows alone


def _has_join(p) -> bool:
    return any(type(n).__name__ in ("Join", "ConditionJoin") for n in p.walk())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_plans(join_kinds=["inner", "left", "right", "full", "semi", "anti", "cross"]),
       st.data())
def test_every_compatible_row_is_listed(drawn, data):
    p, _ = drawn
    drawn_predicate = data.draw(_predicate(p), label="predicate")  # columns by position
    predicate = qualify(drawn_predicate, p.schema)
    reached = [c for c in carry_down(p, predicate) if c.conjuncts]
    assume(reached)
    best = max(reached, key=lambda c: len(set(c.origins)))
    assume(best.scan.relation == "t")
    listed = matching_rows(BASE, source_predicate(best)).to_pylist()
    result = why_not(p, drawn_predicate)
    assert result.relation == "t" and result.compatible == len(listed)
    assert [j.row for j in result.journeys] == listed[:10]
    expected = _compatible(p, predicate)
    assert expected <= set(listed), (p.explain(), str(predicate), result.carried)
    if not result.not_carried and not _has_join(p):
        assert set(listed) == expected, (p.explain(), str(predicate), result.carried)


def test_a_renamed_and_computed_column_reaches_the_source():
    t = pa.table({"a": [1, 5, None, 7], "b": [10, 20, 30, 40]})
    p = plan.scan("t", t).filter("b < 35").project(
        [tk.field("a") * 2, tk.field("b")], names=["twice", "bee"])
    result = p.why_not("twice > 9 and bee >= 20")
    assert result.carried == "((multiply_checked(a, 2) > 9) and (b >= 20))"
    assert [j.row for j in result] == [1, 3]  # a = 5, b = 20 and a = 7, b = 40
    assert result.journeys[0].kept
    assert result.journeys[1].dropped_at == "Filter: (t.b < 35)"


def test_through_an_aggregate_and_a_join_to_both_sides():
    t = pa.table({"id": [1, 2, 3], "g": ["x", "y", "x"]})
    o = pa.table({"oid": [1, 3, 3], "v": [5, 0, 9]})
    p = plan.scan("t", t).join(plan.scan("o", o).filter("v > 1"), on=[("id", "oid")]) \
        .aggregate(["g", "oid"], [("sum", tk.field("v"), "s")])
    result = p.why_not("g = 'x' and oid = 3 and s > 100")
    assert result.relation == "t" and [j.row for j in result] == [2]
    assert result.not_carried == ("(s > 100)",)
    assert "not carried down: (s > 100)" in result.why
    # the key's term reaches the other side too: o's rows with oid = 3
    to_o = next(c for c in carry_down(p, qualify(tk.parse("oid = 3"), p.schema))
            if c.scan.relation == "o")
    assert matching_rows(o, source_predicate(to_o)).to_pylist() == [1, 2]


def test_a_term_that_reaches_no_source_is_refused():
    t = pa.table({"g": ["x", "y"], "v": [1, 2]})
    p = plan.scan("t", t).aggregate(["g"], [("sum", tk.field("v"), "s")])
    with pytest.raises(plan.PlanError, match="no term of s > 1 can be carried down"):
        p.why_not("s > 1")
