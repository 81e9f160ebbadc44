"""Float join and group keys: -0.0 and 0.0 are one key (as Arrow's `equal` and every SQL
engine say), every NaN is one group, and a NaN join key matches nothing, so a join gives
exactly the rows of its equality written as a filter over the cross product."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan

OTHER_NAN = np.frombuffer(np.array([0x7FF8000000000001], np.uint64).tobytes(), np.float64)[0]
keys = st.lists(st.sampled_from([0.0, -0.0, math.nan, OTHER_NAN, 1.5, -1.5, None]),
                max_size=12)


def _rows(table: pa.Table) -> list:
    return sorted((tuple(repr(v) for v in r.values()) for r in table.to_pylist()))


@settings(max_examples=100, deadline=None)
@given(left=keys, right=keys, how=st.sampled_from(["inner", "left", "right", "full"]))
def test_a_float_key_join_is_its_equality_over_the_cross_product(left, right, how):
    a = plan.scan("a", pa.table({"k": pa.array(left, pa.float64()),
                                 "i": pa.array(range(len(left)), pa.int64())}))
    b = plan.scan("b", pa.table({"k": pa.array(right, pa.float64()),
                                 "j": pa.array(range(len(right)), pa.int64())}))
    joined = plan.create_physical_plan(a.join(b, [("k", "k")], how)).collect()
    if how == "inner":
        crossed = a.join(b, how="cross").filter(tk.field("a.k") == tk.field("b.k"))
        assert _rows(joined) == _rows(plan.create_physical_plan(crossed).collect())
    pairs = {(i, j) for i, j in zip(joined.column("i").to_pylist(),
                                    joined.column("j").to_pylist())
             if i is not None and j is not None}
    expected = {(i, j) for i, x in enumerate(left) for j, y in enumerate(right)
                if x is not None and y is not None and x == y}  # Python's == is IEEE's
    assert pairs == expected


@settings(max_examples=100, deadline=None)
@given(values=keys)
def test_a_float_group_by_has_one_zero_group_and_one_nan_group_as_duckdb(values):
    table = pa.table({"k": pa.array(values, pa.float64())})
    con = duckdb.connect()
    con.register("tbl", table)
    got = plan.create_physical_plan(
        plan.scan("t", table).aggregate(["k"], [("count", None, "n")])).collect()
    want = con.sql("select k, count(*) as n from tbl group by k").to_arrow_table()
    # which zero names the zero group is each engine's choice (DuckDB: the first seen)
    assert _rows(got) == sorted(tuple(v.replace("-0.0", "0.0") for v in r)
                                for r in _rows(want.rename_columns(["k", "n"])))


def test_minus_zero_joins_zero_and_keeps_its_own_value():
    a = plan.scan("a", pa.table({"k": [-0.0, 2.0], "i": [1, 2]}))
    b = plan.scan("b", pa.table({"k": [0.0, math.nan], "j": [10, 20]}))
    out = plan.create_physical_plan(a.join(b, [("k", "k")], "left")).collect()
    assert list(zip(out.column("i").to_pylist(), out.column("j").to_pylist())) == [
        (1, 10), (2, None)]
    assert math.copysign(1, out.column(0)[0].as_py()) == -1  # the left row's own -0.0


# A join that compares float keys as Spark does (float_keys="normalized", what the Spark
# import sets): NaN matches NaN, -0.0 matches 0.0; DuckDB's joins do the same.

JOIN_KINDS = ["inner", "left", "right", "full", "semi", "anti"]


def _scans(left, right):
    a = pa.table({"k": pa.array(left, pa.float64()), "i": pa.array(range(len(left)), pa.int64())})
    b = pa.table({"k": pa.array(right, pa.float64()),
                  "j": pa.array(range(len(right)), pa.int64())})
    return a, b, plan.scan("a", a), plan.scan("b", b)


def _duckdb_join(a, b, how: str) -> pa.Table:
    con = duckdb.connect()
    con.register("a", a)
    con.register("b", b)
    if how in ("semi", "anti"):
        word = "" if how == "semi" else "NOT "
        sql = f"SELECT a.k, a.i FROM a WHERE {word}EXISTS (SELECT 1 FROM b WHERE b.k = a.k)"
    else:
        sql = f"SELECT a.k, a.i, b.k, b.j FROM a {how.upper()} JOIN b ON a.k = b.k"
    return con.sql(sql).to_arrow_table()


def _index_rows(table: pa.Table) -> list:
    """The (i, j) row numbers of a join's rows (i alone for semi and anti joins)."""
    names = [n for n in table.column_names if n in ("i", "j")]
    return sorted(tuple(-1 if v is None else v for v in row)
                  for row in zip(*(table.column(n).to_pylist() for n in names)))


