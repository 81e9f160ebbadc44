"""`exprscope explain/trace --substrait FILE`: a file's expressions or plan, explained like text."""

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyarrow.substrait as pa_substrait
import pytest
from google.protobuf import json_format
from substrait.extended_expression_pb2 import ExtendedExpression

import toolkit as tk
from toolkit import plan
from toolkit.cli.command import main

TABLE = pa.table({"a": [0, 1, 2, 0, 5], "b": [1, 2, 3, 4, 5], "s": ["x", "y", "z", "x", "y"]})

needs_plans = pytest.mark.skipif(not hasattr(plan, "from_substrait"),
                                 reason="plan.from_substrait (Substrait plans) has not landed")


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(TABLE, path)
    return str(path)


@pytest.fixture
def guarded(tmp_path):
    """exprscope's own ExtendedExpression of a guarded division."""
    path = tmp_path / "guarded.pb"
    path.write_bytes(tk.parse("if_else(a != 0, b / a, 0)").to_substrait(TABLE.schema))
    return str(path)


@pytest.fixture
def from_pyarrow(tmp_path):
    """Two named expressions as pyarrow writes them."""
    path = tmp_path / "two.pb"
    path.write_bytes(bytes(pa_substrait.serialize_expressions(
        [pc.field("a") + pc.field("b"), pc.field("a") > 1], ["total", "big"], TABLE.schema)))
    return str(path)


@pytest.fixture
def sql_plan(tmp_path):
    """DataFusion's Substrait Plan of a filtered projection over table `d`."""
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    ctx.register_record_batches("d", [TABLE.to_batches()])
    path = tmp_path / "plan.pb"
    path.write_bytes(bytes(Serde.serialize_bytes("SELECT s, b + 1 AS c FROM d WHERE a > 0", ctx)))
    return str(path)


