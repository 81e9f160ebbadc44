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


@pytest.fixture(scope="module")
def data():
    """The three tables as pyarrow reads them: the counts' oracle, without Spark."""
    import pyarrow.parquet as pq

    from toolkit.spark import tpch

    paths = tpch.tables(SCALE, ("customer", "orders", "lineitem"))
    return {n: pq.read_table(p) for n, p in paths.items()}


def _customer_with_orders(data, building: bool) -> int:
    import pyarrow.compute as pc

    customers = data["customer"]
    segment = pc.equal(customers["c_mktsegment"], "BUILDING")
    has_orders = pc.is_in(customers["c_custkey"],
                          value_set=pc.unique(data["orders"]["o_custkey"]))
    chosen = customers.filter(pc.and_(segment if building else pc.invert(segment), has_orders))
    return chosen["c_custkey"][0].as_py()


def _where(table, column: str, values) -> int:
    import pyarrow as pa
    import pyarrow.compute as pc

    return table.filter(pc.is_in(table[column], value_set=pa.array(values))).num_rows


def test_each_source_gives_only_the_rows_of_the_rows_journey(spark, frames, data,
                                                             no_whole_reads):
    from toolkit import spark as tks

    customer = _customer_with_orders(data, building=True)
    journey = tks.explain_row(spark.sql(QUERY), f"c_custkey = {customer}")
    reads = {r.relation: r.rows for r in journey.reads}
    orders = data["orders"].filter(
        data["orders"]["o_custkey"].to_numpy() == customer)["o_orderkey"].to_pylist()
    lines = _where(data["lineitem"], "l_orderkey", orders)
    assert reads == {"customer": 1, "orders": len(orders), "lineitem": lines}
    assert 0 < len(orders) < 100 and 0 < lines < 500  # of 15,000 orders and 60,175 lines
    name = data["customer"].filter(
        data["customer"]["c_custkey"].to_numpy() == customer)["c_name"][0].as_py()
    kept = spark.sql(QUERY).filter(f"c_name = '{name}'").count() > 0  # Spark's own answer
    assert journey.kept == kept
    join = next(s for s in journey.stops if s.kind in ("Join", "ConditionJoin"))
    assert join.partners.found == len(orders)


def test_a_row_of_the_middle_source_reads_its_customer_and_its_lines(spark, frames, data,
                                                                     no_whole_reads):
    from toolkit import spark as tks

    order = data["orders"]["o_orderkey"][0].as_py()
    journey = tks.explain_row(spark.sql(QUERY), f"o_orderkey = {order}")
    reads = {r.relation: r.rows for r in journey.reads}
    assert reads == {"orders": 1, "customer": 1,
                     "lineitem": _where(data["lineitem"], "l_orderkey", [order])}


def test_the_filter_over_the_joins_is_spark_on_the_joined_row(spark, frames, data,
                                                              no_whole_reads):
    """A customer outside BUILDING gets through both joins and is dropped at the filter;
    each node the filter's story evaluated equals Spark's value of that sub-expression over
    the joined row (the row as the journey has it there, handed to Spark)."""
    from tests.spark.test_explain_row_spark import _evaluated_nodes
    from toolkit import spark as tks
    from toolkit.model.expression import Parameter
    from toolkit.model.field_ref import FieldRef
    from toolkit.plan.rules.base import substitute_columns

    customer = _customer_with_orders(data, building=False)
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
    row = spark.createDataFrame(before.rename_columns(names).to_pandas())  # the joined row
    renamed = before.rename_columns(names).schema
    checked = 0
    for story in stop.story.nodes:
        if not story.evaluated or story.value is None:
            continue
        expr = tree[tuple(story.path)]
        plain = substitute_columns(expr, {n: Parameter(FieldRef(c))
                                          for n, c in zip(before.schema.names, names)})
        spark_value = row.select(tks.to_column(plain, renamed).alias("v")).first()[0]
        ours = story.value.as_py()
        assert spark_value == (pytest.approx(ours) if isinstance(ours, float) else ours), \
            story.expression
        checked += 1
    assert checked >= 3


def test_a_comma_join_reads_the_rows_partner_and_names_the_term_that_stopped_it(
        spark, frames, data, no_whole_reads):
    """TPC-H Q12 joins orders and lineitem with a comma (a cross join under the filter
    holding `o_orderkey = l_orderkey`): a line committed after it was received reaches the
    filter beside its own order, read alone from Spark, and the filter's story names the
    date term, which Spark finds false on that line too."""
    from toolkit import spark as tks
    from toolkit.spark import tpch_sql

    query = spark.sql(tpch_sql.SQL[12])
    journey = tks.explain_row(query, "l_shipmode = 'MAIL' and l_commitdate >= l_receiptdate")
    assert {r.relation: r.rows for r in journey.reads} == {"lineitem": 10, "orders": 1}
    assert not journey.kept and journey.stops[-1].kind == "Filter"
    assert "`(lineitem.l_commitdate < lineitem.l_receiptdate)` is false" in journey.why
    join = journey.stops[-2]
    line = journey.stops[0].rows
    key = line["lineitem.l_orderkey"][0].as_py()
    number = line["lineitem.l_linenumber"][0].as_py()
    assert join.count == 1 and f"o_orderkey = {key}" in join.note
    in_spark = spark.table("lineitem").filter(f"l_orderkey = {key} and l_linenumber = {number}")
    assert in_spark.selectExpr("l_commitdate < l_receiptdate").first()[0] is False
    kept = tks.explain_row(query, "l_shipmode = 'MAIL' and l_commitdate < l_receiptdate and "
                           "l_shipdate < l_commitdate and year(l_receiptdate) = 1994")
    assert kept.kept and {r.relation: r.rows for r in kept.reads}["orders"] == 1