@settings(max_examples=100, deadline=None)
@given(left=keys, right=keys, how=st.sampled_from(JOIN_KINDS))
def test_a_normalized_float_key_join_pairs_nan_with_nan_as_duckdb(left, right, how):
    a, b, pa_, pb = _scans(left, right)
    joined = pa_.join(pb, [("k", "k")], how, float_keys="normalized")
    got = plan.create_physical_plan(joined).collect()
    want = _duckdb_join(a, b, how).rename_columns(
        ["k", "i"] if how in ("semi", "anti") else ["k", "i", "k2", "j"])
    assert _index_rows(got) == _index_rows(want)
    optimized = plan.create_physical_plan(plan.optimize(joined)).collect()
    assert _index_rows(optimized) == _index_rows(want)


@settings(max_examples=100, deadline=None)
@given(left=keys, right=keys, how=st.sampled_from(["semi", "anti"]))
def test_exprscope_own_semi_and_anti_joins_keep_ieee_nan_matches_nothing(left, right, how):
    """The default stays IEEE's for every kind: a NaN left row has no partner, so a semi
    join drops it and an anti join keeps it."""
    _, _, pa_, pb = _scans(left, right)
    got = plan.create_physical_plan(pa_.join(pb, [("k", "k")], how)).collect()
    found = {i for i, x in enumerate(left)
             if x is not None and any(y is not None and x == y for y in right)}
    want = found if how == "semi" else set(range(len(left))) - found
    assert set(got.column("i").to_pylist()) == want


def test_the_plan_text_shows_normalized_float_keys_and_hides_the_default():
    _, _, pa_, pb = _scans([math.nan], [math.nan])
    ieee = pa_.join(pb, [("k", "k")], "semi")
    spark_like = pa_.join(pb, [("k", "k")], "semi", float_keys="normalized")
    assert "float_keys" not in ieee.explain()
    assert spark_like.explain().splitlines()[0] == \
        "LeftSemi Join: a.k = b.k, float_keys=normalized"
    assert plan.create_physical_plan(spark_like).explain().splitlines()[0].endswith(
        ", float_keys=normalized")
    assert not ieee.equals(spark_like)
    inner = pa_.join(pb, [("k", "k")], float_keys="normalized")
    assert type(inner).__name__ == "Join" and "float_keys=normalized" in inner.explain()
    with pytest.raises(plan.PlanError, match=r"float_keys must be one of \['ieee', "
                                             r"'normalized'\], got 'spark'"):
        pa_.join(pb, [("k", "k")], float_keys="spark")


def test_the_optimizer_keeps_float_keys_through_every_rule():
    """A filter over a cross join of a normalized join and a third table: the rules
    rebuild the joins (eliminate_cross_join, push_down_filter, prune_columns) and must
    neither drop the flag nor turn the NaN key into an IEEE equality."""
    _, _, pa_, pb = _scans([math.nan, 0.0, -0.0, 1.0, None], [math.nan, 0.0, 2.0])
    c = plan.scan("c", pa.table({"i2": pa.array([0, 1, 2, 3], pa.int64()),
                                 "tag": ["w", "x", "y", "z"]}))
    q = (pa_.join(pb, [("k", "k")], float_keys="normalized")
         .join(c, how="cross")
         .filter((tk.field("a.i") == tk.field("c.i2")) & (tk.field("b.j") >= 0))
         .project(["a.i", "b.j", "c.tag"]))
    before = plan.create_physical_plan(q, optimize=False).collect()
    optimized = plan.optimize(q)
    after = plan.create_physical_plan(optimized).collect()
    assert _rows(before) == _rows(after)
    assert sorted(before.column("i").to_pylist()) == [0, 1, 2]  # NaN, 0.0, -0.0
    assert "float_keys=normalized" in optimized.explain()


