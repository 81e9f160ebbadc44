"""A comma join (`from o, l where o.k = l.k and ...`: a cross join under a filter) pairs a
row, in effect, only with the other side's rows with its keys: the journey reads only
those, blames the term that stopped the row's pair with its partner (never the key,
against some other row), and says so when no partner exists or the partner was dropped
on its own way. Decided against the plan's output with and without the row."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from tests.explain.test_join_partners import _table
from tests.explain.test_journey import _tuples, _without
from toolkit import plan


@pytest.fixture
def orders_and_lines():
    o = pa.table({"oid": list(range(1, 2001)), "pri": ["1-URGENT", "5-LOW"] * 1000,
                  "ok": [1] * 1999 + [0]})
    li = pa.table({"lk": [69, 5, 3000, 7, 2000], "mode": ["MAIL", "SHIP", "MAIL", "AIR", "MAIL"],
                   "q": [5, 50, 5, 5, 5]})
    orders = plan.scan("o", o).filter("ok = 1")
    return orders.join(plan.scan("l", li), how="cross").filter(
        "oid = lk and q < 10 and mode = 'MAIL'")


def test_the_term_that_stopped_the_row_with_its_partner_is_named(orders_and_lines):
    kept = orders_and_lines.explain_row("l", 0)
    assert kept.kept and {r.relation: r.rows for r in kept.reads} == {"l": 1, "o": 1}
    assert "followed only with the 1 row with o.oid = 69" in kept.stops[-2].note
    quantity = orders_and_lines.explain_row("l", 1)
    assert "`(l.q < 10)` is false (with `l.q` = 50" in quantity.why
    mode = orders_and_lines.explain_row("l", 3)
    assert "`(l.mode == \"MAIL\")` is false (with `l.mode` = 'AIR'" in mode.why
    assert {r.relation: r.rows for r in mode.reads} == {"l": 1, "o": 1}


def test_a_row_without_partner_is_dropped_by_the_filter_for_want_of_one(orders_and_lines):
    missing = orders_and_lines.explain_row("l", 2)
    assert missing.dropped_at.startswith("Filter: (((o.oid == l.lk)")
    assert "`(o.oid == l.lk)` is not true for any of its pairs: no row of o has o.oid = 3000" \
        in missing.why
    join = missing.stops[-2]
    assert join.kind == "ConditionJoin" and join.kept and "none passes the filter above" in join.note
    partner_dropped = orders_and_lines.explain_row("l", 4)  # order 2000 has ok = 0
    assert "1 row of o has o.oid = 2000, but the first (row 1,999) was dropped at " \
        "Filter: (o.ok == 1)" in partner_dropped.why
    text = tk.to_text(partner_dropped, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80


def test_several_partners_the_closest_pair_is_explained():
    c = pa.table({"ck": [1, 2], "seg": ["B", "A"]})
    o = pa.table({"oid": list(range(1, 9)), "ock": [2, 1, 1, 2, 1, 1, 1, 2],
                  "pri": ["L", "L", "L", "L", "U", "L", "L", "L"],
                  "tot": [1, 2, 3, 4, 5, 600, 7, 8]})
    p = plan.scan("c", c).join(plan.scan("o", o), how="cross").filter(
        "ck = ock and pri = 'U' and tot > 100")
    journey = p.explain_row("c", 0)  # five orders; order 5 is urgent, but small
    assert "`(o.tot > 100)` is false (with `o.tot` = 5" in journey.why
    assert "of the 5 rows it is here, the one that passes the most" in journey.why


@st.composite
def _comma_joins(draw):
    left, right, third = draw(_table("id", "v")), draw(_table("rid", "w")), \
        draw(_table("sid", "x"))
    r = plan.scan("r", right)
    if draw(st.booleans()):
        r = r.filter("w is null or w > 0")  # a partner can be dropped on its own way
    joined = plan.scan("l", left).join(r, how="cross")
    keys = draw(st.sampled_from(["l.k1 = r.k1", "r.k1 = l.k1 and l.k2 = r.k2",
                                 "l.k2 = r.k1"]))
    terms = [keys]
    if draw(st.booleans()):  # a third source: its key equality in the same filter
        joined = joined.join(plan.scan("s", third), how="cross")
        terms.append("s.k1 = r.k2")
    terms += draw(st.lists(st.sampled_from(["l.v < r.w", "r.w > 2", "l.v is not null",
                                            "coalesce(l.v, 0) + r.w <> 5"]),
                           max_size=2, unique=True))
    order = draw(st.permutations(terms))
    return joined.filter(" and ".join(order)), left, right, keys


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_comma_joins(), st.data())
def test_a_comma_join_journey_reads_the_partners_and_decides_as_the_whole_data(drawn, data):
    p, left, right, keys = drawn
    relation, table, other, other_table = data.draw(st.sampled_from(
        [("l", left, "r", right), ("r", right, "l", left)]))
    row = data.draw(st.integers(0, table.num_rows - 1))
    journey = p.explain_row(relation, row)
    rest = pa.concat_tables([table.slice(0, row), table.slice(row + 1)])
    with_row = _tuples(plan.create_physical_plan(p).collect())
    without = _tuples(plan.create_physical_plan(_without(p, relation, rest)).collect())
    assert journey.kept == (with_row != without), (p.explain(), journey.why)
    pairs = [tuple(t.strip().split(" = ")) for t in keys.split(" and ")]
    ours = {a.split(".")[1] if a.startswith(relation) else b.split(".")[1]: \
            b.split(".")[1] if a.startswith(relation) else a.split(".")[1] for a, b in pairs}
    values = {mine: table.column(mine)[row].as_py() for mine in ours}
    partners = 0 if None in values.values() else sum(
        all(other_table.column(theirs)[i].as_py() == values[mine]
            for mine, theirs in ours.items()) for i in range(other_table.num_rows))
    if not any(s.kind == "ConditionJoin" for s in journey.stops):
        partners = 0  # its own filter dropped it before the join: nothing else is read
    elif not partners and len(ours) > 1:  # none: the rows sharing one key, the closest pairs
        partners = sum(any(values[mine] is not None and
                           other_table.column(theirs)[i].as_py() == values[mine]
                           for mine, theirs in ours.items())
                       for i in range(other_table.num_rows))
    reads = {r.relation: r.rows for r in journey.reads}
    assert reads.get(other, 0) == partners, (p.explain(), journey.why, reads)
    if partners and not journey.kept and journey.stops[-1].kind == "Filter":
        for mine, theirs in ours.items():  # the pair explained is one with the row's partner
            for a, b in ((f"{relation}.{mine}", f"{other}.{theirs}"),
                         (f"{other}.{theirs}", f"{relation}.{mine}")):
                assert f"`({a} == {b})` is false" not in journey.why, journey.why


def test_the_closest_pair_is_found_past_the_rows_shown():
    """A stop shows a row's first 10 rows; the filter's story looks at all of them (a
    customer with 15 orders, the one urgent order its 12th)."""
    c = pa.table({"ck": [1], "seg": ["B"]})
    o = pa.table({"oid": list(range(1, 16)), "ock": [1] * 15,
                  "pri": ["L"] * 11 + ["U"] + ["L"] * 3, "tot": list(range(1, 16))})
    p = plan.scan("c", c).join(plan.scan("o", o), how="cross").filter(
        "ck = ock and pri = 'U' and tot > 100")
    journey = p.explain_row("c", 0)
    assert "`(o.tot > 100)` is false (with `o.tot` = 12" in journey.why
    assert "of the 15 rows it is here, the one that passes the most" in journey.why
