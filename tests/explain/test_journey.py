"""A row's journey through a plan: kept at the root exactly when the plan's output with
the row differs from its output without it; a filter that dropped it is false or null on
it. Plus the join, aggregate, limit and why-not shapes."""

from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.plan.test_random_plans_optimize import BASE, _value, random_plans
from toolkit import plan
from toolkit.errors import PlanError


def _without(p, relation: str, table: pa.Table):
    """`p` with the scan of `relation` reading `table` (rebuilt bottom-up)."""
    if isinstance(p, plan.TableScan):
        return plan.TableScan(p.relation, plan.TableSource(table), p.projection) \
            if p.relation == relation else p
    return p.with_new_children([_without(c, relation, table) for c in p.children])


def _tuples(table: pa.Table) -> Counter:
    """The rows as a multiset of tuples (by position: a join may repeat a column's name)."""
    return Counter(zip(*[[_value(v) for v in c.to_pylist()] for c in table.columns]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_plans(), st.integers(0, BASE.num_rows - 1))
def test_kept_agrees_with_the_output_with_and_without_the_row(drawn, row):
    p, _ = drawn
    journey = p.explain_row("t", row)
    rest = pa.concat_tables([BASE.slice(0, row), BASE.slice(row + 1)])
    with_row = _tuples(plan.create_physical_plan(p).collect())
    without = _tuples(plan.create_physical_plan(_without(p, "t", rest)).collect())
    assert journey.kept == (with_row != without), (p.explain(), journey.why)
    if journey.kept:
        assert journey.dropped_at is None and journey.stops[-1].at == ()
        return
    last = journey.stops[-1]
    assert journey.dropped_at == last.operator and not last.kept
    if last.kind == "Filter":
        node = plan_at(p, last.at)
        before = journey.stops[-2].rows.rename_columns(node.input.schema.qualified_names)
        values = tk.evaluate(node.predicate, before)
        assert not pc.any(pc.fill_null(values, False)).as_py()  # false or null on the row
        assert last.story is not None, (p.explain(), [(s.operator, s.count, s.kept) for s in journey.stops])
        assert not (last.story.value is not None
                                               and last.story.value.as_py() is True)


def plan_at(p, at):
    for i in at:
        p = p.children[i]
    return p


@pytest.fixture
def flights():
    t = pa.table({"id": [1, 2, 3, 4, 5], "a": [0, 2, None, 5, 7], "b": [5, 6, 7, 8, 9]})
    o = pa.table({"oid": [1, 2, 9, 5], "v": ["x", "y", "z", "w"], "w": [1, 1, 1, 0]})
    return plan.scan("t", t).filter("a > 1").join(
        plan.scan("o", o).filter("w > 0"), on=[("id", "oid")])


def test_a_filter_says_which_term_dropped_the_row(flights):
    journey = flights.explain_row("t", 0)
    assert not journey.kept and journey.dropped_at == "Filter: (t.a > 1)"
    assert "`t.a` = 0" in journey.why
    null = flights.explain_row("t", 2)
    assert "the null comes from column t.a" in null.why


def test_a_join_without_partner_says_whether_the_key_is_missing_or_the_partner_dropped(
        flights):
    missing = flights.explain_row("t", 3)
    assert missing.dropped_at == "Inner Join: t.id = o.oid"
    assert "no row of o has o.oid = 4" in missing.why
    dropped = flights.explain_row("t", 4)
    partners = dropped.stops[-1].partners
    assert partners.found == 0 and partners.partner_journey.row == 3
    assert partners.partner_journey.dropped_at == "Filter: (o.w > 0)"
    assert "`o.w` = 0" in dropped.why


def test_an_aggregate_names_the_group_and_a_limit_its_cut():
    t = pa.table({"g": ["a", "b", "a", "c"], "x": [1, 2, 3, 9]})
    p = plan.scan("t", t).aggregate(["g"], [("sum", tk.field("x"), "s")]).sort(
        [("s", "descending")]).limit(1)
    kept = p.explain_row("t", 3)
    assert kept.kept and kept.stops[1].note == "in the group t.g = 'c'"
    cut = p.explain_row("t", 1)
    assert cut.dropped_at == "Limit: skip=0, fetch=1"
    assert "the limit cut it" in cut.why and "position 2" in cut.why


def test_why_not_tells_the_journeys_of_the_compatible_rows(flights):
    result = flights.why_not("b >= 8")
    assert result.compatible == 2 and [j.row for j in result] == [3, 4]
    assert "2 are dropped" in result.why
    text = tk.to_text(result, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80


def test_bad_sources_and_rows_are_named(flights):
    with pytest.raises(PlanError, match="no source named 'tt'.*it reads o, t"):
        flights.explain_row("tt", 0)
    with pytest.raises(tk.ExprscopeError, match="row 9 is out of range: the table has 5 rows"):
        flights.explain_row("t", 9)