def test_a_trace_saved_and_loaded_still_shows_normalized_float_keys():
    _, _, pa_, pb = _scans([math.nan, 1.0], [math.nan])
    q = pa_.join(pb, [("k", "k")], "left", float_keys="normalized").filter(tk.field("a.i") >= 0)
    with tk.trace() as t:
        plan.optimize(q)
    loaded = tk.Trace.from_json(t.to_json())
    text = tk.to_text(loaded, width=200)
    assert "Left Join: a.k = b.k, float_keys=normalized" in text


@pytest.mark.parametrize("how", JOIN_KINDS)
def test_substrait_keeps_how_float_keys_compare(how):
    """A normalized float key is written `l = r OR (is_nan(l) AND is_nan(r))` (Substrait's
    `equal` is IEEE's) and read back as a normalized key; an IEEE one stays `equal`."""
    a, b, pa_, pb = _scans([math.nan, 0.0, -0.0, None, 1.0], [math.nan, 0.0, None])
    for mode in ("ieee", "normalized"):
        joined = pa_.join(pb, [("k", "k")], how, float_keys=mode)
        back = plan.from_substrait(joined.to_substrait(), {"a": a, "b": b})
        assert back.explain().splitlines()[0] == joined.explain().splitlines()[0]
        assert _rows(plan.create_physical_plan(back).collect()) == \
            _rows(plan.create_physical_plan(joined).collect())


def test_a_rows_journey_meets_its_nan_partner_only_in_a_normalized_join():
    """The NaN row's stop at the join names its partners as the join pairs them: the
    right side's NaN rows (two, one with other payload bits) in a normalized join, none
    in an IEEE one (a left join keeps it, null-extended)."""
    _, _, pa_, pb = _scans([math.nan, 1.0], [OTHER_NAN, 1.0, math.nan])
    for mode, partners in (("ieee", 0), ("normalized", 2)):
        journey = pa_.join(pb, [("k", "k")], "left", float_keys=mode).explain_row("a", 0)
        (stop,) = [s for s in journey.stops if s.partners is not None]
        assert journey.kept and stop.partners.found == partners, (mode, stop.note)
        assert stop.note == ("joined with 2 partner rows" if partners else
                             "no partner (its key a.k is NaN, which equals nothing in this "
                             "join (IEEE; a join imported from Spark pairs NaN with NaN)); "
                             "kept by the left join, null-extended"), stop.note
    dropped = pa_.join(pb, [("k", "k")]).explain_row("a", 0)
    assert not dropped.kept and "its key a.k is NaN, which equals nothing" in dropped.why


def test_sparks_float_equality_over_a_cross_join_becomes_a_normalized_key():
    """`a.k = b.k OR (is_nan(a.k) AND is_nan(b.k))` (Spark's `=` of floats as the Spark
    import reads it) in a filter over a cross join becomes a key of a join that pairs
    NaN with NaN; a plain IEEE equality of floats beside it stays a condition."""
    from toolkit.plan.float_keys import nan_equal

    _, _, pa_, pb = _scans([math.nan, 0.0, -0.0, 1.0, None], [math.nan, 0.0, 2.0, math.nan])
    nan_key = nan_equal(tk.field("a.k"), tk.field("b.k"))
    ieee_too = nan_key & (tk.field("a.k") == tk.field("b.k"))
    for predicate, nan_rows in ((nan_key, 2), (ieee_too, 0)):
        q = pa_.join(pb, how="cross").filter(predicate)
        optimized = plan.optimize(q)
        text = optimized.explain()
        assert "Inner Join: a.k = b.k, float_keys=normalized" in text and "Cross" not in text
        assert ("Filter: (a.k == b.k)" in text) is (predicate is ieee_too)
        got = plan.create_physical_plan(optimized).collect()
        assert _rows(got) == _rows(plan.create_physical_plan(q, optimize=False).collect())
        assert sum(math.isnan(k) for k in got.column(0).to_pylist()) == nan_rows

