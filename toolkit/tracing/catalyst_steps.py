"""Spark's own planning recorded as plain data: one record per Catalyst rule that changed a plan.

`toolkit.spark.catalyst_steps` fills these records from Spark's JVM; they hold
only text, numbers and tuples, so the renderers, the report and the Explorer
read them without pyspark. Plans are kept as Spark prints them (`treeString`);
`plan_tree` turns such text into a tree of nodes for the pictures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..support import late

__all__ = ["CatalystStep", "CatalystSteps", "PlanComparison", "RuleTime", "SparkCheck"]

PHASES = ("analyzer", "optimizer", "physical")


@dataclass(frozen=True)
class SparkCheck:
    """One of Spark's own plan-integrity checks (`LogicalPlanIntegrity`) on one step's plan.

    `message` is Spark's own text when the check fails ("" when it passes);
    `exprscope_name` is the name of exprscope's invariant that says the same, if any."""

    name: str
    ok: bool
    message: str = ""
    exprscope_name: str | None = None


@dataclass(frozen=True)
class CatalystStep:
    """One rule call that changed the plan (or threw): the plan before and after it."""

    phase: str  # "analyzer", "optimizer" or "physical"
    batch: str
    iteration: int
    rule: str  # the rule's short name, e.g. "PushDownPredicates"
    rule_class: str  # Spark's rule name: the class, e.g. "org.apache...PushDownPredicates"
    before: str  # the plan as Spark's treeString prints it
    after: str
    checks: tuple[SparkCheck, ...] = ()
    elapsed: float = 0.0  # seconds the rule took, timed around the call from Python
    substeps: tuple[CatalystStep, ...] = ()  # the inner rules of a composite rule
    error: str | None = None  # Spark's message when the rule threw; then `after` == `before`
    scope: str = ""  # "" for the query itself, "subquery 2" for a nested optimizer run

    @property
    def failed(self) -> bool:
        return self.error is not None or any(not c.ok for c in self.checks)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return late.mimebundle(self)

    @property
    def title(self) -> str:
        where = f" · {self.scope}" if self.scope else ""
        return f"{self.rule}{where} · {self.phase} · {self.batch} · iteration {self.iteration}"


@dataclass(frozen=True)
class RuleTime:
    """Spark's own account of one rule in its own run (`QueryPlanningTracker`), summed over
    the analyzer, the optimizer and nested subquery runs that share the rule's name."""

    rule: str
    calls: int
    effective: int
    seconds: float


@dataclass(frozen=True)
class PlanComparison:
    """How the stepped plan compares with Spark's `optimizedPlan`."""

    verdict: str  # "equal", "equal up to expression ids", "different" or "not compared"
    where: str = ""  # for "different": the first line that differs, both ways

    @property
    def statement(self) -> str:
        if self.verdict == "equal":
            return "The stepped plan equals Spark's optimizedPlan (fastEquals)."
        if self.verdict == "equal up to expression ids":
            return ("The stepped plan equals Spark's optimizedPlan up to expression ids, "
                    "which Spark mints afresh on every run.")
        if self.verdict == "different":
            return f"The stepped plan differs from Spark's optimizedPlan: {self.where}"
        return f"Not compared with Spark's optimizedPlan: {self.where}"


@dataclass(frozen=True)
class CatalystSteps:
    """Spark's planning of one query, rule by rule: the steps that changed the plan."""

    query: str  # the SQL text, or a DataFrame's description
    steps: tuple[CatalystStep, ...]
    rule_calls: int  # every rule call of Spark's loop, effective or not
    final_plan: str  # the optimizer's result as stepped (treeString)
    optimized_plan: str  # Spark's own optimizedPlan (treeString)
    comparison: PlanComparison
    rule_times: tuple[RuleTime, ...] = ()  # Spark's own run, slowest first
    excluded_rules: tuple[str, ...] = ()
    analyzed_plan: str = ""  # Spark's analyzed plan
    analyzer_comparison: PlanComparison | None = None  # the stepped analyzer's against it
    executed_plan: str = ""  # Spark's executedPlan
    physical_comparison: PlanComparison | None = None  # the stepped preparation's against it
    seconds: float = 0.0  # the whole stepping, wall clock
    optimizer_seconds: float = 0.0  # the optimizer's stepping alone, wall clock
    spark_seconds: float = 0.0  # Spark's own optimization of the same plan, wall clock
    spark_version: str = ""
    note: str = ""  # why stepping was not possible (Spark Connect), else ""
    # of `rule_calls`, those counted without a call to the JVM: their outcome was known (a
    # rule already ineffective on the plan as it stood, or never effective in Spark's own run)
    known_calls: int = 0
    checks_note: str = ""  # which of Spark's checks ran on which phase's steps
    explain_plans: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def summary(self) -> str:
        changed = sum(1 for s in self.steps if s.error is None)
        failed = sum(1 for s in self.steps if s.failed)
        text = (f"{self.rule_calls:,} rule call{'s' if self.rule_calls != 1 else ''}, "
                f"{changed:,} changed the plan")
        if failed:
            text += f", {failed:,} failed"
        return text

    @property
    def known_calls_note(self) -> str:
        """What the stepping did not send to the JVM, and why that leaves it exact."""
        if not self.known_calls:
            return ""
        return (f"{self.known_calls:,} of the {self.rule_calls:,} rule calls were counted "
                f"without calling the rule: a rule already ineffective on the plan as it "
                f"stood, or one Spark's own run of the same plan never found effective.")

    def phase(self, name: str) -> tuple[CatalystStep, ...]:
        return tuple(s for s in self.steps if s.phase == name)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return late.mimebundle(self)
