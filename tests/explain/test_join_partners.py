"""A row's partners at a join are exactly the rows the join pairs it with: every equal key
(a null key pairs with nothing) and the residual condition, for every join type, from
either side; checked against the plan's own join output on random data."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
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
