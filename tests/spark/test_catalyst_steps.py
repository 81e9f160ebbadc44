"""tks.catalyst_steps against Spark itself: the stepped optimizer ends where Spark's own ends,
each step starts where the last one stopped, Spark's own per-rule effective counts match the
steps, Spark's checks pass on every step and fail with Spark's message on a broken change."""

from __future__ import annotations

import pytest

import toolkit as tk
from toolkit.render.text import display_width
from toolkit.spark import catalyst_steps, tpch
from toolkit.spark import tpch_queries as Q
from toolkit.spark.catalyst import CONNECT_NOTE, integrity_checks
from toolkit.spark.catalyst.checks import ANALYZER_CHECK_NAMES, CHECK_NAMES
from toolkit.tracing.spark_plan_text import plan_tree, strip_ids

from .test_from_connect import remote  # noqa: F401  (the Connect session over the test JVM)

pytestmark = pytest.mark.spark

# plans in which Spark mints expression ids anew on every run (a CTE used twice is inlined
# with fresh ids each time), so two runs of Spark itself differ in the same way
FRESH_IDS = {15}
EXCLUDE = "spark.sql.optimizer.excludedRules"


@pytest.fixture(scope="module")
def tpch_views(spark):
    Q.register_views(spark, tpch.tables(0.01, names=Q.TABLES))
    return spark


def _all_steps(steps):
    """Every step and sub-step, depth first."""
    stack = list(reversed(steps))
    while stack:
        s = stack.pop()
        yield s
        stack.extend(reversed(s.substeps))


def _effective_counts(steps) -> dict[str, int]:
    """Rule name -> effective calls, as Spark's tracker counts them: the optimizer's rules and
    those of the nested subquery runs, not FinishAnalysis's inner rules (it calls them itself)."""
    counts: dict[str, int] = {}
    stack = list(steps)
    while stack:
        s = stack.pop()
        if s.error is None:
            counts[s.rule] = counts.get(s.rule, 0) + 1
        if s.rule == "OptimizeSubqueries":
            stack.extend(s.substeps)
    return counts


def _assert_faithful(spark, result, query_plan, fresh_ids=False):
    expected = "equal up to expression ids" if fresh_ids else "equal"
    assert result.comparison.verdict == expected, result.comparison.statement
    optimizer = result.phase("optimizer")
    # the chain: the first step starts from Spark's optimizer input, each from the last's end
    source = str(query_plan.withCachedData().treeString())
    befores = [s.before for s in optimizer]
    afters = [source] + [s.after for s in optimizer]
    assert befores == afters[:-1]
    assert afters[-1] == result.final_plan
    # Spark's own run counts the same effective calls per rule, its nested subquery runs too
    spark_counts = {t.rule: t.effective for t in result.rule_times if t.effective}
    assert _effective_counts(optimizer) == spark_counts
    failed = [(s.rule, c.name, c.message[:200]) for s in _all_steps(result.steps)
              for c in s.checks if not c.ok]
    assert failed == []
    assert all([c.name for c in s.checks] == list(CHECK_NAMES) for s in optimizer)
    # the analyzer's steps carry the analyzer's own checks, its last one "resolved" too
    analyzer = result.phase("analyzer")
    assert all([c.name for c in s.checks][:3] == list(ANALYZER_CHECK_NAMES) for s in analyzer)
    assert [c.name for c in analyzer[-1].checks][-1] == "resolved"
    assert all(s.checks == () for s in result.phase("physical"))
    assert "no integrity check for the preparation rules" in result.checks_note
    assert result.analyzer_comparison.verdict in ("equal", "equal up to expression ids")


@pytest.mark.parametrize("n", range(1, 23))
def test_tpch_stepped_plan_is_sparks_optimized_plan(tpch_views, n):
    df = tpch_views.sql(Q.sql(n))
    result = catalyst_steps(df, physical=False)
    _assert_faithful(tpch_views, result, df._jdf.queryExecution(), n in FRESH_IDS)
    assert result.summary.startswith(f"{result.rule_calls:,} rule calls, ")
    assert result.rule_calls > 100 and 0 < len(result.steps) < result.rule_calls


