"""A row's partners at a join are exactly the rows the join pairs it with: every equal key
(a null key pairs with nothing) and the residual condition, for every join type, from
either side; checked against the plan's own join output on random data."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.explain.test_journey import _tuples, _without
from toolkit import plan

KINDS = ["inner", "left", "right", "full", "semi", "anti", "cross"]
CONDITIONS = [None, "l.v < r.w", "r.w > 2", "l.v + r.w <> 5 or l.k2 is null"]


@st.composite
def _table(draw, id_name: str, value_name: str):
    n = draw(st.integers(1, 8))
    small = st.one_of(st.none(), st.integers(0, 3))
    return pa.table({
        id_name: pa.array(range(n), pa.int64()),
        "k1": pa.array(draw(st.lists(small, min_size=n, max_size=n)), pa.int64()),
        "k2": pa.array(draw(st.lists(small, min_size=n, max_size=n)), pa.int64()),
        value_name: pa.array(draw(st.lists(st.one_of(st.none(), st.integers(0, 6)),
                                           min_size=n, max_size=n)), pa.int64()),
    })


@st.composite
def _joins(draw):
    left, right = draw(_table("id", "v")), draw(_table("rid", "w"))
    how = draw(st.sampled_from(KINDS))
    keys = [] if how == "cross" else \
        draw(st.sampled_from([[("k1", "k1")], [("k1", "k1"), ("k2", "k2")], [("k2", "k1")]]))
    condition = None if how == "cross" else draw(st.sampled_from(CONDITIONS))
    if not keys and condition is None and how != "cross":
        keys = [("k1", "k1")]
    r = plan.scan("r", right)
    if draw(st.booleans()):
        r = r.filter("w is null or w > 0")  # partners come out of a filter
    on = [(f"l.{a}", f"r.{b}") for a, b in keys]
    p = plan.scan("l", left).join(r, on=on, how=how, condition=condition)
    return p, r, left, right, how, on, condition


def _rows(p) -> list[dict]:
    table = plan.create_physical_plan(p).collect()
    return [dict(zip(p.schema.qualified_names, row.values())) for row in table.to_pylist()]


def _pairs(left_plan, r, how, on, condition) -> list[dict]:
    """The pairs the join makes: its own output for the joins that show both sides, the
    inner join with the same keys and condition for semi and anti joins."""
    kind = how if how in ("inner", "left", "right", "full", "cross") else "inner"
    rows = _rows(left_plan.join(r, on=on, how=kind, condition=condition))
    return [row for row in rows if row["l.id"] is not None and row["r.rid"] is not None]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_joins(), st.data())
def test_partners_are_the_joins_own_pairs(drawn, data):
    p, r, left, right, how, on, condition = drawn
    pairs = _pairs(plan.scan("l", left), r, how, on, condition)
    sides = [("l", left, "l.id", "r.rid")]
    if how not in ("semi", "anti"):
        sides.append(("r", right, "r.rid", "l.id"))
    for relation, table, mine, theirs in sides:
        row = data.draw(st.integers(0, table.num_rows - 1), label=f"{relation} row")
        journey = p.explain_row(relation, row)
        stop = journey.stops[-1] if journey.stops[-1].kind != "TableScan" else None
        if stop is None or stop.at != ():
            # the row was dropped before the join (by the filter on r): no partners asked
            assert relation == "r" and not journey.kept
            continue
        expected = sorted(pair[theirs] for pair in pairs if pair[mine] == row)
        partners = stop.partners
        assert partners is not None, (p.explain(), journey.why)
        assert partners.found == len(expected), (p.explain(), relation, row, journey.why,
                                                 expected)
        column = theirs
        listed = [] if partners.rows is None else sorted(partners.rows.column(column).to_pylist())
        assert listed == expected[:10] or (len(expected) > 10 and set(listed) <= set(expected))
        # kept exactly when the join keeps it: with partners, or by an outer join anyway
        preserved = {"l": ("left", "full", "anti"), "r": ("right", "full")}[relation]
        if how == "anti":
            assert journey.kept == (not expected)
        else:
            assert journey.kept == (bool(expected) or how in preserved), journey.why


def test_a_multi_key_join_names_every_key_and_the_condition():
    left = pa.table({"id": [0, 1, 2], "k1": [1, 1, None], "k2": [5, 6, 5], "v": [1, 9, 1]})
    right = pa.table({"rid": [0, 1, 2], "k1": [1, 1, 1], "k2": [5, 7, 5], "w": [3, 3, 0]})
    p = plan.scan("l", left).join(plan.scan("r", right), on=[("l.k1", "r.k1"),
                                                              ("l.k2", "r.k2")],
                                  condition=tk.parse("l.v < r.w"))
    kept = p.explain_row("l", 0)  # k1 = 1, k2 = 5: rows 0 and 2 by keys, w > v only row 0
    assert kept.kept and kept.stops[-1].partners.found == 1
    assert kept.stops[-1].partners.rows.column("r.rid").to_pylist() == [0]
    first_key_only = p.explain_row("l", 1)  # k1 = 1 matches everywhere, k2 = 6 nowhere
    assert not first_key_only.kept
    assert "no row of r has r.k1 = 1 and r.k2 = 6" in first_key_only.why
    null = p.explain_row("l", 2)
    assert "key is null (l.k1 = null)" in null.why


NESTED_KINDS = ["inner", "left", "right", "full", "semi", "anti"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_table("id", "v"), _table("rid", "w"), _table("sid", "x"),
       st.sampled_from(["inner", "left", "semi", "anti"]), st.sampled_from(NESTED_KINDS),
       st.data())
def test_a_journey_reads_only_partner_rows_and_decides_as_the_whole_data(
        left, right, third, how, inner_how, data):
    """The other input of a join is itself a join: the journey restricts its sources to the
    rows that can pair with the row (and, inside, to the rows that can pair with those), yet
    keeps the row exactly when the plan's output with the row differs from it without."""
    inner = plan.scan("r", right).join(plan.scan("s", third), on=[("r.k2", "s.k1")],
                                       how=inner_how)
    p = plan.scan("l", left).join(inner, on=[("l.k1", "r.k1")], how=how)
    row = data.draw(st.integers(0, left.num_rows - 1))
    journey = p.explain_row("l", row)
    rest = pa.concat_tables([left.slice(0, row), left.slice(row + 1)])
    with_row = _tuples(plan.create_physical_plan(p).collect())
    without = _tuples(plan.create_physical_plan(_without(p, "l", rest)).collect())
    assert journey.kept == (with_row != without), (p.explain(), journey.why)
    reads = {r.relation: r.rows for r in journey.reads}
    key = left.column("k1")[row].as_py()
    partners = [k for k in right.column("k1").to_pylist() if k == key and key is not None]
    if inner_how not in ("right", "full"):  # r's unmatched rows never null-extended
        assert reads.get("r", 0) == len(partners)
    else:  # r is read whole: a key's term cannot go into the side an outer join extends
        assert "r" not in reads