def test_explain_a_substrait_expression_as_text_is_explained(capsys, guarded):
    assert main(["explain", "--substrait", guarded, "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "pass canonicalize" in out
    assert "optimized: if_else((a != 0), divide(b, a), 0)" in out


def test_explain_names_each_of_several_expressions_and_runs_them_on_data(capsys, from_pyarrow,
                                                                         data):
    assert main(["explain", "--substrait", from_pyarrow, "--data", data, "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "== expression 'total' (1 of 2) ==" in out and "== expression 'big' (2 of 2) ==" in out
    assert out.count("evaluate (lazy) on 5 rows: ok") == 2
    assert "optimized 'total': add_checked(a, b)" in out and "optimized 'big': (a > 1)" in out


def test_explain_with_a_guarantee_simplifies_the_files_expression(capsys, from_pyarrow):
    assert main(["explain", "--substrait", from_pyarrow, "--guarantee", "a = 5",
                 "--no-color"]) == 0
    assert "optimized 'big': true" in capsys.readouterr().out


def test_trace_evaluates_the_files_expression_with_selection_vectors(capsys, guarded, data,
                                                                     tmp_path):
    report = tmp_path / "r.html"
    assert main(["trace", "--substrait", guarded, "--data", data, "--no-color",
                 "--html", str(report)]) == 0
    out = capsys.readouterr().out
    assert "[then ▕·██·█▏ 3 of 5 rows (60.0%)] divide" in out
    assert "result (5 values of int64):" in out and "  1: 2" in out
    assert "divide" in report.read_text(encoding="utf-8")


def test_the_json_form_reads_as_the_binary_one(capsys, guarded, data, tmp_path):
    message = ExtendedExpression()
    with open(guarded, "rb") as f:
        message.ParseFromString(f.read())
    path = tmp_path / "guarded.json"
    path.write_text(json_format.MessageToJson(message))
    assert main(["trace", "--substrait", str(path), "--data", data, "--no-color"]) == 0
    assert "result (5 values of int64):" in capsys.readouterr().out


def test_data_columns_are_cast_to_the_messages_types(capsys, guarded, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n0,1\n1,2\n")  # read as int64 anyway; cast to the message's types
    small = tmp_path / "small.pb"
    small.write_bytes(tk.parse("a + b").to_substrait(pa.schema([("a", pa.int32()),
                                                                 ("b", pa.int32())])))
    assert main(["trace", "--substrait", str(small), "--data", str(path), "--no-color"]) == 0
    assert "result (2 values of int32):" in capsys.readouterr().out


def test_eager_evaluation_failing_names_the_row(capsys, guarded, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,s\n0,1,x\n")
    assert main(["trace", "--substrait", guarded, "--data", str(path), "--mode", "eager",
                 "--no-color"]) == 1
    captured = capsys.readouterr()
    assert "row 0 of the data: a=0, b=1, s='x'" in captured.out
    assert "evaluation failed: divide failed: divide by zero" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["explain", "--substrait", "/no/such.pb"], "--substrait: cannot read /no/such.pb"),
    (["explain", "a + 1", "--substrait", "GUARDED"], "leave out the expression text"),
    (["explain", "--substrait", "GUARDED", "--schema", "a:int64"], "leave out --schema"),
    (["explain", "--substrait", "GUARDED", "--pyarrow"], "leave out --pyarrow"),
    (["explain"], "explain needs an expression"),
    (["explain", "--substrait", "GARBAGE"], "neither a Substrait ExtendedExpression nor a Plan"),
    (["explain", "--substrait", "BADJSON"], "the JSON is not a Substrait"),
    (["trace", "--substrait", "GUARDED", "--data", "NARROW"],
     "reads the column 's', but"),
    (["trace", "--substrait", "GUARDED", "--data", "DATA", "--data", "DATA"],
     "--data is given more than once"),
    (["explain", "--substrait", "UNKNOWN_FUNCTION"], "no_such_function"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, guarded, data, argv, message):
    (tmp_path / "garbage.pb").write_bytes(b"\xff\xfe not protobuf")
    (tmp_path / "bad.json").write_text('{"referredExpr": [{"nope": 1}]}')
    pq.write_table(TABLE.select(["a", "b"]), tmp_path / "narrow.parquet")
    unknown = ExtendedExpression()
    unknown.ParseFromString(Path(guarded).read_bytes())
    unknown.extensions[0].extension_function.name = "no_such_function"
    (tmp_path / "unknown.pb").write_bytes(unknown.SerializeToString())
    files = {"GUARDED": guarded, "GARBAGE": str(tmp_path / "garbage.pb"), "DATA": data,
             "BADJSON": str(tmp_path / "bad.json"), "NARROW": str(tmp_path / "narrow.parquet"),
             "UNKNOWN_FUNCTION": str(tmp_path / "unknown.pb")}
    assert main([files.get(a, a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("exprscope: error: ") and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


# -- plans: the wiring, with a stand-in reader; then DataFusion's plan, read for real ---------
@pytest.fixture
def stand_in_reader(monkeypatch):
    """`plan.from_substrait` as the CLI calls it: records the tables it was given and scans
    the one table (this tests the CLI, not the reader)."""
    given = {}

    def reader(message, tables):
        given.update(tables)
        (name, table), = tables.items()
        return plan.scan(name, table).filter(tk.field("a") > 0).project(["s"])

    monkeypatch.setattr(plan, "from_substrait", reader, raising=False)
    return given


def test_explain_a_plan_reads_empty_tables_of_the_reads_schema(capsys, sql_plan,
                                                               stand_in_reader):
    assert main(["explain", "--substrait", sql_plan, "--no-color"]) == 0
    out = capsys.readouterr().out
    given = stand_in_reader["d"]  # the read's schema, no rows, labelled as not given
    assert given.table.num_rows == 0 and given.schema == TABLE.schema
    assert "MemoryExec: d (its data not given: --data PATH)" in out and "rows=0" not in out
    assert "initial_logical_plan:" in out and "physical_plan:" in out and "invariant" in out
    assert "result (" not in out  # no data: explained, not run


def test_explain_a_plan_with_data_runs_it(capsys, sql_plan, data, stand_in_reader):
    assert main(["explain", "--substrait", sql_plan, "--data", f"d={data}", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert stand_in_reader["d"].num_rows == 5
    assert "result (3 rows):" in out and "  0: s='y'" in out


def test_trace_a_plan_shows_its_steps_and_result(capsys, sql_plan, data, stand_in_reader):
    assert main(["trace", "--substrait", sql_plan, "--data", data, "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "result (3 rows):" in out and "evaluate" in out


def test_data_for_a_table_the_plan_does_not_read_is_refused(capsys, sql_plan, data,
                                                            stand_in_reader):
    assert main(["explain", "--substrait", sql_plan, "--data", f"flights={data}"]) == 2
    assert "the plan reads no table called 'flights' (it reads d)" in capsys.readouterr().err


@needs_plans
def test_datafusions_plan_explained_and_run(capsys, sql_plan, data):
    assert main(["explain", "--substrait", sql_plan, "--data", data, "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "initial_logical_plan:" in out and "physical_plan:" in out
    assert "result (3 rows):" in out


@needs_plans
def test_datafusions_plan_traced(capsys, sql_plan, data):
    assert main(["trace", "--substrait", sql_plan, "--data", data, "--no-color"]) == 0
    assert "result (3 rows):" in capsys.readouterr().out