def test_q21_opens_its_composite_rules_and_steps_the_physical_preparation(tpch_views):
    result = catalyst_steps(Q.sql(21))
    by_rule = {s.rule: s for s in result.steps}
    inner = [s.rule for s in by_rule["FinishAnalysis"].substeps]
    assert "EliminateSubqueryAliases" in inner
    nested = by_rule["OptimizeSubqueries"].substeps
    assert {s.scope for s in nested} == {"subquery 1", "subquery 2"}  # EXISTS and NOT EXISTS
    # each nested run is a chain of its own
    for scope in ("subquery 1", "subquery 2"):
        run = [s for s in nested if s.scope == scope]
        assert [s.before for s in run[1:]] == [s.after for s in run[:-1]]
    physical = result.phase("physical")
    assert physical and strip_ids(physical[-1].after) == strip_ids(result.executed_plan)
    assert result.physical_comparison.verdict in ("equal", "equal up to expression ids")


def test_q20_nested_runs_start_where_sparks_own_start(tpch_views):
    """OptimizeSubqueries optimizes a scalar subquery that may have the COUNT bug without its
    aggregate; the nested run shown starts there, and Spark's own nested runs count the same
    effective calls per rule (in `test_tpch_stepped_plan_is_sparks_optimized_plan`)."""
    result = catalyst_steps(Q.sql(20), physical=False)
    nested = [s for s in _all_steps(result.steps) if s.scope]
    firsts = {}
    for s in nested:
        firsts.setdefault(s.scope, s)
    starts = [plan_tree(s.before) for s in firsts.values()]
    # the correlated `0.5 * sum(l_quantity)` subquery: its run starts from the aggregate's
    # input, the columns the aggregate reads over the filtered lineitem
    scalar = [t for t in starts if t.text == "Subquery true"
              and t.children[0].name == "Project" and "l_quantity" in t.children[0].text]
    assert len(scalar) == 1
    assert all(n.name != "Aggregate" for _, n in scalar[0].walk())
    assert not any("0.5" in t.children[0].text for t in starts)


@pytest.mark.parametrize("n", [20, 21])
def test_calls_whose_outcome_is_known_are_counted_and_skipping_them_changes_nothing(
        tpch_views, n):
    fast = catalyst_steps(Q.sql(n), physical=False)
    every = catalyst_steps(Q.sql(n), physical=False, skip_known=False)

    def shape(result):
        return [(s.phase, s.batch, s.iteration, s.rule, s.scope, strip_ids(s.before),
                 strip_ids(s.after)) for s in _all_steps(result.steps)]

    assert shape(fast) == shape(every)
    assert fast.rule_calls == every.rule_calls and every.known_calls == 0
    # most calls are known without a round trip to the JVM
    assert fast.known_calls > fast.rule_calls / 3
    assert "counted without calling the rule" in fast.known_calls_note


def test_an_analyzer_change_that_reuses_an_expression_id_fails_the_analyzers_check(tpch_views):
    jvm = tpch_views._jvm
    nation = tpch_views.table("nation")._jdf.queryExecution().analyzed()
    to_seq = jvm.org.apache.spark.api.python.PythonUtils.toSeq
    key, name = nation.output().apply(0), nation.output().apply(1)
    # n_name AS x, with n_nationkey's expression id: one id, two types
    alias = jvm.org.apache.spark.sql.catalyst.expressions.Alias(
        name, "x", key.exprId(), to_seq([]), jvm.scala.Option.empty(), to_seq([]))
    broken = jvm.org.apache.spark.sql.catalyst.plans.logical.Project(to_seq([alias]), nation)
    checks = {c.name: c for c in integrity_checks(tpch_views, nation, broken, "analyzer")}
    assert set(checks) == set(ANALYZER_CHECK_NAMES)
    unique = checks["expression ids unique in each output"]
    assert not unique.ok
    assert unique.message.startswith("Multiple attributes have the same expression ID")
    assert not checks["the analyzer's plan-change validation"].ok
    assert checks["expression ids not reused"].ok
    assert integrity_checks(tpch_views, nation, broken, "physical") == ()


def _dataframe_queries(spark):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    orders, lineitem = spark.table("orders"), spark.table("lineitem")
    cached = spark.table("nation").where("n_regionkey < 3").cache()
    w = Window.partitionBy("o_custkey").orderBy(F.desc("o_totalprice"))
    plus_one = F.udf(lambda x: x + 1, "long")
    return {
        "join by key": orders.join(lineitem, orders.o_orderkey == lineitem.l_orderkey)
        .where("l_quantity > 30").select("o_orderkey", "l_partkey"),
        "groupBy/agg": lineitem.groupBy("l_returnflag").agg(F.sum("l_quantity"),
                                                            F.countDistinct("l_suppkey")),
        "window": orders.select("o_custkey", F.rank().over(w).alias("r")).where("r = 1"),
        "union": orders.select(F.col("o_custkey").alias("k"))
        .union(spark.table("customer").select("c_custkey")).distinct(),
        "cached table": cached.join(spark.table("region"), cached.n_regionkey
                                    == F.col("r_regionkey")).select("n_name", "r_name"),
        "python udf": orders.select(plus_one("o_orderkey").alias("k")).where("k > 3"),
    }


