"""The 22 TPC-H queries in Spark SQL and 10 in the DataFrame API, imported with
`tks.from_spark` at both stages and run by exprscope, against Spark's own rows.

The queries that do not import yet are listed per stage, and each of those is
asserted to still fail with a SparkImportError naming a Spark node: when one
starts working, its test fails until it moves to the supported list.

Spark runs each query once (its rows serve both stages) and each table is collected
from Spark once per module (`collected.py`): the imported plans read those rows.
"""

from __future__ import annotations

import re

import pytest

from tests.spark.collected import Collected

pytestmark = pytest.mark.spark

SCALE = 0.01
NOT_YET: dict[str, dict[int, str]] = {"analyzed": {}, "optimized": {}}  # query -> Spark node


@pytest.fixture(scope="module")
def tpch_views(spark):
    from toolkit.spark import tpch, tpch_sql

    return tpch_sql.register_views(spark, tpch.tables(SCALE, tpch.ALL_TABLES))


@pytest.fixture(scope="module")
def collected():
    return Collected()


def _same_rows(collected, df, imported):
    return collected.assert_same_rows(df, imported, rel_tol=1e-9, abs_tol=1e-6)


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
@pytest.mark.parametrize("n", range(1, 23))
def test_tpch_sql_query_imports_and_returns_sparks_rows(spark, tpch_views, collected, n,
                                                        stage):
    from toolkit import spark as tks
    from toolkit.spark import SparkImportError, tpch_sql

    df = spark.sql(tpch_sql.SQL[n])
    if n in NOT_YET[stage]:
        with pytest.raises(SparkImportError) as info:
            tks.from_spark(df, stage=stage)
        assert info.value.spark_class == NOT_YET[stage][n]
        assert "at line " in str(info.value)  # where in the query text
        return
    _same_rows(collected, df, tks.from_spark(df, stage=stage))


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 6, 10, 12, 13, 14, 18])
def test_tpch_dataframe_query_imports_and_returns_sparks_rows(spark, tpch_views, collected, n,
                                                              stage):
    from toolkit import spark as tks
    from toolkit.spark.tpch_dataframes import DATAFRAME_QUERIES

    df = DATAFRAME_QUERIES[n](tpch_views)
    _same_rows(collected, df, tks.from_spark(df, stage=stage))


@pytest.mark.parametrize("n, workers, jvm", [(3, ["customer", "orders", "lineitem"], []),
                                              (4, ["orders", "lineitem"], []),
                                              (13, ["customer"], ["orders"])])
def test_tpch_query_runs_in_engine_mode_equal_to_spark(spark, tpch_views, collected, n,
                                                       workers, jvm):
    """Engine mode runs the plan inside Spark: its scans read the Parquet files in the
    Python workers, except a scan Spark only moves on (Q13's orders, broadcast whole)."""
    from toolkit import spark as tks
    from toolkit.spark import tpch_sql
    from toolkit.spark.running.compare import tables_differences

    df = spark.sql(tpch_sql.SQL[n])
    run = tks.run(tks.from_spark(df), mode="engine", trace=False)
    comparison = tables_differences(collected.rows(df), run.to_arrow(), rel_tol=1e-9,
                                    abs_tol=1e-6)
    assert comparison.equal, str(comparison)
    text = "\n".join(run.stages)
    for relation in workers:
        assert f"{relation} spark projection=" in text
        assert re.search(rf"{relation} spark projection=\[[^]]*\] read from Parquet by the "
                         "Python workers", text), text
    for relation in jvm:
        assert re.search(rf"{relation} spark projection=\[[^]]*\] in Spark's partitions, read "
                         "by Spark's JVM: Spark moves its rows on", text), text


def test_comma_joins_become_equi_joins_in_the_optimizer_trace(spark, tpch_views):
    from toolkit import plan
    from toolkit.spark import from_spark, tpch_sql

    imported = from_spark(spark.sql(tpch_sql.SQL[5]))
    assert any(n.label() == "Cross Join" for n in imported.walk())
    text = imported.explain(verbose=True)
    assert "logical_plan after eliminate_cross_join" in text
    assert "a filter over a cross join of 6 inputs became equi-joins" in text
    optimized = plan.optimize(imported)
    assert not any("Cross" in n.label() for n in optimized.walk())


