"""Engine mode's worker scans: the Python workers read Parquet files themselves and hand
the fragment exactly the rows Spark's own reader gives, or the scan stays on the JVM
path with the reason in the stage description."""

from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan

pytestmark = pytest.mark.spark

WORKERS = "read from Parquet by the Python workers"
JVM = "read by Spark's JVM: "

DECIMAL = pa.decimal128(12, 3)
DATE0 = datetime.date(1970, 1, 1)


def _worker_read(df, spark):
    """The rows the workers read for `df`'s columns, or the JVM's reason."""
    from toolkit.spark.running.parquet_scan import UnitsReader, WorkerScan, plan_worker_scan
    from toolkit.spark.running.source import SparkSource

    schema = SparkSource(df).schema
    path = plan_worker_scan(df, list(schema.names), schema, spark)
    if not isinstance(path, WorkerScan):
        return path
    reader = UnitsReader(path, schema, batch_rows=7)
    ids = pa.RecordBatch.from_pydict({"id": pa.array(range(len(path.partitions)), pa.int64())})
    return pa.Table.from_batches(list(reader(iter([ids]))), schema=schema)


def _same_rows(expected: pa.Table, got: pa.Table):
    from toolkit.spark.running.compare import tables_differences

    comparison = tables_differences(expected, got, rel_tol=0, abs_tol=0)
    assert comparison.equal, str(comparison)


