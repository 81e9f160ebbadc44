"""tks.explain_row on a query over several sources reads from each only the rows that can
matter: the row's own source by the predicate, every other by the join keys of the row as
it reaches each join, pushed to Spark as a filter. Counted per source on TPC-H (scale
0.01, customer, orders and lineitem joined), against Spark's own counts; the filter's
node values against Spark evaluating each sub-expression on the joined row."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark

SCALE = 0.01
QUERY = """
select c_name, o_orderkey, l_linenumber, l_extendedprice
from customer join orders on c_custkey = o_custkey
     join lineitem on o_orderkey = l_orderkey
where c_mktsegment = 'BUILDING' and l_discount * 10 >= 0.5
"""


@pytest.fixture(scope="module")
def frames(spark):
    from toolkit.spark import tpch, tpch_sql

    return tpch_sql.register_views(spark, tpch.tables(SCALE, ("customer", "orders",
                                                              "lineitem")))


@pytest.fixture
def no_whole_reads(monkeypatch):
    from toolkit import spark as tks

    def whole_read(self, columns=None, limit=None):
        raise AssertionError(f"a whole source was read: {self.describe()}")

    monkeypatch.setattr(tks.SparkSource, "batches", whole_read)


def _count(spark, sql: str) -> int:
    return spark.sql(sql).count()


def test_each_source_gives_only_the_rows_of_the_rows_journey(spark, frames, no_whole_reads):
    from toolkit import spark as tks

    customer = spark.sql("select c_custkey from customer where c_mktsegment = 'BUILDING' "
                         "and c_custkey in (select o_custkey from orders) "
                         "order by c_custkey limit 1").first()[0]
    journey = tks.explain_row(spark.sql(QUERY), f"c_custkey = {customer}")
    reads = {r.relation: r.rows for r in journey.reads}
    orders = _count(spark, f"select * from orders where o_custkey = {customer}")
    lines = _count(spark, f"select * from lineitem join orders on l_orderkey = o_orderkey "
                          f"where o_custkey = {customer}")
    assert reads == {"customer": 1, "orders": orders, "lineitem": lines}
    assert 0 < orders < 100 and 0 < lines < 500  # of 15,000 orders and 60,175 lines
    kept = _count(spark, f"select * from ({QUERY}) q where q.c_name = (select c_name "
                         f"from customer where c_custkey = {customer})") > 0
    assert journey.kept == kept
    join = [s for s in journey.stops if s.kind in ("Join", "ConditionJoin")][0]
    assert join.partners.found == orders


def test_a_row_of_the_middle_source_reads_its_customer_and_its_lines(spark, frames,
                                                                     no_whole_reads):
    from toolkit import spark as tks

    order = spark.sql("select o_orderkey from orders order by o_orderkey limit 1").first()[0]
    journey = tks.explain_row(spark.sql(QUERY), f"o_orderkey = {order}")
    reads = {r.relation: r.rows for r in journey.reads}
    lines = _count(spark, f"select * from lineitem where l_orderkey = {order}")
    assert reads == {"orders": 1, "customer": 1, "lineitem": lines}


def test_the_filter_over_the_joins_is_spark_on_the_joined_row(spark, frames, no_whole_reads):
    """A customer outside BUILDING gets through both joins and is dropped at the filter;
    each node the filter's story evaluated equals Spark's value of that sub-expression over
    the joined row (the row as the journey has it there, handed to Spark)."""
    from tests.spark.test_explain_row_spark import _evaluated_nodes
    from toolkit import spark as tks

    customer = spark.sql("select c_custkey from customer where c_mktsegment <> 'BUILDING' "
                         "and c_custkey in (select o_custkey from orders) "
                         "order by c_custkey limit 1").first()[0]
    journey = tks.explain_row(spark.sql(QUERY), f"c_custkey = {customer}")
    assert not journey.kept and journey.stops[-1].kind == "Filter"
    assert "c_mktsegment" in journey.why
    stop = journey.stops[-1]
    node = journey.plan
    for i in stop.at:
        node = node.children[i]
    before = journey.stops[-2].rows.slice(0, 1).combine_chunks().to_batches()[0]
    tree = _evaluated_nodes(node.predicate, before)
    names = [f"c{i}" for i in range(before.num_columns)]  # Spark column names without dots
    row = spark.createDataFrame(before.rename_columns(names).to_pandas())
    renamed = before.rename_columns(names).schema
    checked = 0
    for story in stop.story.nodes:
        if not story.evaluated or story.value is None:
            continue
        expr = tree[tuple(story.path)]
        from toolkit.plan.rules.base import substitute_columns
        from toolkit.model.expression import Parameter
        from toolkit.model.field_ref import FieldRef

        plain = substitute_columns(expr, {n: Parameter(FieldRef(c))
                                          for n, c in zip(before.schema.names, names)})
        spark_value = row.select(tks.to_column(plain, renamed).alias("v")).first()[0]
        ours = story.value.as_py()
        assert spark_value == (pytest.approx(ours) if isinstance(ours, float) else ours), \
            story.expression
        checked += 1
    assert checked >= 3
