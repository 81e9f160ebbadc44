"""`catalyst_steps(query)`: Spark's own analyzer, optimizer and physical preparation, rule by rule.

The analyzer is stepped from the parsed plan (faithful up to expression ids: it
resolves relations with fresh ones); the optimizer from
`queryExecution().withCachedData()`, the very input Spark's optimizer gets (the
cache substituted, the plan normalized), with the batches as Spark lists them
after `spark.sql.optimizer.excludedRules`; the physical preparation rules from
`sparkPlan`, folded as `QueryExecution.prepareForExecution` folds them. Spark's
own run of the optimizer on the same input gives the per-rule times and the
yardstick for the stepping's cost, and `optimizedPlan` the plan the stepped one
is compared with.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ...errors import UsageError
from ...tracing.catalyst_steps import CatalystStep, CatalystSteps, PlanComparison, RuleTime
from ...tracing.spark_plan_text import strip_ids
from ..active_session import session as active_session
from ..errors import SparkArgumentError
from ..reading.from_connect import is_connect
from .connect import connect_steps
from .jvm import JVM_ERRORS, java_message, seq, short_rule_name
from .stepping import Stepper, batches_of

__all__ = ["catalyst_steps", "compare_plans"]

MAX_QUERY_CHARS = 1_000_000


def catalyst_steps(query, spark=None, *, checks: bool = True,
                   physical: bool = True) -> CatalystSteps:
    """Spark's planning of `query` (a DataFrame, or SQL text over the session's views),
    one step per rule call that changed the plan.

    `checks`: run Spark's integrity checks on every optimizer step (about 6 ms a step);
    `physical`: step the physical preparation rules too."""
    if is_connect(query) or (spark is not None and is_connect(spark)):
        return connect_steps(query, spark)
    df, text = _dataframe(query, spark)
    session = df.sparkSession
    jvm = session._jvm
    js = session._jsparkSession
    # rules read the conf of the JVM thread's active session: make it this one
    type(session)._get_j_spark_session_class(jvm).setActiveSession(js)
    state = js.sessionState()
    qe = df._jdf.queryExecution()
    started = time.perf_counter()

    analyzer = Stepper(session, "analyzer", checks=False)
    analyzed_run = analyzer.run(qe.logical().clone(), batches_of(state.analyzer()))
    analyzer_comparison = compare_plans(analyzed_run.plan, qe.analyzed())

    optimizer = state.optimizer()
    batches = batches_of(optimizer)
    source = qe.withCachedData()
    stepper = Stepper(session, "optimizer", checks=checks)
    optimizer_started = time.perf_counter()
    run = stepper.run(source.clone(), batches)
    optimizer_seconds = time.perf_counter() - optimizer_started

    spark_seconds, rule_times, optimized, optimized_text, comparison = _spark_run(
        jvm, optimizer, source, qe, run)
    prepared = PhysicalRun((), 0, "", None)
    if physical and not run.threw and optimized is not None:
        prepared = _physical(qe)
    seconds = time.perf_counter() - started
    return CatalystSteps(
        query=text,
        steps=analyzed_run.steps + run.steps + prepared.steps,
        rule_calls=analyzer.calls + stepper.calls + prepared.calls,
        final_plan=str(run.plan.treeString()),
        optimized_plan=optimized_text,
        comparison=comparison,
        rule_times=rule_times,
        excluded_rules=_excluded(session),
        analyzed_plan=str(qe.analyzed().treeString()),
        analyzer_comparison=analyzer_comparison,
        executed_plan=prepared.executed_plan,
        physical_comparison=prepared.comparison,
        seconds=seconds,
        optimizer_seconds=optimizer_seconds,
        spark_seconds=spark_seconds,
        spark_version=str(session.version),
    )


def _dataframe(query, spark):
    """(DataFrame, its text for the record) for a DataFrame or SQL text."""
    if isinstance(query, str):
        if len(query) > MAX_QUERY_CHARS:
            raise SparkArgumentError(f"the SQL text has {len(query):,} characters, more than "
                                     f"{MAX_QUERY_CHARS:,}")
        if spark is None:
            spark = active_session()
        try:
            return spark.sql(query), query
        except JVM_ERRORS as exc:
            raise SparkArgumentError(f"Spark cannot read the SQL text: {java_message(exc)}") \
                from None
    if hasattr(query, "_jdf") and hasattr(query, "sparkSession"):
        return query, f"DataFrame[{', '.join(query.columns)}]"
    raise UsageError(f"catalyst_steps takes a Spark DataFrame or SQL text, not a "
                     f"{type(query).__name__}")


def _spark_run(jvm, optimizer, source, qe, run):
    """Spark's own optimizer on the same input (timed, tracked), and `optimizedPlan`
    compared with the stepped plan."""
    tracker = jvm.org.apache.spark.sql.catalyst.QueryPlanningTracker(jvm.scala.Option.empty())
    clone = source.clone()
    start = time.perf_counter()
    try:
        optimizer.executeAndTrack(clone, tracker)
        threw = None
    except JVM_ERRORS as exc:
        threw = java_message(exc)
    spark_seconds = time.perf_counter() - start
    times = []
    it = tracker.rules().iterator()
    while it.hasNext():
        entry = it.next()
        summary = entry._2()
        times.append(RuleTime(short_rule_name(str(entry._1())), int(summary.numInvocations()),
                              int(summary.numEffectiveInvocations()),
                              summary.totalTimeNs() / 1e9))
    times.sort(key=lambda t: -t.seconds)
    if threw is not None:
        return (spark_seconds, tuple(times), None, "",
                PlanComparison("not compared", f"Spark's optimizer threw too: {threw}"))
    optimized = qe.optimizedPlan()
    text = str(optimized.treeString())
    if run.threw:
        return (spark_seconds, tuple(times), optimized, text,
                PlanComparison("different", "a rule threw while stepping, but Spark's own "
                               "run did not"))
    return spark_seconds, tuple(times), optimized, text, compare_plans(run.plan, optimized)


def compare_plans(stepped, optimized) -> PlanComparison:
    """Equal (fastEquals), equal up to expression ids, or different and where."""
    if stepped.fastEquals(optimized):
        return PlanComparison("equal")
    ours, theirs = str(stepped.treeString()), str(optimized.treeString())
    if strip_ids(ours) == strip_ids(theirs):
        return PlanComparison("equal up to expression ids")
    return PlanComparison("different", first_difference(ours, theirs))


def first_difference(ours: str, theirs: str) -> str:
    a, b = ours.splitlines(), theirs.splitlines()
    for i, (x, y) in enumerate(zip(a, b), 1):
        if strip_ids(x) != strip_ids(y):
            return f"line {i}: stepped {x.strip()[:200]!r}, Spark {y.strip()[:200]!r}"
    return f"the stepped plan has {len(a)} lines, Spark's {len(b)}"


@dataclass(frozen=True)
class PhysicalRun:
    """The physical preparation stepped: its steps, its rule calls, Spark's executedPlan."""

    steps: tuple[CatalystStep, ...]
    calls: int
    executed_plan: str
    comparison: PlanComparison | None


def _physical(qe) -> PhysicalRun:
    """The preparation rules folded over `sparkPlan` as `prepareForExecution` folds them."""
    plan = qe.sparkPlan().clone()
    text = str(plan.treeString())
    steps = []
    rules = seq(qe.preparations())
    for rule in rules:
        name = str(rule.ruleName())
        start = time.perf_counter()
        try:
            result = rule.apply(plan)
        except JVM_ERRORS as exc:
            steps.append(CatalystStep("physical", "Preparations", 1, short_rule_name(name), name,
                                      text, text, elapsed=time.perf_counter() - start,
                                      error=java_message(exc)))
            break
        elapsed = time.perf_counter() - start
        if not result.fastEquals(plan):
            after = str(result.treeString())
            steps.append(CatalystStep("physical", "Preparations", 1, short_rule_name(name), name,
                                      text, after, elapsed=elapsed))
            text = after
        plan = result
    executed = qe.executedPlan()
    return PhysicalRun(tuple(steps), len(rules), str(executed.treeString()),
                       compare_plans(plan, executed))


def _excluded(session) -> tuple[str, ...]:
    value = session.conf.get("spark.sql.optimizer.excludedRules", "") or ""
    return tuple(r.strip() for r in value.split(",") if r.strip())