@st.composite
def _files(draw):
    """Several Parquet files of one relation: nulls everywhere, several row groups, the
    columns' names in another case per file, an integer column as int32 in some files and
    int64 in others, a column some files lack."""
    n_files = draw(st.integers(1, 3))
    files = []
    for f in range(n_files):
        rows = draw(st.integers(0, 40))

        def column(values, rows=rows):
            return draw(st.lists(st.one_of(st.none(), values), min_size=rows, max_size=rows))

        ints = column(st.integers(-2**31, 2**31 - 1))
        amounts = column(st.decimals(min_value=-10**8, max_value=10**8, places=3,
                                     allow_nan=False, allow_infinity=False))
        days = column(st.integers(-50_000, 50_000))
        texts = column(st.text(max_size=6))
        floats = column(st.floats(allow_nan=True, width=64))
        names = {"id": draw(st.sampled_from(["id", "ID", "Id"])),
                 "amount": draw(st.sampled_from(["amount", "AMOUNT", "Amount"])),
                 "day": draw(st.sampled_from(["day", "Day"])),
                 "text": draw(st.sampled_from(["text", "TEXT"])),
                 "x": "x"}
        columns = {
            names["id"]: pa.array(ints, draw(st.sampled_from([pa.int32(), pa.int64()]))),
            names["amount"]: pa.array([None if a is None else decimal.Decimal(a)
                                       for a in amounts], DECIMAL),
            names["day"]: pa.array([None if d is None else DATE0 + datetime.timedelta(d)
                                    for d in days], pa.date32()),
            names["text"]: pa.array(texts, pa.string()),
        }
        if draw(st.booleans()):  # the other files read this column as nulls
            columns[names["x"]] = pa.array(floats, pa.float64())
        order = draw(st.permutations(list(columns)))
        files.append((pa.table({k: columns[k] for k in order}),
                      draw(st.integers(1, 16))))  # rows per row group
    return files


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(files=_files())
def test_the_workers_read_the_rows_sparks_own_reader_reads(spark, tmp_path_factory, files):
    from pyspark.sql.types import (
        DateType,
        DecimalType,
        DoubleType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    folder = tmp_path_factory.mktemp("parquet")
    for n, (table, group_rows) in enumerate(files):
        pq.write_table(table, folder / f"part-{n}.parquet", row_group_size=group_rows)
    schema = StructType([StructField("Id", LongType()), StructField("amount", DecimalType(12, 3)),
                         StructField("DAY", DateType()), StructField("text", StringType()),
                         StructField("x", DoubleType())])
    df = spark.read.schema(schema).parquet(str(folder))
    got = _worker_read(df, spark)
    assert isinstance(got, pa.Table), got
    expected = df.toArrow()
    assert got.schema.names == ["Id", "amount", "DAY", "text", "x"]
    assert got.num_rows == sum(t.num_rows for t, _ in files)
    _same_rows(expected, got)


@pytest.fixture(scope="module")
def lineitem(spark):
    from toolkit.spark import tpch

    return tpch.tables(0.01, ["lineitem"])["lineitem"]


def _q(source):
    """Shipped quantities per return flag, over rows a filter keeps."""
    shipped = tk.field("l_shipdate") <= tk.literal(datetime.date(1998, 9, 2))
    return (plan.scan("lineitem", source).filter(shipped)
            .aggregate(["l_returnflag"], [("sum", "l_quantity", "qty")]))


def _expected(spark, df):
    from pyspark.sql import functions as F

    return (df.filter(F.col("l_shipdate") <= F.lit(datetime.date(1998, 9, 2)))
            .groupBy("l_returnflag").agg(F.sum("l_quantity").alias("qty")).toArrow())


def _scan_stage(run) -> str:
    found = [s for s in run.stages if "lineitem" in s]
    assert found, run.stages
    return found[0]


def test_a_parquet_scan_is_read_by_the_workers_and_counted(spark, lineitem):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    df = spark.read.parquet(lineitem)
    run = tks.run(_q(df), mode="engine")
    comparison = tables_differences(_expected(spark, df), run.to_arrow(), rel_tol=1e-9)
    assert comparison.equal, str(comparison)
    assert WORKERS in _scan_stage(run)
    scan_stage = next(s for s in run.trace.batches if s.endswith("partial"))
    assert run.trace.batches[scan_stage]["rows_in"] == df.count()  # every row, read once
    jvm = tks.run(_q(df), mode="engine", worker_scans=False)
    assert tables_differences(jvm.to_arrow(), run.to_arrow(), rel_tol=1e-9).equal
    assert "worker scans are off" in _scan_stage(jvm)
    assert "Spark pre-filters the scan" in _scan_stage(jvm)


def _fallback(spark, df, reason: str):
    from toolkit import spark as tks
    from toolkit.spark.running.compare import tables_differences

    run = tks.run(_q(df), mode="engine")
    comparison = tables_differences(_expected(spark, df), run.to_arrow(), rel_tol=1e-9)
    assert comparison.equal, str(comparison)
    stage = _scan_stage(run)
    assert WORKERS not in stage and JVM + reason in stage, stage


def test_a_csv_scan_stays_on_the_jvm_and_says_why(spark, lineitem, tmp_path):
    from toolkit.spark import tpch

    columns = ["l_returnflag", "l_quantity", "l_shipdate"]
    table = pq.read_table(tpch.tables(0.01, ["lineitem"])["lineitem"], columns=columns)
    spark.read.parquet(lineitem).select(*columns).write.csv(str(tmp_path / "csv"), header=True)
    df = spark.read.csv(str(tmp_path / "csv"), header=True,
                        schema="l_returnflag string, l_quantity double, l_shipdate date")
    assert df.count() == table.num_rows
    _fallback(spark, df, "the files are read by CSVFileFormat, not Parquet")


def test_a_created_dataframe_stays_on_the_jvm_and_says_why(spark, lineitem):
    table = pq.read_table(lineitem, columns=["l_returnflag", "l_quantity", "l_shipdate"])
    df = spark.createDataFrame(table.slice(0, 2000).to_pandas())
    _fallback(spark, df, "Spark's plan of the scan is a LocalRelation, not a plain file relation")


def test_a_filtered_dataframe_and_partition_columns_stay_on_the_jvm(spark, lineitem, tmp_path):
    from pyspark.sql import functions as F

    df = spark.read.parquet(lineitem)
    _fallback(spark, df.filter(F.col("l_quantity") > 10),
              "Spark's plan of the scan is a Filter, not a plain file relation")
    df.select("l_returnflag", "l_quantity", "l_shipdate").write.partitionBy("l_returnflag") \
        .parquet(str(tmp_path / "by_flag"))
    _fallback(spark, spark.read.parquet(str(tmp_path / "by_flag")),
              "partition columns (l_returnflag) come from the directory names")


def test_int96_timestamps_and_ambiguous_names_stay_on_the_jvm(spark, tmp_path):
    stamps = pa.table({"t": pa.array([datetime.datetime(2001, 2, 3, 4, 5, 6, 7), None],
                                     pa.timestamp("us")), "n": [1, 2]})
    pq.write_table(stamps, tmp_path / "int96.parquet", use_deprecated_int96_timestamps=True)
    got = _worker_read(spark.read.parquet(str(tmp_path / "int96.parquet")), spark)
    assert "is an INT96 timestamp" in got.reason
    pq.write_table(pa.table({"a": [1], "A": [2]}), tmp_path / "twice.parquet")
    df = spark.read.schema("a long").parquet(str(tmp_path / "twice.parquet"))
    assert "columns named like 'a'" in _worker_read(df, spark).reason
    pq.write_table(pa.table({"a": pa.array([1.5], pa.float64())}), tmp_path / "f.parquet")
    df = spark.read.schema("a float").parquet(str(tmp_path / "f.parquet"))
    assert "is double in the file and float in the scan" in _worker_read(df, spark).reason


def test_a_metadata_column_stays_on_the_jvm(spark, tmp_path):
    pq.write_table(pa.table({"a": [1, 2]}), tmp_path / "m.parquet")
    df = spark.read.parquet(str(tmp_path / "m.parquet")).select("a", "_metadata.file_name")
    assert "computes a column" in _worker_read(df, spark).reason
    df = spark.read.parquet(str(tmp_path / "m.parquet")).select("a", "_metadata")
    assert "'_metadata' is not one of the files' columns" in _worker_read(df, spark).reason
