"""`--data` accepts a Spark DataFrame: the magics read it through Arrow."""

import pytest

import toolkit as tk
from widgets import SelectionView

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark_penguins(spark, penguins):
    return spark.createDataFrame(penguins.to_pandas())


def test_expr_binds_to_a_spark_dataframe(ip, spark_penguins):
    ip.user_ns["sdf"] = spark_penguins
    expr = ip.run_line_magic("expr", "--data sdf bill_length_mm > 40 and sex = 'male'")
    assert expr.is_bound
    assert expr.args[0].args[0].type == spark_penguins.toArrow().schema.field("bill_length_mm").type


def test_trace_evaluates_a_spark_dataframe_row_by_row(ip, spark_penguins, penguins):
    ip.user_ns["sdf"] = spark_penguins
    view = ip.run_cell_magic("trace", "--data sdf", "coalesce(bill_length_mm, -1.0)")
    assert isinstance(view, SelectionView) and view.rows.num_rows == 344
    values = [r["value"] for r in view.rows.page(0, 344)]
    expected = tk.evaluate(tk.coalesce(tk.field("bill_length_mm"), -1.0), penguins).to_pylist()
    assert sorted(values) == sorted(expected)  # Spark may hand rows over in another order


def test_the_guides_path_from_a_spark_dataframe_to_the_explorer(ip, spark_penguins):
    """docs/jupyter.md: `%%trace --data <Spark DataFrame> --out NAME`, then `Explorer(NAME)`."""
    from widgets import Explorer

    ip.user_ns["penguins_df"] = spark_penguins
    ip.run_cell_magic("trace", "--data penguins_df --out penguins_trace",
                      "if(bill_depth_mm > 18, bill_length_mm / bill_depth_mm, 0)")
    explorer = Explorer(ip.user_ns["penguins_trace"])
    assert explorer.current.num_rows == 344 and "if_else" in explorer.tree.value
