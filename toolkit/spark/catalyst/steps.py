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

import re
import time
from dataclasses import dataclass, replace

from ...errors import UsageError
from ...tracing.catalyst_steps import CatalystStep, CatalystSteps, PlanComparison, RuleTime
from ...tracing.spark_plan_text import strip_ids
from ..active_session import session as active_session
from ..errors import SparkArgumentError
from ..reading.from_connect import is_connect
from .checks import CHECKS_NOTE, resolved_check
from .connect import connect_steps
from .jvm import java_class, java_message, jvm_errors, jvm_text, seq, short_rule_name
from .stepping import Stepper, batches_of

__all__ = ["catalyst_steps", "compare_plans"]

MAX_QUERY_CHARS = 1_000_000


def catalyst_steps(query, spark=None, *, checks: bool = True, physical: bool = True,
                   skip_known: bool = True) -> CatalystSteps:
    """Spark's planning of `query` (a DataFrame, or SQL text over the session's views),
    one step per rule call that changed the plan.

    `checks`: run Spark's integrity checks on every analyzer and optimizer step;
    `physical`: step the physical preparation rules too;
    `skip_known`: count but do not make the rule calls whose outcome is known (a rule
    Spark's own run of the same input never found effective, or one already found
    ineffective on the plan as it stands); False makes every call over py4j."""
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

    analyzer_batches = batches_of(state.analyzer(), state.conf())
    # Spark's own analysis of the same parsed plan, tracked: which rules ever change it
    never = (_never_effective(analyzer_batches, _spark_run(jvm, state.analyzer(), qe.logical()))
             if skip_known else frozenset())
    analyzer = Stepper(session, "analyzer", checks=checks, skip_known=skip_known,
                       ineffective=never)
    analyzed_run = analyzer.run(qe.logical().clone(), analyzer_batches)
    analyzer_steps = analyzed_run.steps
    if checks and analyzer_steps and not analyzed_run.threw:
        last = analyzer_steps[-1]
        analyzer_steps = analyzer_steps[:-1] + (replace(
            last, checks=last.checks + (resolved_check(analyzed_run.plan),)),)
    analyzer_comparison = compare_plans(analyzed_run.plan, qe.analyzed())

    optimizer = state.optimizer()
    batches = batches_of(optimizer, state.conf())
    source = qe.withCachedData()
    # Spark's optimizedPlan first: it warms what every later run reads (the relations'
    # files and statistics), so Spark's timed run and the stepping both start warm
    optimized, spark_error = _optimized_plan(qe)
    own = _spark_run(jvm, optimizer, source)
    stepper = Stepper(session, "optimizer", checks=checks, skip_known=skip_known,
                      ineffective=_never_effective(batches, own))
    optimizer_started = time.perf_counter()
    run = stepper.run(source.clone(), batches)
    optimizer_seconds = time.perf_counter() - optimizer_started

    optimized_text, comparison = _compare_with_spark(optimized, spark_error, run)
    prepared = PhysicalRun((), 0, "", None)
    if physical and not run.threw and optimized is not None:
        prepared = _physical(qe)
    seconds = time.perf_counter() - started
    return CatalystSteps(
        query=text,
        steps=analyzer_steps + run.steps + prepared.steps,
        rule_calls=analyzer.calls + stepper.calls + prepared.calls,
        known_calls=analyzer.skipped + stepper.skipped,
        final_plan=jvm_text(run.plan),
        optimized_plan=optimized_text,
        comparison=comparison,
        rule_times=own.rule_times,
        excluded_rules=_excluded(session),
        analyzed_plan=jvm_text(qe.analyzed()),
        analyzer_comparison=analyzer_comparison,
        executed_plan=prepared.executed_plan,
        physical_comparison=prepared.comparison,
        seconds=seconds,
        optimizer_seconds=optimizer_seconds,
        spark_seconds=own.seconds,
        spark_version=str(session.version),
        checks_note=CHECKS_NOTE if checks else "",
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
        except jvm_errors() as exc:
            raise SparkArgumentError(f"Spark cannot read the SQL text: {java_message(exc)}") \
                from None
    if hasattr(query, "_jdf") and hasattr(query, "sparkSession"):
        return query, f"DataFrame[{', '.join(query.columns)}]"
    raise UsageError(f"catalyst_steps takes a Spark DataFrame or SQL text, not a "
                     f"{type(query).__name__}")


@dataclass(frozen=True)
class SparkRun:
    """Spark's own optimizer run on the optimizer's input: its time, its tracker's account
    per rule, the rules that changed the plan at least once, and its error if it threw."""

    seconds: float
    rule_times: tuple[RuleTime, ...]
    effective_rules: frozenset[str]  # Spark's rule names
    error: str | None


def _spark_run(jvm, executor, source) -> SparkRun:
    """Spark's own analyzer or optimizer on the same input, timed and tracked
    (`QueryPlanningTracker`)."""
    tracker = java_class(jvm, "org.apache.spark.sql.catalyst.QueryPlanningTracker")(
        java_class(jvm, "scala.Option").empty())
    clone = source.clone()
    start = time.perf_counter()
    try:
        executor.executeAndTrack(clone, tracker)
        threw = None
    except jvm_errors() as exc:
        threw = java_message(exc)
    spark_seconds = time.perf_counter() - start
    times, effective = [], set()
    for name, nanos, calls, count in _rule_summaries(tracker.rules()):
        times.append(RuleTime(short_rule_name(name), calls, count, nanos / 1e9))
        if count:
            effective.add(name)
    times.sort(key=lambda t: -t.seconds)
    return SparkRun(spark_seconds, tuple(times), frozenset(effective), threw)


# a QueryPlanningTracker.RuleSummary as a Scala Map prints it: "name -> RuleSummary(ns, calls,
# effective calls)"
_RULE_SUMMARY = re.compile(r"([^\s,()]+) -> RuleSummary\((\d+), (\d+), (\d+)\)")


def _rule_summaries(rules) -> list[tuple[str, int, int, int]]:
    """(rule name, nanoseconds, calls, effective calls) of the tracker's rules map: read
    from its printed form in one JVM call, or entry by entry if that does not parse."""
    found = [(m[1], int(m[2]), int(m[3]), int(m[4]))
             for m in _RULE_SUMMARY.finditer(jvm_text(rules))]
    if len(found) == rules.size():
        return found
    out, it = [], rules.iterator()
    while it.hasNext():
        entry = it.next()
        summary = entry._2()
        out.append((str(entry._1()), int(summary.totalTimeNs()), int(summary.numInvocations()),
                    int(summary.numEffectiveInvocations())))
    return out


def _never_effective(batches, own: SparkRun) -> frozenset[str]:
    """The executor's rules that Spark's own run of the same input called without effect
    every time (its nested runs too: they share its tracker); none when that run threw
    (it stopped before some rules ran)."""
    if own.error is not None:
        return frozenset()
    return frozenset(name for batch in batches for _, name in batch.rules
                     if name not in own.effective_rules)


def _optimized_plan(qe):
    """(Spark's optimizedPlan, None) or (None, Spark's message when its optimizer threw)."""
    try:
        return qe.optimizedPlan(), None
    except jvm_errors() as exc:
        return None, java_message(exc)


def _compare_with_spark(optimized, spark_error: str | None, run):
    """(Spark's optimizedPlan as text, how the stepped plan compares with it)."""
    if optimized is None:
        return "", PlanComparison("not compared", f"Spark's optimizer threw too: {spark_error}")
    text = jvm_text(optimized)
    if run.threw:
        return text, PlanComparison("different", "a rule threw while stepping, but Spark's "
                                    "own run did not")
    return text, compare_plans(run.plan, optimized)


def compare_plans(stepped, optimized) -> PlanComparison:
    """Equal (fastEquals), equal up to expression ids, or different and where."""
    if stepped.fastEquals(optimized):
        return PlanComparison("equal")
    ours, theirs = jvm_text(stepped), jvm_text(optimized)
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
    text = jvm_text(plan)
    steps = []
    rules = seq(qe.preparations())
    for rule in rules:
        name = str(rule.ruleName())
        start = time.perf_counter()
        try:
            result = rule.apply(plan)
        except jvm_errors() as exc:
            steps.append(CatalystStep("physical", "Preparations", 1, short_rule_name(name), name,
                                      text, text, elapsed=time.perf_counter() - start,
                                      error=java_message(exc)))
            break
        elapsed = time.perf_counter() - start
        if not result.fastEquals(plan):
            after = jvm_text(result)
            steps.append(CatalystStep("physical", "Preparations", 1, short_rule_name(name), name,
                                      text, after, elapsed=elapsed))
            text = after
        plan = result
    executed = qe.executedPlan()
    return PhysicalRun(tuple(steps), len(rules), jvm_text(executed),
                       compare_plans(plan, executed))


def _excluded(session) -> tuple[str, ...]:
    value = session.conf.get("spark.sql.optimizer.excludedRules", "") or ""
    return tuple(r.strip() for r in value.split(",") if r.strip())