def test_relations_carry_the_users_names(spark, tpch_views):
    from toolkit.plan import TableScan
    from toolkit.spark import from_spark, tpch_sql

    scans = [n.relation for n in from_spark(spark.sql(tpch_sql.SQL[7])).walk()
             if isinstance(n, TableScan)]
    assert sorted(scans) == ["customer", "lineitem", "n1", "n2", "orders", "supplier"]
    scans = [n.relation for n in from_spark(spark.sql(tpch_sql.SQL[21]), stage="optimized")
             .walk() if isinstance(n, TableScan)]
    assert sorted(scans) == ["lineitem", "lineitem2", "lineitem3", "nation", "orders",
                             "supplier"]


@pytest.mark.parametrize("n, predicates", [(4, ["EXISTS"]), (16, ["NOT IN"]),
                                           (21, ["EXISTS", "NOT EXISTS"]), (22, ["NOT EXISTS"])])
def test_subqueries_import_as_subquery_filters_and_become_joins_in_the_trace(
        spark, tpch_views, n, predicates):
    from toolkit import plan
    from toolkit.spark import from_spark, tpch_sql

    imported = from_spark(spark.sql(tpch_sql.SQL[n]))
    found = sorted(("NOT " if f.negated else "") + f.kind.upper() for f in imported.walk()
                   if isinstance(f, plan.SubqueryFilter))
    assert found == sorted(predicates)
    text = imported.explain(verbose=True)
    for word in predicates:
        kind = "an anti" if word.startswith("NOT") else "a semi"
        assert f"the {word} subquery became {kind} join" in text
    assert not any(isinstance(f, plan.SubqueryFilter) for f in plan.optimize(imported).walk())


@pytest.mark.parametrize("n, correlated", [(2, True), (15, False), (17, True), (20, True),
                                           (22, False)])
def test_scalar_subqueries_import_as_nodes_and_become_left_joins(spark, tpch_views, n,
                                                                 correlated):
    """A correlated scalar subquery is imported as it is written (its aggregate without
    groups, the correlation on the node) and the optimizer's own rules decorrelate it:
    grouped by the correlated column first, then left-joined."""
    from toolkit import plan
    from toolkit.plan.logical_plan import correlated_aggregate
    from toolkit.spark import from_spark, tpch_sql

    imported = from_spark(spark.sql(tpch_sql.SQL[n]))
    found = [node for node in imported.walk() if isinstance(node, plan.ScalarSubquery)]
    assert found and all(bool(node.correlation) == correlated for node in found)
    text = imported.explain(verbose=True)
    assert ("logical_plan after decorrelate_scalar_subquery (the correlated scalar subquery"
            in text) == correlated
    if correlated:
        assert all(not correlated_aggregate(node.subquery).group_exprs for node in found)
        assert text.index("after decorrelate_scalar_subquery") < \
            text.index("after scalar_subquery_to_join")
    assert "the scalar subquery became a left join" in text
    assert not any(isinstance(node, plan.ScalarSubquery) for node in
                   plan.optimize(imported).walk())


COUNT_BUG = """
SELECT c_custkey, (SELECT {value} FROM orders WHERE o_custkey = c_custkey) AS v
FROM customer WHERE c_nationkey < 5
"""


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
@pytest.mark.parametrize("value", ["count(*)", "count(o_comment) + 1", "sum(o_totalprice)",
                                   "max(o_orderdate)"])
def test_a_correlated_count_is_0_for_a_row_without_a_match_as_in_spark(
        spark, tpch_views, collected, stage, value):
    """A third of TPC-H's customers have no orders: their count is 0 (count + 1 is 1),
    not null, while a sum or max over no orders is null."""
    from toolkit import spark as tks

    df = spark.sql(COUNT_BUG.format(value=value))
    got = _same_rows(collected, df, tks.from_spark(df, stage=stage))
    values = got.column("v").to_pylist()
    without = values.count(None) if not value.startswith("count") else \
        values.count(1 if "+" in value else 0)
    assert 0 < without < len(values)  # customers without orders, and with
