"""`--data VAR` resolves what users hold their data in, and says clearly when it cannot."""

import pandas as pd
import pyarrow as pa
import pytest

from widgets.data_source import DataSourceError, resolve_data, to_arrow


def test_tables_and_batches_are_used_as_they_are(penguins):
    batch = penguins.to_batches()[0]
    assert resolve_data("t", {"t": penguins}) is penguins
    assert resolve_data("b", {"b": batch}) is batch


def test_pandas_dataframe_becomes_a_table_without_its_index():
    df = pd.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]}, index=[10, 11, 12])
    table = resolve_data("df", {"df": df})
    assert isinstance(table, pa.Table)
    assert table.column_names == ["a", "s"]
    assert table.column("a").to_pylist() == [1.0, 2.0, None]


def test_attribute_paths_reach_data_inside_objects(penguins):
    class Holder:
        data = penguins

    assert resolve_data("h.data", {"h": Holder()}) is penguins


def test_a_spark_like_dataframe_is_read_through_toArrow(penguins):
    """Spark DataFrames are recognised by module and `toArrow`, pyspark never imported here."""
    SparkLike = type("DataFrame", (), {"__module__": "pyspark.sql.dataframe",
                                       "schema": None, "toArrow": lambda self: penguins})
    assert to_arrow(SparkLike(), "sdf") is penguins


@pytest.mark.parametrize("name, namespace, message", [
    ("nope", {}, "no variable named 'nope'"),
    ("x.missing", {"x": 1}, "x has no attribute 'missing'"),
    ("1abc", {}, "wants a variable name"),
    ("n", {"n": 42}, "a int is not data exprscope can read"),
])
def test_bad_names_say_what_is_wrong(name, namespace, message):
    with pytest.raises(DataSourceError, match=message):
        resolve_data(name, namespace)