def test_dataframe_api_queries_step_to_sparks_optimized_plan(tpch_views):
    for name, df in _dataframe_queries(tpch_views).items():
        result = catalyst_steps(df, physical=False)
        try:
            _assert_faithful(tpch_views, result, df._jdf.queryExecution(),
                             fresh_ids=name == "python udf")
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None
        if name == "cached table":
            assert "InMemoryRelation" in result.final_plan


def test_an_excluded_rule_is_absent_and_the_plan_is_still_sparks(tpch_views):
    rule = "org.apache.spark.sql.catalyst.optimizer.PushDownPredicates"
    usual = catalyst_steps(Q.sql(3), physical=False)
    assert "PushDownPredicates" in {s.rule for s in usual.steps}
    tpch_views.conf.set(EXCLUDE, rule)
    try:
        df = tpch_views.sql(Q.sql(3))
        result = catalyst_steps(df, physical=False)
    finally:
        tpch_views.conf.unset(EXCLUDE)
    assert result.excluded_rules == (rule,)
    assert "PushDownPredicates" not in {s.rule for s in _all_steps(result.steps)}
    _assert_faithful(tpch_views, result, df._jdf.queryExecution())
    assert strip_ids(result.final_plan) != strip_ids(usual.final_plan)


def test_a_change_that_breaks_the_schema_fails_sparks_check_with_sparks_message(tpch_views):
    q21 = tpch_views.sql(Q.sql(21))._jdf.queryExecution().optimizedPlan()
    q3 = tpch_views.sql(Q.sql(3))._jdf.queryExecution().optimizedPlan()
    checks = {c.name: c for c in integrity_checks(tpch_views, q21, q3)}
    schema = checks["same output schema"]
    assert not schema.ok
    assert schema.message.startswith("The plan output schema has changed from STRUCT<s_name")
    assert schema.exprscope_name == "logical schema invariant under logical optimization"
    assert not checks["the optimizer's plan-change validation"].ok
    assert checks["resolved"].ok and checks["no dangling references"].ok


def test_a_rule_that_throws_is_a_failed_step_with_sparks_message(tpch_views):
    tpch_views.conf.set("spark.sql.crossJoin.enabled", "false")
    try:
        result = catalyst_steps("select n_name, r_name from nation, region")
    finally:
        tpch_views.conf.unset("spark.sql.crossJoin.enabled")
    last = result.steps[-1]
    assert last.rule == "CheckCartesianProducts" and last.failed
    assert "cartesian product" in last.error.lower()
    assert last.before == last.after
    assert result.comparison.verdict == "not compared"
    assert "threw" in result.comparison.statement


def test_on_spark_connect_it_says_why_and_shows_the_explained_plans(remote, tmp_path):  # noqa: F811
    df = remote.range(10).where("id > 3").selectExpr("id * 2 as x")
    result = catalyst_steps(df)
    assert result.note == CONNECT_NOTE and "server's JVM" in result.note
    assert result.steps == () and result.rule_calls == 0
    assert set(result.explain_plans) == {"Parsed Logical Plan", "Analyzed Logical Plan",
                                         "Optimized Logical Plan", "Physical Plan"}
    tree = plan_tree(result.final_plan)
    assert tree.name == "Project" and tree.children[0].name == "Filter"
    text = tk.to_text(result, width=80, color=False)
    assert "server's JVM" in text and "Optimized Logical Plan:" in text
    assert max(display_width(line) for line in text.splitlines()) <= 80
    page = tk.write_report(result, tmp_path / "connect.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 4 and "server&#x27;s JVM" in page


def test_plan_text_parses_into_the_tree_spark_printed(tpch_views):
    text = str(tpch_views.sql(Q.sql(21))._jdf.queryExecution().optimizedPlan().treeString())
    tree = plan_tree(text)
    nodes = [node for _, node in tree.walk()]
    assert [n.text for n in nodes] == [ln.lstrip(" :+-") for ln in text.splitlines()
                                      if ln.strip()]
    assert tree.name == "GlobalLimit"
    joins = [n for n in nodes if n.name == "Join"]
    assert joins and all(len(j.children) == 2 for j in joins)