def test_a_three_way_join_reads_one_row_of_each_side():
    c = pa.table({"ck": [1, 2, 3], "seg": ["a", "b", "a"]})
    o = pa.table({"ok": [10, 11, 12, 13], "ock": [1, 1, 3, 2]})
    li = pa.table({"lok": [10, 10, 11, 12, 13, 13], "n": [1, 2, 1, 1, 1, 2]})
    p = plan.scan("c", c).join(plan.scan("o", o), on=[("ck", "ock")]) \
        .join(plan.scan("li", li), on=[("ok", "lok")]).filter("seg = 'a'")
    from_customer = p.explain_row("c", 0)  # orders 10, 11; lines 10, 10, 11
    assert {r.relation: r.rows for r in from_customer.reads} == {"c": 1, "o": 2, "li": 3}
    assert from_customer.kept and from_customer.stops[-1].count == 3
    from_line = p.explain_row("li", 4)  # order 13, its customer 2 (seg b)
    assert {r.relation: r.rows for r in from_line.reads} == {"li": 1, "o": 1, "c": 1}
    assert from_line.dropped_at == "Filter: (c.seg == \"a\")"


def test_exists_and_not_exists_name_the_partners_that_decided():
    t = pa.table({"id": [1, 2, 3, None]})
    o = pa.table({"oid": [1, 2, 2, 3], "w": [1, 0, 5, 0]})
    sub = plan.scan("o", o).filter("w > 0")
    exists = plan.SubqueryFilter(plan.scan("t", t), sub, "exists", False, on=[("t.id", "o.oid")])
    assert exists.explain_row("t", 1).stops[-1].partners.found == 1  # (2, 5), not (2, 0)
    dropped = exists.explain_row("t", 2)  # o's only oid = 3 has w = 0
    assert "the first (row 3) was dropped at Filter: (o.w > 0)" in dropped.why
    assert "a null key joins with nothing" in exists.explain_row("t", 3).why
    absent = plan.SubqueryFilter(plan.scan("t", t), sub, "exists", True, on=[("t.id", "o.oid")])
    assert "an anti join keeps only rows without one" in absent.explain_row("t", 0).why
    assert absent.explain_row("t", 2).kept


def test_a_condition_its_own_columns_fail_is_told_as_the_rows_story():
    """TPC-H's Q13 counts an order for its customer unless its comment is special: the
    order with one has its customer, and the condition (on its columns alone) fails it;
    said with the comment, not as if the customer were missing."""
    c = pa.table({"ck": [1, 2]})
    o = pa.table({"oid": [10, 11], "ock": [1, 1], "note": ["special requests", "plain"]})
    p = plan.scan("c", c).join(plan.scan("o", o), on=[("ck", "ock")], how="left",
                               condition="not (note like '%special%')")
    journey = p.explain_row("o", 0)
    assert not journey.kept and journey.stops[-1].kind == "ConditionJoin"
    assert "the join's condition fails it whatever the partner: the result is false" \
        in journey.why
    assert "'special requests'" in journey.why and "no row of c" not in journey.why
    assert p.explain_row("o", 1).kept
