"""Scans of every source kind, and execution as a stream of batches."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import csv

import toolkit as tk
from toolkit import plan
from toolkit.plan import sources


@pytest.fixture
def t():
    return pa.table({"id": pa.array(range(10), pa.int64()),
                     "v": pa.array([float(i) if i % 3 else None for i in range(10)])})


def _query(source):
    return (plan.scan("t", source).filter(tk.field("v") > 2)
            .project(["id", tk.field("v") * 10], names=["id", "v10"]))


def test_table_parquet_csv_and_pandas_sources_give_the_same_rows(t, tmp_path):
    pq.write_table(t, tmp_path / "t.parquet")
    csv.write_csv(t, tmp_path / "t.csv")
    expected = plan.create_physical_plan(_query(t)).collect()
    assert expected.column("id").to_pylist() == [4, 5, 7, 8]
    for source in (str(tmp_path / "t.parquet"), tmp_path / "t.csv", t.to_pandas()):
        p = plan.optimize(_query(source))
        # values, not types: a CSV file holds 1.0 as "1", read back as an integer
        assert plan.create_physical_plan(p).collect().to_pydict() == expected.to_pydict()
    labels = [plan.create_physical_plan(plan.scan("t", s)).label().split(":")[0]
              for s in (t, str(tmp_path / "t.parquet"), str(tmp_path / "t.csv"))]
    assert labels == ["MemoryExec", "ParquetExec", "CsvExec"]


def test_scan_of_an_unknown_file_or_format_says_so(tmp_path):
    with pytest.raises(plan.PlanError, match="no file at"):
        plan.scan("t", str(tmp_path / "missing.parquet"))
    (tmp_path / "t.json").write_text("{}")
    with pytest.raises(plan.PlanError, match="cannot tell the format"):
        plan.scan("t", str(tmp_path / "t.json"))


def test_execute_streams_batches_and_limit_stops_reading(t, monkeypatch):
    monkeypatch.setattr(sources, "BATCH_ROWS", 2)
    pulled = []

    class Counting(sources.TableSource):
        def batches(self, columns=None, limit=None):
            for batch in super().batches(columns, limit):
                pulled.append(batch.num_rows)
                yield batch

    physical = plan.create_physical_plan(
        plan.scan("t", Counting(t)).project(["id"]).limit(3), optimize=False)
    batches = list(physical.execute())
    assert [b.num_rows for b in batches] == [2, 1]
    assert all(isinstance(b, pa.RecordBatch) and b.schema == physical.schema for b in batches)
    assert sum(pulled) == 4  # two batches of two rows, not all ten


def test_physical_optimizer_pushes_the_limit_into_the_scan(t):
    p = plan.scan("t", t).project([tk.field("id") * 2], names=["d"]).limit(3, offset=2)
    physical = plan.create_physical_plan(p)
    assert [n.split(":")[0].strip() for n in physical.explain().splitlines()] == [
        "ProjectionExec", "GlobalLimitExec", "MemoryExec"]
    assert "fetch=5" in physical.explain()
    assert physical.collect().column(0).to_pylist() == [4, 6, 8]
    unoptimized = plan.create_physical_plan(p, optimize=False)
    assert unoptimized.collect().equals(physical.collect())


def test_left_join_null_extends_and_nulls_do_not_match():
    left = pa.table({"k": pa.array([1, 2, None], pa.int64()), "a": ["x", "y", "z"]})
    right = pa.table({"k": pa.array([1, None], pa.int64()), "b": [10, 20]})
    p = plan.scan("l", left).join(plan.scan("r", right), on="k", how="left").sort(
        [("a", "ascending")])
    out = plan.create_physical_plan(p).collect()
    assert out.column_names == ["k", "a", "k", "b"]
    rows = list(zip(*[c.to_pylist() for c in out.columns]))
    assert rows == [(1, "x", 1, 10), (2, "y", None, None), (None, "z", None, None)]


@pytest.mark.spark
def test_a_spark_dataframe_is_a_source(t, spark):
    session = spark
    df = session.createDataFrame(t)  # Spark 4 takes an Arrow table
    p = plan.scan("t", df)
    assert p.schema.names == ["id", "v"]
    physical = plan.create_physical_plan(plan.optimize(_query(df)))
    assert physical.label().startswith("ProjectionExec")
    assert "SparkScanExec" in physical.explain()
    expected = plan.create_physical_plan(_query(t)).collect()
    assert physical.collect().column("id").to_pylist() == expected.column("id").to_pylist()


def test_observers_see_each_expression_evaluated_whole(t):
    seen = []

    class Evals(tk.Observer):
        def on_eval(self, event):
            seen.append(event.expr.to_string())

    physical = plan.create_physical_plan(
        plan.scan("t", t).filter(tk.field("v") > 2).project([tk.field("v") * 10], names=["v10"]))
    with tk.observing(Evals()):
        physical.collect()
    assert seen == ["(t.v > 2)", "multiply_checked(t.v, 10)"]  # not their arguments one by one
