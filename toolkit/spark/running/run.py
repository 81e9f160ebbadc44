"""`run(p_or_expr, df, mode)`: an exprscope plan or expression, run on Spark.

- `mode="native"`: exprscope's logical optimizer (and expression passes, which
  it runs), then the plan as DataFrame operations: Spark's own speed.
- `mode="engine"`: exprscope's physical plan inside Spark's partitions through
  `mapInArrow` (see `engine`): exprscope's exact semantics, lazy special forms
  included, at cluster scale; `SparkRun.trace` says what it evaluated.

An expression runs as a projection that keeps the input's columns and adds the
expression's value as `name` (default "result"), so every result row can be
traced back to its input row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

import toolkit

from ... import plan as plans
from ...errors import UsageError
from ...model.expression import Expression, as_expression
from ...plan.logical_plan import TableScan
from ..active_session import session
from ..errors import SparkArgumentError
from .engine import engine_dataframe
from .engine_trace import EngineTrace
from .native import to_dataframe
from .partition_errors import collect_arrow

__all__ = ["MODES", "SparkRun", "as_plan", "run"]

MODES = ("native", "engine")


@dataclass
class SparkRun:
    """A plan ready to run on Spark: `df` is lazy; `to_arrow()` runs it (once) and keeps it."""

    mode: str
    plan: object  # the optimized logical plan
    df: object  # the pyspark DataFrame
    physical: object = None  # engine mode: exprscope's physical plan
    stages: list = field(default_factory=list)  # engine mode: what each mapInArrow runs
    scans: list = field(default_factory=list)  # engine mode: how each scan's rows enter Python
    _accumulator: object = None
    _cached: list = field(default_factory=list)  # engine mode: inputs cached for this run
    _table: pa.Table | None = None

    def to_arrow(self) -> pa.Table:
        """The result as a pyarrow Table with the plan's schema (runs the query the first time)."""
        if self._table is None:
            try:
                table = collect_arrow(self.df)
            finally:  # the result is kept: the inputs cached to compute it are not needed
                for df in self._cached:
                    df.unpersist()
            self._table = _with_plan_types(table, self.schema)
        return self._table

    @property
    def schema(self) -> pa.Schema:
        return self.physical.schema if self.physical is not None else self.plan.schema.to_arrow()

    @property
    def trace(self):
        """Engine mode: rows per expression node and special-form branch, over all partitions."""
        if self.mode != "engine":
            raise SparkArgumentError("only engine mode runs exprscope inside Spark and has a trace")
        self.to_arrow()
        return EngineTrace.from_counts(self._accumulator.value)

    def explain(self) -> str:
        text = f"mode={self.mode}\n{self.plan.explain()}"
        if self.stages:
            text += "\nSpark stages (exprscope inside mapInArrow):\n" + "\n".join(
                "  " + s for s in self.stages)
        return text


def _with_plan_types(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Spark's Arrow types back to the plan's (uint32 travelled as int64, ...)."""
    arrays = [c if c.type == f.type else c.cast(f.type) for c, f in zip(table.columns, schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


def as_plan(p_or_expr, df=None, name: str = "result"):
    """A logical plan: the plan itself, or a projection of the expression over `df`."""
    if isinstance(p_or_expr, plans.LogicalPlan):
        return p_or_expr
    if isinstance(p_or_expr, (Expression, str)) or not hasattr(p_or_expr, "schema"):
        if df is None:
            raise UsageError("running an expression needs the DataFrame to run it on")
        expr = as_expression(p_or_expr) if not isinstance(p_or_expr, str) else _parse(p_or_expr)
        scan = plans.scan("input", df)
        columns = list(scan.schema.names)
        if name in columns:
            raise SparkArgumentError(f"the input already has a column {name!r}; pass name=...")
        return scan.project([*columns, expr], names=[*columns, name])
    raise UsageError(f"run takes an exprscope LogicalPlan or Expression, not "
                    f"{type(p_or_expr).__name__}")


def _parse(text: str):
    return toolkit.parse(text)


def _inputs(p, df) -> dict | None:
    """Which DataFrame each scan reads: `df` replaces the plan's only scan, a dict names them."""
    if df is None:
        return None
    if isinstance(df, dict):
        return df

    relations = sorted({n.relation for n in p.walk() if isinstance(n, TableScan)})
    if len(relations) != 1:
        raise SparkArgumentError(f"the plan scans {relations}; pass a dict {{relation: DataFrame}}")
    return {relations[0]: df}


def run(p_or_expr, df=None, mode: str = "native", name: str = "result", optimize: bool = True,
        trace: bool = True, validation: str | None = None, spark=None,
        prefilter: bool = True, worker_scans: bool = True) -> SparkRun:
    """Run a plan (or an expression over `df`) on Spark, natively or with exprscope inside.

    Engine mode only: `trace=False` skips the partition counters; `validation`
    is the plan's invariant-check mode ("always", "debug", "off"; default: the
    block's, see `toolkit.plan.validation`). The per-batch check that the
    output schema equals the plan's runs in every mode. `prefilter=False` stops
    Spark from pre-filtering scans by the column-versus-constant conjuncts of the
    filter above them (exact either way; off, exprscope sees every scanned row).
    `worker_scans=False` has Spark's JVM read every scan, even plain Parquet files
    the Python workers would otherwise read themselves (see `parquet_scan`).
    """
    if mode not in MODES:
        raise SparkArgumentError(f"run: mode must be one of {MODES}, got {mode!r}")
    spark = spark or session()
    is_expr = not isinstance(p_or_expr, plans.LogicalPlan)
    logical = as_plan(p_or_expr, df, name)
    inputs = None if is_expr else _inputs(logical, df)
    if optimize:
        logical = plans.optimize(logical)
    if mode == "native":
        return SparkRun("native", logical, to_dataframe(logical, spark, inputs))

    physical = plans.create_physical_plan(logical, validation=validation)
    frames = engine_dataframe(physical, spark, inputs, trace, prefilter, worker_scans)
    return SparkRun("engine", logical, frames.df, physical, frames.stages, frames.scans,
                    frames.accumulator, frames.cached)
