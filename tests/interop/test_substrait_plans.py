"""Substrait Plans: DataFusion's plans read and run as DataFusion runs them, and bad input.

DataFusion is the oracle: each SQL query becomes a Substrait Plan through
`Serde.serialize_bytes`, exprscope reads it with `plan.from_substrait`,
optimizes and runs it, and the rows must equal DataFusion's own result of the
SQL (as sorted rows where the query has no ORDER BY; ORDER BYs here order by a
key that decides every row's place, or compare sorted when they do not).
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pa_dataset
import pytest
from datafusion import SessionContext
from datafusion.substrait import Serde
from substrait import algebra_pb2, plan_pb2

import toolkit as tk
from tests.interop.rows import rows
from toolkit import plan

T = pa.table({
    "k": pa.array([i % 5 if i % 7 else None for i in range(30)], pa.int64()),
    "a": pa.array([(i * 37) % 50 - 10 if i % 5 else None for i in range(30)], pa.int64()),
    "x": pa.array([((i * 13) % 17) / 4 if i % 6 else None for i in range(30)], pa.float64()),
    "s": pa.array([["JFK", "LGA", "EWR"][i % 3] if i % 4 else None for i in range(30)]),
    "b": pa.array([None if i % 9 == 0 else i % 2 == 0 for i in range(30)]),
    "id": pa.array(range(30), pa.int64()),
})
U = pa.table({"k": pa.array([0, 1, 1, 3, None, 7], pa.int64()),
              "y": pa.array([10, None, 30, 40, 50, 60], pa.int64()),
              "name": ["zero", "one", "uno", None, "null", "seven"]})

QUERIES = [
    # filters
    "select * from t where a > 5",
    "select k, a from t where a > 5 and x < 3 or s is null",
    "select * from t where not (a > 5) and k is not null",
    "select * from t where b",
    "select * from t where k in (1, 3)",
    "select * from t where k not in (1, 3)",
    "select * from t where a between 0 and 20",
    "select * from t where s = 'JFK' or x >= 2.5",
    # projections: arithmetic, case, casts, coalesce
    "select k, a * 2 + 1 as b, x / 2 as h, a - k as d from t",
    "select abs(a) as m, -a as neg from t",
    "select k, case when a > 10 then 'big' when a > 0 then 'small' else 'neg' end as c from t",
    "select cast(a as double) / 4 as q, cast(k as varchar) as ks from t",
    "select coalesce(a, 0) as a0, coalesce(s, 'none') as s0 from t",
    "select a % 3 as m, a % -4 as n from t",
    "select * from t where s like 'J%' or s not ilike 'e%'",
    "select k, a + 1 as a1 from t where b",
    # aggregates
    ("select k, sum(a) as sa, count(*) as n, count(s) as c, min(x) as mn, max(s) as mx, "
     "avg(a) as m from t group by k"),
    "select count(*) as n, sum(x) as sx, avg(x) as ax from t",
    "select s, k, count(*) as n from t group by s, k",
    "select s, sum(a) as total from t where a is not null group by s",
    "select distinct k from t",
    # order, limit, offset
    "select * from t order by a desc nulls first, id",
    "select * from t order by a nulls last, id desc limit 5",
    "select * from t order by x, id limit 4 offset 3",
    "select s, sum(a) as total from t group by s order by s nulls first",
    "select k, a from t where a > 5 order by id limit 3",
    # joins
    "select t.k, a, y from t join u on t.k = u.k",
    "select t.id, a, y, name from t left join u on t.k = u.k",
    "select t.k, u.y from t join u on t.k = u.k and t.a = u.y",
    "select name, count(*) as n, sum(a) as sa from t join u on t.k = u.k group by name",
    "select t.id, y from t right join u on t.k = u.k",
    "select t.id, u.y from t full join u on t.k = u.k",
    "select t.id, y from t join u on t.k = u.k and t.a < u.y",
    "select t.id, y from t left join u on t.k = u.k and t.a < u.y",
    "select t.id, u.y from t, u where t.id < 3",
    "select t.id, u.k as uk from t join u on t.k < u.k",
    # windows (DataFusion writes them as a project's window_function expressions)
    "select id, row_number() over (partition by k order by a, id) as rn from t",
    ("select id, sum(a) over (order by id rows between 1 preceding and 1 following) as s, "
     "lag(x, 2) over (order by id) as l, rank() over (order by k) + 1 as r1 from t"),
    ("select id, lead(a, 1, -1) over (partition by k order by id) as l, "
     "dense_rank() over (order by a desc nulls first) as d, "
     "max(x) over (order by k range between 1 preceding and 1 following) as m, "
     "avg(a) over (partition by s) as av, count(*) over (order by a) as c from t"),
    # unions
    "select k from t union all select k from u",
    "select k from t union select k from u",
]


@pytest.fixture(scope="module")
def ctx() -> SessionContext:
    ctx = SessionContext()
    ctx.register_record_batches("t", [T.to_batches()])
    ctx.register_record_batches("u", [U.to_batches()])
    return ctx


@pytest.mark.parametrize("sql", QUERIES)
def test_datafusion_plans_run_to_datafusion_rows(ctx, sql):
    data = Serde.serialize_bytes(sql, ctx)
    p = plan.from_substrait(data, {"t": T, "u": U})
    got = plan.create_physical_plan(plan.optimize(p)).collect()
    want = ctx.sql(sql).to_arrow_table()
    assert got.schema.names == want.schema.names
    ordered = "order by" in re.sub(r"\([^()]*\)", "", sql)  # a window's ORDER BY orders no rows
    assert rows(got, ordered) == rows(want, ordered), p.explain()


class _Checks(tk.Observer):
    def __init__(self):
        self.passed: set[str] = set()

    def on_invariant(self, event):
        if event.passed:
            self.passed.add(event.name)


def test_a_read_plan_explains_with_its_invariants_and_traces(ctx):
    data = Serde.serialize_bytes("select k, sum(a) as sa from t where a > 0 group by k", ctx)
    checks = _Checks()
    with tk.observing(checks):
        p = plan.from_substrait(memoryview(data), {"t": T})
        plan.create_physical_plan(plan.optimize(p)).collect()
    assert p.schema.names == ["k", "sa"]
    assert "Aggregate: groupBy=[t.k], aggr=[sum(t.a)" in p.explain()
    assert "Filter: (t.a > 0)" in p.explain()
    assert "unique (relation, name)" in checks.passed
    with tk.trace() as t:
        plan.optimize(p)
    assert t.steps


def test_what_datafusion_writes_reads_from_a_message_and_a_dataset(ctx):
    message = plan_pb2.Plan()
    message.ParseFromString(Serde.serialize_bytes("select id from t where a > 30", ctx))
    got = plan.create_physical_plan(plan.from_substrait(message, {"t": pa_dataset.dataset(T)}))
    assert sorted(got.collect().column("id").to_pylist()) == sorted(
        ctx.sql("select id from t where a > 30").to_arrow_table().column("id").to_pylist())


# -- round trips --------------------------------------------------------------------------


def _scans():
    t, u = plan.scan("t", T), plan.scan("u", U)
    return t, u, {"t": t.source, "u": u.source}


def test_what_to_substrait_writes_reads_back_equal():
    t, u, sources = _scans()
    plans = [
        t,
        t.with_projection(["s", "k"]),
        t.filter(tk.and_(tk.field("a") > 1, tk.or_(tk.is_null(tk.field("s")),
                                                    tk.field("s") == "JFK"))),
        t.project([tk.field("k") + 1, "s", tk.cast(tk.field("a"), pa.float64())],
                  names=["k1", "s", "af"]),
        t.aggregate(["k", "s"], [("sum", "a", "sa"), ("count", None, "n"), ("mean", "x", "m"),
                                 ("min", "s", "lo"), ("max", "x", "hi"), ("count", "b", "nb")]),
        t.aggregate([], [("count", None, "n")]),
        t.sort([("a", "descending", "nulls_first"), ("id", "ascending")]).limit(4, 2),
        t.join(u, on=[("k", "k")], how="left").filter(tk.field("y") > 10),
        t.join(u, on=[("k", "k"), ("a", "y")]).project(["t.k", "name"]),
    ]
    for p in plans:
        back = plan.from_substrait(p.to_substrait(), sources)
        assert back.equals(p), (p.explain(), back.explain())


def test_an_offset_without_a_limit_round_trips():
    t, _, sources = _scans()
    p = t.sort([("id", "descending")]).limit(None, 27)
    assert "fetch=all" in p.explain()
    back = plan.from_substrait(p.to_substrait(), sources)
    assert back.equals(p), (p.explain(), back.explain())
    assert plan.create_physical_plan(back).collect().column("id").to_pylist() == [2, 1, 0]


def test_limits_run_in_acero_through_the_fields_it_reads():
    import pyarrow.substrait as pa_substrait

    t, _, _ = _scans()
    p = t.sort([("id", "descending")]).limit(3, 2).project(["id"])
    got = pa_substrait.run_query(p.to_substrait(), table_provider=lambda names, schema: T)
    assert got.read_all().column("id").to_pylist() == [27, 26, 25]


def test_what_has_no_substrait_form_is_refused_by_name():
    t, _, _ = _scans()
    empty = plan.EmptyRelation(t.schema, "always false")
    with pytest.raises(tk.SubstraitError, match="EmptyRelation.*no Substrait rel"):
        empty.to_substrait()
    choose = t.project([tk.call("choose", [tk.literal(0), tk.field("a"), tk.field("k")])],
                       names=["c"])
    with pytest.raises(tk.SubstraitError, match=r"in Projection.*choose has no Substrait form"):
        choose.to_substrait()
    durations = plan.scan("w", pa.table({"n": pa.array([1], pa.duration("s"))}))
    with pytest.raises(tk.SubstraitError, match="TableScan: w.*duration"):
        durations.to_substrait()
    deep = t
    for i in range(60):
        deep = deep.filter(tk.field("a") > i)
    with pytest.raises(tk.SubstraitError, match="61 nodes deep"):
        deep.to_substrait()


# -- bad input ----------------------------------------------------------------------------


def _written(p) -> plan_pb2.Plan:
    message = plan_pb2.Plan()
    message.ParseFromString(p.to_substrait())
    return message


@pytest.mark.parametrize("data, where", [
    (b"", "empty"),
    (b"\x0a\x05\x12\x03", "not a Substrait Plan"),
    (bytes(range(256)) * 3, "not a Substrait Plan"),
    ("select 1", "takes the message's bytes"),
])
def test_bytes_that_are_no_plan_are_refused(data, where):
    with pytest.raises(tk.SubstraitError, match=where):
        plan.from_substrait(data, {"t": T})


def test_truncated_plans_are_refused():
    data = plan.scan("t", T).filter(tk.field("a") > 1).to_substrait()
    for cut in (1, len(data) // 3, len(data) - 1):
        with pytest.raises(tk.SubstraitError):
            plan.from_substrait(data[:cut], {"t": T})


def test_a_table_not_given_is_named_with_what_was_given():
    data = plan.scan("t", T).to_substrait()
    with pytest.raises(tk.SubstraitError, match=r"table 't'.*holds 'u'.*relations\[0\]"
                                                r"\.root\.input\.read\.named_table"):
        plan.from_substrait(data, {"u": U})


def test_a_table_whose_schema_differs_names_the_field():
    data = plan.scan("t", T).to_substrait()
    other = T.set_column(1, "a", T.column("a").cast(pa.float64()))
    with pytest.raises(tk.SubstraitError, match=r"column 'a' is double, but the read's "
                                                r"base_schema says int64 \(at relations"):
        plan.from_substrait(data, {"t": other})
    with pytest.raises(tk.SubstraitError, match="has no column 'x'"):
        plan.from_substrait(data, {"t": T.drop_columns(["x"])})


def test_a_reference_past_the_input_names_where():
    message = _written(plan.scan("t", T).filter(tk.field("a") > 1))
    condition = message.relations[0].root.input.filter.condition
    condition.scalar_function.arguments[0].value.selection.direct_reference.struct_field.field = 9
    with pytest.raises(tk.SubstraitError, match=r"field 9 is past the 6 fields.*relations\[0\]"
                                                r"\.root\.input\.filter\.condition"):
        plan.from_substrait(message.SerializeToString(), {"t": T})


def test_an_emit_past_the_columns_names_where():
    message = _written(plan.scan("t", T).project(["a"]))
    message.relations[0].root.input.project.common.emit.output_mapping[0] = 40
    with pytest.raises(tk.SubstraitError, match=r"output_mapping\[0\] is 40.*project\.common"):
        plan.from_substrait(message, {"t": T})


def test_unsupported_rels_are_refused_by_kind_and_place(ctx):
    intersect = plan_pb2.Plan()
    intersect.ParseFromString(Serde.serialize_bytes(
        "select k from t union all select k from u", ctx))
    found = [intersect.relations[0].root.input]
    while found[-1].WhichOneof("rel_type") != "set":
        rel = found[-1]
        found.append(getattr(rel, rel.WhichOneof("rel_type")).input)
    found[-1].set.op = algebra_pb2.SetRel.SET_OP_INTERSECTION_PRIMARY
    with pytest.raises(tk.SubstraitError, match=r"a SET_OP_INTERSECTION\w* set rel has no "
                                                r"exprscope form.*UNION ALL.*\.set\.op"):
        plan.from_substrait(intersect, {"t": T, "u": U})
    message = _written(plan.scan("t", T))
    read = algebra_pb2.Rel()
    read.CopyFrom(message.relations[0].root.input)
    cross = message.relations[0].root.input
    cross.Clear()
    cross.cross.left.CopyFrom(read)
    cross.cross.right.CopyFrom(read)
    with pytest.raises(tk.SubstraitError, match=r"both sides of the cross product have "
                                                r"columns t.k, t.a.*root\.input\.cross"):
        plan.from_substrait(message, {"t": T})
    single = _written(plan.scan("t", T).join(plan.scan("u", U), [("k", "k")]))
    single.relations[0].root.input.join.type = algebra_pb2.JoinRel.JOIN_TYPE_LEFT_SINGLE
    with pytest.raises(tk.SubstraitError, match=r"a JOIN_TYPE_LEFT_SINGLE join has no "
                                                r"exprscope form.*\.join\.type"):
        plan.from_substrait(single, {"t": T, "u": U})
    left = _written(plan.scan("t", T).join(plan.scan("u", U), [("k", "k")], "left"))
    left.relations[0].root.input.join.ClearField("expression")
    with pytest.raises(tk.SubstraitError, match="a left join with no condition"):
        plan.from_substrait(left, {"t": T, "u": U})


@pytest.mark.parametrize("how", ["inner", "left", "right", "full", "semi", "anti"])
@pytest.mark.parametrize("residual", [False, True])
def test_every_join_kind_writes_and_reads_back_equal(how, residual):
    """Keys and a residual condition travel in the join rel's one expression; the reader
    splits them again. Acero runs the written equi-joins to exprscope's rows (it takes
    only key equalities, and its semi and anti joins misname their output)."""
    import pyarrow.substrait as pa_substrait

    t, u, sources = _scans()
    condition = (tk.field("t.a") < tk.field("u.y")) if residual else None
    p = t.join(u, [("k", "k")], how, condition=condition)
    back = plan.from_substrait(p.to_substrait(), sources)
    assert back.equals(p), (p.explain(), back.explain())
    ours = plan.create_physical_plan(p).collect()
    if residual or how in ("semi", "anti"):
        return
    acero = pa_substrait.run_query(
        p.to_substrait(), table_provider=lambda names, schema: {"t": T, "u": U}[names[0]])
    assert rows(acero.read_all(), False) == rows(ours, False)


def test_windows_write_as_window_rels_and_read_back_equal():
    """One window rel per run of functions over the same keys; read back as one Window
    node with the same functions, frames, offsets and defaults, and the same rows."""
    t, _, sources = _scans()
    by_k = {"partition_by": ["k"], "order_by": ["a", "id"]}
    specs = [{"func": "row_number", **by_k}, {"func": "rank", **by_k},
             {"func": "lag", "arg": "x", "offset": 2, "default": 0.5, **by_k},
             {"func": "lead", "arg": "a", **by_k},
             {"func": "sum", "arg": "x", "order_by": [("a", "descending", "nulls_first")],
              "frame": ("range", -3, 2)},
             {"func": "count", "partition_by": ["s"]}, {"func": "count", "arg": "s"},
             {"func": "avg", "arg": "a", "order_by": ["id"], "frame": ("rows", -1, 0)},
             {"func": "min", "arg": "s", "order_by": ["id"], "frame": ("rows", None, 2)},
             {"func": "max", "arg": "x", "order_by": ["id"]},
             {"func": "dense_rank", **by_k}]
    p = t.window(specs, [f"w{i}" for i in range(len(specs))])
    message = _written(p)
    windows, rel = 0, message.relations[0].root.input
    while rel.WhichOneof("rel_type") == "window":
        windows, rel = windows + 1, rel.window.input
    assert windows == 6  # runs of equal keys; the two runs over `by_k` are apart
    back = plan.from_substrait(p.to_substrait(), sources)
    assert back.equals(p), (p.explain(), back.explain())
    assert plan.create_physical_plan(back).collect().equals(
        plan.create_physical_plan(p).collect())
    above = t.window([{"func": "row_number", "order_by": ["id"]}], ["rn"]).window(
        [{"func": "lag", "arg": "rn", "order_by": ["id"]}], ["prev"])
    back = plan.from_substrait(above.to_substrait(), sources)  # reads the first window's
    assert back.equals(above)                                   # column: two nodes stay
    fractional = t.window([{"func": "sum", "arg": "x", "order_by": ["x"],
                            "frame": ("range", -0.5, 0)}], ["s"])
    with pytest.raises(tk.SubstraitError, match="not a whole number"):
        fractional.to_substrait()


def test_cross_joins_unions_and_subqueries_write_and_read_back():
    t, u, sources = _scans()
    keys_t, keys_u = t.project(["k"]), u.project(["k"])
    for p in (t.join(u, how="cross"), keys_t.union(keys_u), keys_t.union(keys_u).distinct(),
              keys_t.union(keys_u).union(keys_t)):
        back = plan.from_substrait(p.to_substrait(), sources)
        assert back.equals(p), (p.explain(), back.explain())
    # a subquery is an expression in Substrait: it is written as the join it runs as
    exists = plan.SubqueryFilter(t, u, "exists", negated=True, on=[("k", "k")])
    back = plan.from_substrait(exists.to_substrait(), sources)
    assert back.equals(exists.as_join)
    assert rows(plan.create_physical_plan(back).collect(), False) == rows(
        plan.create_physical_plan(exists).collect(), False)


def test_what_exprscope_cannot_compute_is_refused_clearly(ctx):
    cases = {
        "select * from t order by id offset 3": None,  # every row after the offset
        "select k, count(distinct a) as n from t group by k": None,
    }
    for sql, message in cases.items():
        data = Serde.serialize_bytes(sql, ctx)
        if message is None:  # DataFusion writes a distinct count as two aggregates
            p = plan.from_substrait(data, {"t": T, "u": U})
            got = plan.create_physical_plan(p).collect()
            assert rows(got) == rows(ctx.sql(sql).to_arrow_table())
            continue
        with pytest.raises(tk.SubstraitError, match=message):
            plan.from_substrait(data, {"t": T, "u": U})


def test_an_aggregate_function_exprscope_lacks_is_named(ctx):
    data = Serde.serialize_bytes("select stddev(a) as sd from t", ctx)
    with pytest.raises(tk.SubstraitError, match=r"aggregate function stddev.*measures\[0\]"):
        plan.from_substrait(data, {"t": T})


def test_a_reads_filter_sees_every_base_column_and_its_mask_picks_after():
    written = _written(plan.scan("t", T).filter(tk.field("a") > 30))
    message = _written(plan.scan("t", T))
    read = message.relations[0].root.input.read
    read.filter.CopyFrom(written.relations[0].root.input.filter.condition)
    read.best_effort_filter.CopyFrom(read.filter)
    message.extensions.extend(written.extensions)
    message.extension_urns.extend(written.extension_urns)
    read.projection.select.struct_items.add().field = 5  # id
    del message.relations[0].root.names[:]
    message.relations[0].root.names.append("row")
    p = plan.from_substrait(message, {"t": T})
    assert p.schema.names == ["row"]
    got = plan.create_physical_plan(p).collect().column("row").to_pylist()
    assert got == T.filter(pc.greater(T.column("a"), 30)).column("id").to_pylist()
