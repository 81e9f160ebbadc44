"""What exprscope did inside Spark's partitions, summed over all of them.

Each partition runs its piece of the physical plan under a `PartitionObserver`
that counts, per expression node, the rows it was evaluated on, per special-form
branch the rows selected, and each invariant check's verdict. The counters travel
back to the driver in a Spark accumulator (a dict of sums) and become an
`EngineTrace`. Spark applies an accumulator update once per successful task of
the action that ran it; recomputing the same DataFrame in a second action counts
again, which is why `SparkRun` runs the query once and keeps the result.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...observe import Observer

__all__ = ["BranchRows", "CounterParam", "EngineTrace", "NodeRows", "PartitionObserver"]


class CounterParam:
    """A Spark AccumulatorParam over dicts of integer counters (summed key by key)."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        for key, n in b.items():
            a[key] = a.get(key, 0) + n
        return a


class PartitionObserver(Observer):
    """Counts evaluation and invariant events of one partition, keyed by stage."""

    def __init__(self, stage: str):
        self.stage = stage
        self.counts: Counter = Counter()

    def on_eval(self, event) -> None:
        expr = str(event.expr)
        self.counts[("eval", self.stage, expr)] += event.num_rows
        for node in event.nodes:
            self.counts[("node", self.stage, expr, tuple(node.path), node.label)] += node.rows
        for branch in event.branches:
            self.counts[("branch", self.stage, expr, tuple(branch.path), branch.branch)] += \
                branch.count

    def on_invariant(self, event) -> None:
        verdict = "passed" if event.passed else "failed"
        self.counts[("check", self.stage, event.name, verdict)] += 1

    def count(self, *key, n: int = 1) -> None:
        self.counts[key] += n


@dataclass
class NodeRows:
    stage: str
    expression: str
    path: tuple
    label: str
    rows: int


@dataclass
class BranchRows:
    stage: str
    expression: str
    path: tuple
    branch: str
    rows: int


@dataclass
class EngineTrace:
    """Rows per expression node and per special-form branch, summed over partitions."""

    nodes: list[NodeRows] = field(default_factory=list)
    branches: list[BranchRows] = field(default_factory=list)
    checks: dict = field(default_factory=dict)  # (stage, invariant) -> {"passed": n, "failed": n}
    batches: dict = field(default_factory=dict)  # stage -> {"batches_in", "rows_in", ...}
    evaluations: dict = field(default_factory=dict)  # (stage, expression) -> rows evaluated

    @classmethod
    def from_counts(cls, counts: dict) -> EngineTrace:
        trace = cls()
        for key, n in sorted(counts.items(), key=lambda kv: tuple(map(str, kv[0]))):
            kind = key[0]
            if kind == "node":
                trace.nodes.append(NodeRows(key[1], key[2], key[3], key[4], n))
            elif kind == "branch":
                trace.branches.append(BranchRows(key[1], key[2], key[3], key[4], n))
            elif kind == "check":
                trace.checks.setdefault((key[1], key[2]), {"passed": 0, "failed": 0})[key[3]] += n
            elif kind == "eval":
                trace.evaluations[(key[1], key[2])] = n
            elif kind == "stage":
                trace.batches.setdefault(key[1], {})[key[2]] = n
        return trace

    def node_rows(self, expression: str | None = None) -> dict:
        """{(path, label): rows} for one expression (all, summed over stages, when None)."""
        out: dict = {}
        for n in self.nodes:
            if expression is None or n.expression == expression:
                out[(n.path, n.label)] = out.get((n.path, n.label), 0) + n.rows
        return out

    def branch_rows(self, expression: str | None = None) -> dict:
        """{(path, branch): rows} for one expression (all when None)."""
        out: dict = {}
        for b in self.branches:
            if expression is None or b.expression == expression:
                out[(b.path, b.branch)] = out.get((b.path, b.branch), 0) + b.rows
        return out

    def to_text(self) -> str:
        lines = []
        for stage, counts in self.batches.items():
            lines.append(f"{stage}: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
        expressions = sorted({n.expression for n in self.nodes})
        for expr in expressions:
            lines.append(f"  {expr}")
            for n in self.nodes:
                if n.expression == expr:
                    where = "/".join(map(str, n.path)) or "root"
                    lines.append(f"    node {where:<8} {n.label:<40} rows={n.rows}")
            for b in self.branches:
                if b.expression == expr:
                    where = "/".join(map(str, b.path)) or "root"
                    lines.append(f"    branch {where:<6} {b.branch:<40} rows={b.rows}")
        for (stage, name), verdicts in self.checks.items():
            lines.append(f"  check {name} in {stage}: {verdicts['passed']} passed, "
                         f"{verdicts['failed']} failed")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()
