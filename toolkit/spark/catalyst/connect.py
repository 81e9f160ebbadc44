"""`catalyst_steps` on Spark Connect: the rules live in the server's JVM, so it shows what
the client can get, Spark's `explain("extended")` text parsed into plan trees."""

from __future__ import annotations

from ...errors import UsageError
from ...tracing.catalyst_steps import CatalystSteps, PlanComparison
from ...tracing.spark_plan_text import explain_sections

__all__ = ["CONNECT_NOTE", "connect_steps", "steps_from_explain"]

CONNECT_NOTE = ("Spark Connect cannot be stepped rule by rule: the rules run in the server's "
                "JVM, which a Connect client cannot reach; shown instead: Spark's "
                "explain(\"extended\") plans (parsed, analyzed, optimized, physical) as trees.")


def connect_steps(query, spark=None) -> CatalystSteps:
    """The record for a Connect DataFrame (or SQL text on a Connect session): no steps,
    the note saying why, and the four plans of `explain("extended")`."""
    if isinstance(query, str):
        if spark is None:
            raise UsageError("SQL text on Spark Connect needs the Connect session: "
                             "catalyst_steps(text, spark=session)")
        text, df = query, spark.sql(query)
    else:
        text, df = f"DataFrame[{', '.join(query.columns)}]", query
    return steps_from_explain(text, df._explain_string(extended=True),
                              str(df.sparkSession.version))


def steps_from_explain(query: str, explain_text: str, spark_version: str = "") -> CatalystSteps:
    """The record of a plan Spark only printed: `explain("extended")` text, parsed."""
    sections = explain_sections(explain_text)
    optimized = sections.get("Optimized Logical Plan", "")
    return CatalystSteps(
        query=query, steps=(), rule_calls=0, final_plan=optimized, optimized_plan=optimized,
        comparison=PlanComparison("not compared", "no stepping on Spark Connect"),
        analyzed_plan=sections.get("Analyzed Logical Plan", ""),
        executed_plan=sections.get("Physical Plan", ""),
        spark_version=spark_version, note=CONNECT_NOTE, explain_plans=sections)
