"""Spark queries imported as exprscope plans and expressions compute what Spark computes."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pytest

import toolkit as tk

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def views(spark):
    from toolkit.spark import tpch

    for name, path in tpch.tables(0.01).items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    return spark


def _same_as_spark(spark_df, p):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    want = spark_df.toArrow()
    got = tks.run(p, mode="engine").to_arrow()
    result = tables_differences(want.cast(got.schema), got)
    assert result.equal, str(result)
    return got


def test_sql_with_filter_in_group_by_and_computed_aggregates_imports(views):
    from toolkit import spark as tks

    q = views.sql("select l_returnflag, sum(l_quantity) as q, 100 * sum(l_tax) / count(*) as r "
                  "from lineitem where l_shipdate < date'1995-01-01' "
                  "and l_shipmode in ('MAIL', 'AIR') group by l_returnflag "
                  "order by l_returnflag limit 3")
    p = tks.from_spark(q)
    text = p.explain()
    assert "Aggregate: groupBy=[lineitem.l_returnflag]" in text and "Limit" in text
    assert "is_in(lineitem.l_shipmode" in text
    got = _same_as_spark(q, p)
    assert got.column("l_returnflag").to_pylist() == ["A", "R"]  # no N before mid-1995


def test_comma_join_with_case_when_becomes_an_equi_join_when_optimized(views):
    from toolkit import plan
    from toolkit import spark as tks

    q = views.sql("select l_shipmode, sum(case when o_orderpriority = '1-URGENT' or "
                  "o_orderpriority = '2-HIGH' then 1 else 0 end) as high "
                  "from orders, lineitem where o_orderkey = l_orderkey "
                  "and l_shipmode in ('MAIL', 'SHIP') group by l_shipmode order by l_shipmode")
    p = tks.from_spark(q)
    assert "Cross Join" in p.explain()  # as written: the keys are in the WHERE clause
    assert "Inner Join: orders.o_orderkey = lineitem.l_orderkey" in plan.optimize(p).explain()
    assert "case_when" in p.explain()
    _same_as_spark(q, p)


def test_dataframe_api_query_imports(spark):
    from pyspark.sql import functions as F

    from toolkit import spark as tks

    table = pa.table({"a": pa.array([1, 5, None, 12], pa.int64()),
                      "s": pa.array(["Ab", None, "cd", "xY"])})
    df = tks.dataframe(table, spark)
    q = df.filter(F.col("a").isNotNull()).select(
        (F.col("a") * 2).alias("twice"),
        F.when(F.col("a") > 4, "big").otherwise("small").alias("size"),
        F.upper(F.coalesce(F.col("s"), F.lit("?"))).alias("s"))
    _same_as_spark(q, tks.from_spark(q))


def test_a_column_imports_unresolved_or_resolved_against_a_dataframe(spark):
    from pyspark.sql import functions as F

    from toolkit import spark as tks

    column = (F.col("a") / 2 > 3) & F.col("s").startswith("x")
    unresolved = tks.from_spark(column)
    assert unresolved.to_string().startswith("((divide(cast(a")
    assert "starts_with(s" in unresolved.to_string()
    table = pa.table({"a": pa.array([8, 2, None, 7], pa.int64()),
                      "s": pa.array(["xa", "xb", "xc", "ya"])})
    df = tks.dataframe(table, spark)
    resolved = tks.from_spark(column, df)
    spark_says = df.select(column.alias("r")).toArrow().column("r").to_pylist()
    assert tk.evaluate(resolved, table).to_pylist() == spark_says == [True, False, None, False]
    assert tk.evaluate(unresolved, table).to_pylist() == spark_says


def test_spark_if_and_in_keep_spark_null_semantics(spark):
    from pyspark.sql import functions as F

    from toolkit import spark as tks

    table = pa.table({"a": pa.array([1, None, 3], pa.int64()),
                      "d": pa.array([datetime.date(2024, 1, 7), None, datetime.date(2024, 1, 1)])})
    df = tks.dataframe(table, spark)
    for column in [F.expr("if(a > 1, 'y', 'n')"), F.col("a").isin(1, 2), F.dayofweek("d")]:
        expr = tks.from_spark(column, df)
        assert tk.evaluate(expr, table).to_pylist() == \
            df.select(column.alias("r")).toArrow().column("r").cast(expr.bind(table.schema).type) \
            .to_pylist()


def test_unsupported_spark_nodes_are_named(spark):
    from pyspark.sql import functions as F

    from toolkit import spark as tks
    from toolkit.spark import SparkImportError

    with pytest.raises(SparkImportError, match="Spark function soundex"):
        tks.from_spark(F.soundex(F.col("s")))
    table = pa.table({"a": pa.array([1, 2], pa.int64())})
    df = tks.dataframe(table, spark)
    with pytest.raises(SparkImportError, match="Spark expression Sha2") as info:
        tks.from_spark(df.select(F.sha2(F.col("a").cast("string"), 256)))
    assert info.value.spark_class == "Sha2"
    with pytest.raises(SparkImportError, match="Spark plan node Sample"):
        tks.from_spark(df.sample(fraction=0.5, seed=1))
