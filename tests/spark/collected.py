"""Spark's rows collected once per test module: the oracle's rows of a query, and the rows
behind each scan of an imported plan.

An imported plan scans Spark DataFrames (`SparkSource`), and running it asks Spark for
each scan's columns: a Spark job per scan per run. The TPC-H tests run dozens of plans
over the same eight tables, so a `Collected` keeps what Spark returned for each
DataFrame (by Spark's semantic hash of its plan) and the plans read it from memory:
the same batches `SparkSource` would stream, without asking Spark again.
"""

from __future__ import annotations

import pyarrow as pa

from toolkit import plan
from toolkit.plan import TableScan
from toolkit.plan.sources import BATCH_ROWS, Source
from toolkit.plan.tree import transform_up
from toolkit.spark.running.compare import tables_differences
from toolkit.spark.running.source import SparkSource


class CollectedSparkSource(Source):
    """A Spark DataFrame's rows as Spark's `toArrow()` returned them once."""

    kind = "spark"
    exec_name = "SparkScanExec"

    def __init__(self, schema: pa.Schema, table: pa.Table):
        self.schema = schema
        self.table = table

    def batches(self, columns=None, limit=None):
        table = self.table.select(list(columns)) if columns is not None else self.table
        if limit is not None:
            table = table.slice(0, limit)
        return iter(table.to_batches(max_chunksize=BATCH_ROWS))

    def describe(self) -> str:
        return "spark (collected once)"


class Collected:
    """Rows Spark returned, by the semantic hash of the DataFrame's plan and its columns."""

    def __init__(self):
        self._tables: dict[tuple, pa.Table] = {}

    def rows(self, df) -> pa.Table:
        """`df.toArrow()`, asked of Spark once for DataFrames with the same plan."""
        key = (df.semanticHash(), tuple(df.columns))
        if key not in self._tables:
            self._tables[key] = df.toArrow()
        return self._tables[key]

    def scans_from_memory(self, logical_plan):
        """The plan with each Spark scan reading the rows collected for its DataFrame."""

        def swap(node):
            if isinstance(node, TableScan) and isinstance(node.source, SparkSource):
                source = CollectedSparkSource(node.source.schema, self.rows(node.source.df))
                return TableScan(node.relation, source, node.projection)
            return node

        return transform_up(logical_plan, swap)

    def assert_same_rows(self, df, imported, same_types: bool = False, **tolerance) -> pa.Table:
        """Run the imported plan, optimized, on the collected rows and assert it gives Spark's
        rows for `df` (names, and with `same_types` the types; values within `tolerance`,
        `tables_differences`' rel_tol and abs_tol). Returns exprscope's rows."""
        expected = self.rows(df)
        runnable = self.scans_from_memory(plan.optimize(imported))
        got = plan.create_physical_plan(runnable).collect()
        assert got.schema.names == expected.schema.names
        if same_types:
            assert got.schema.types == expected.schema.types
        comparison = tables_differences(expected, got, **tolerance)
        assert comparison.equal, str(comparison)
        return got

    def assert_runs_as_spark(self, df, imported, label: str = "", **tolerance) -> None:
        """Run the imported plan in both modes (exprscope inside Spark's tasks; Spark alone)
        and assert each gives Spark's collected rows for `df`."""
        from toolkit import spark as tks

        expected = self.rows(df)
        for mode in ("engine", "native"):
            got = tks.run(imported, mode=mode, trace=False).to_arrow()
            comparison = tables_differences(expected, got, **tolerance)
            assert comparison.equal, f"{label} ({mode}): {comparison}"
