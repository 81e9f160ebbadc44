"""DuckDB as a second oracle: the 22 TPC-H queries, imported from Spark SQL and run by
exprscope's own engine straight from the Parquet files, against DuckDB running the same
SQL over the same files.

Spark only reads the SQL here (its analyzed plan); each scan of the imported plan is
swapped for a scan of its table's Parquet file, so the rows come from exprscope's
optimizer and physical plan alone, and DuckDB computes its rows independently.

What "equal" means: the same rows as multisets, cell by cell after a canonical sort
(`tables_differences`), numbers compared as float64 within rel_tol=1e-9 or
abs_tol=1e-6 (the engines add floats in different orders; DuckDB's integer sums are
int128); and for a query with ORDER BY, exprscope's rows in exprscope's order are
sorted by that ORDER BY, asked of DuckDB over exprscope's rows (ties in any order,
nulls first ascending and last descending, as Spark sorts).
"""

from __future__ import annotations

import re

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat
import pytest

from toolkit import plan
from toolkit.plan import TableScan
from toolkit.plan.tree import transform_up
from toolkit.spark.running.compare import tables_differences

pytestmark = pytest.mark.spark

SCALE = 0.01
PREFIXES = {"l": "lineitem", "o": "orders", "p": "part", "ps": "partsupp", "s": "supplier",
            "c": "customer", "n": "nation", "r": "region"}


@pytest.fixture(scope="module")
def paths(spark):
    from toolkit.spark import tpch, tpch_sql

    found = tpch.tables(SCALE, tpch.ALL_TABLES)
    tpch_sql.register_views(spark, found)
    return found


@pytest.fixture(scope="module")
def duck(paths):
    con = duckdb.connect()
    con.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")
    for name, path in paths.items():
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    return con


def _from_parquet(imported, paths):
    """The plan with each scan reading its TPC-H table's Parquet file (known by its
    columns' prefix), not Spark."""

    def swap(node):
        if not isinstance(node, TableScan):
            return node
        table = PREFIXES[node.source.schema.names[0].split("_")[0]]
        parquet = plan.scan(node.relation, paths[table])
        spark_side, file_side = node.source.schema, parquet.source.schema
        assert (spark_side.names, spark_side.types) == (file_side.names, file_side.types)
        return TableScan(node.relation, parquet.source, node.projection)

    return transform_up(imported, swap)


def _arrow(result) -> pa.Table:
    return result.read_all() if hasattr(result, "read_all") else result


def _numbers_as_float(table: pa.Table, names) -> pa.Table:
    columns = []
    for column in table.columns:
        t = column.type
        if pat.is_integer(t) or pat.is_floating(t) or pat.is_decimal(t):
            column = pc.cast(column, pa.float64())
        columns.append(column)
    return pa.table(columns, names=names)


def _order_by(sql: str) -> str | None:
    """The query's final ORDER BY list (TPC-H's name output columns), None without one."""
    match = re.search(r"order\s+by\s+(.*?)(?:\s+limit\s+\d+)?\s*;?\s*$", sql,
                      re.IGNORECASE | re.DOTALL)
    if match is None or ")" in match[1]:
        return None
    return " ".join(match[1].split())


@pytest.mark.parametrize("n", range(1, 23))
def test_tpch_query_equals_duckdbs_rows(spark, paths, duck, n):
    from toolkit import spark as tks
    from toolkit.spark import tpch_sql

    sql = tpch_sql.SQL[n]
    imported = tks.from_spark(spark.sql(sql))
    runnable = _from_parquet(plan.optimize(imported), paths)
    got = plan.create_physical_plan(runnable).collect()
    want = _arrow(duck.sql(sql).arrow())
    assert want.num_columns == got.num_columns
    names = got.schema.names
    comparison = tables_differences(_numbers_as_float(want, names),
                                    _numbers_as_float(got, names), rel_tol=1e-9, abs_tol=1e-6)
    assert comparison.equal, str(comparison)
    order = _order_by(sql)
    if order is not None and got.num_rows > 1:
        duck.register("exprscope_rows", got.append_column("_position", pa.array(
            range(got.num_rows), pa.int64())))
        try:
            positions = duck.sql(f"SELECT _position FROM exprscope_rows ORDER BY {order}, "
                                 "_position").fetchall()
        finally:
            duck.unregister("exprscope_rows")
        ties_apart = [p for (p,) in positions]
        assert ties_apart == sorted(ties_apart), f"not in ORDER BY {order} order"
