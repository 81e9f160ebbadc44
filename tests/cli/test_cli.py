"""The `exprscope` command: the story in the terminal, the report on disk, no tracebacks."""

import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from toolkit.cli.command import main


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"a": [0, 1, 2, 0, 5], "b": [1, 2, 3, 4, 5]}), path)
    return str(path)


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n0,1\n1,2\n2,3\n")
    return str(path)


def test_explain_prints_each_pass_and_writes_the_report(capsys, tmp_path):
    out_file = tmp_path / "r.html"
    code = main(["explain", "3 < a + (1 + 2)", "--schema", "a:int64", "--html", str(out_file),
                 "--no-color"])
    out = capsys.readouterr().out
    assert code == 0
    assert "pass canonicalize: " in out and "⟲ canonicalize/flip-comparison" in out
    assert "~ greater: bool [canonicalize/flip-comparison] (was less)" in out
    assert "optimized: (add(3, a) > 3)" in out
    assert f"report: {out_file}" in out and out_file.read_text().count('class="step"') >= 2


def test_explain_with_a_guarantee_and_data(capsys, data):
    code = main(["explain", "a = 1 and b > 2", "--data", data, "--guarantee", "a = 1",
                 "--no-color"])
    out = capsys.readouterr().out
    assert code == 0
    assert "pass simplify_with_guarantee:" in out and "optimized: (b > 2)" in out
    assert "evaluate (lazy) on 5 rows: ok" in out  # with data the expression also runs
    # each rule names the node it changed as 'subtree at' reads it: a = 1 is at 0, a at 0/0
    assert "known-value at 0/0:" in out and "evaluate-literals at 0:" in out
    assert "and-true at root:" in out


def test_explain_writes_positions_one_way(capsys):
    assert main(["explain", "x * (2 * 2) > 1 and x > 0", "--schema", "x:int64",
                 "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "fold_constants/evaluate-literals at 0/0/0:" in out and " at 0.0" not in out


def test_trace_shows_selection_vectors(capsys, data, tmp_path):
    code = main(["trace", "if_else(a != 0, b / a, 0)", "--data", data, "--no-color",
                 "--svg-dir", str(tmp_path / "svg")])
    out = capsys.readouterr().out
    assert code == 0
    assert "[then ▕·██·█▏ 3 of 5 rows (60.0%)] divide" in out
    assert "result (5 values of int64):" in out and "  1: 2" in out
    assert [p.suffix for p in (tmp_path / "svg").iterdir()] == [".svg"]


def test_eager_trace_fails_with_the_row_not_a_traceback(capsys, csv):
    code = main(["trace", "if_else(a != 0, b / a, 0)", "--data", csv, "--mode", "eager",
                 "--no-color"])
    captured = capsys.readouterr()
    assert code == 1
    assert "row 0 of the data: a=0, b=1" in captured.out
    assert "exprscope: error: evaluation failed: divide failed: divide by zero" in captured.err
    assert "try --mode lazy" in captured.err and "Traceback" not in captured.err


@pytest.mark.parametrize("argv, message, caret", [
    (["explain", "a + * 3", "--schema", "a:int64"], "cannot parse", "        ^"),
    (["explain", "a + 1", "--schema", "a:in64"], "unknown type 'in64'", "    ^^^^"),
    (["explain", "a + zz", "--schema", "a:int64"], "cannot bind the expression: no field 'zz'",
     "      ^^"),
    (["explain", "a + divde(a, 2)", "--schema", "a:int64"],
     "no function is called 'divde'; did you mean 'divide'?", "      ^^^^^"),
    (["explain", "a + 1"], "explain needs the field types", None),
    (["trace", "a + 1", "--data", "/no/such.parquet"], "no such file", None),
])
def test_input_errors_are_one_message_and_exit_2(capsys, argv, message, caret):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("exprscope: error: ") and message in err
    assert "Traceback" not in err
    if caret:
        assert caret in err.rstrip("\n").splitlines()  # a caret under the culprit
    else:
        assert len(err.strip().splitlines()) == 1  # bind errors: one message


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["trace", "a + 1"])  # --data is required
    assert exit_info.value.code == 2 and "--data" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("exprscope") is None and not
                    (sys.prefix and shutil.which("exprscope", path=f"{sys.prefix}/bin")),
                    reason="the console script is not installed")
def test_the_console_script(data):
    exe = shutil.which("exprscope", path=f"{sys.prefix}/bin") or shutil.which("exprscope")
    out = subprocess.run([exe, "explain", "a + * 3", "--schema", "a:int64"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.splitlines()[-1].strip() == "^" and "Traceback" not in out.stderr
