"""The `exprscope` command in a narrow terminal: plans, trees and errors fit the columns,
break between words, and say nothing false about what they were given."""

import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pyarrow.substrait as pa_substrait
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.cli.command import main
from toolkit.cli.folding import fold_message
from toolkit.render.text import display_width

TABLE = pa.table({"a": [0, 1, 2, 0, 5], "b": [1.5, 2.5, 3.5, 4.5, 5.5], "s": list("xyzxy")})


def _run(argv, columns: int, capsys, monkeypatch) -> tuple[int, str, str]:
    """main() as a terminal of `columns` columns runs it (COLUMNS is what it reads)."""
    monkeypatch.setenv("COLUMNS", str(columns))
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _widest(text: str) -> int:
    return max((display_width(line) for line in text.splitlines()), default=0)


@pytest.fixture
def datafusion_plan(tmp_path):
    """DataFusion's Substrait plan with casts in every stage, as the issue printed it."""
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    ctx.register_record_batches("t", [TABLE.to_batches()])
    path = tmp_path / "plan.pb"
    path.write_bytes(bytes(Serde.serialize_bytes(
        "SELECT s, CAST(a AS DOUBLE) + 1 AS c, CAST(a AS VARCHAR) AS z, CAST(b AS BIGINT) AS n "
        "FROM t WHERE a > 0", ctx)))
    return str(path)


def test_a_datafusion_plan_fits_80_columns_with_its_casts_written_short(
        datafusion_plan, capsys, monkeypatch):
    code, out, _ = _run(["explain", "--substrait", datafusion_plan, "--no-color"], 80, capsys,
                        monkeypatch)
    assert code == 0
    assert _widest(out) <= 80, out
    assert "allow_int_overflow" not in out and "{to_type=double}" in out
    # a folded node's continuation is deeper than the node's input, never read as a node
    lines = out.splitlines()
    stage = lines[lines.index("physical_plan:") + 1:lines.index("invariant_checks:")]
    nodes = [line for line in stage if "Exec:" in line]
    assert [line.split(":")[0].strip() for line in nodes] == \
        ["ProjectionExec", "FilterExec", "MemoryExec"]
    depth = [len(line) - len(line.lstrip()) for line in nodes]
    continued = [line for line in stage if "Exec:" not in line]
    assert continued and all(len(line) - len(line.lstrip()) > depth[1] for line in continued)


def test_a_plan_without_data_says_its_table_was_not_given(datafusion_plan, capsys, monkeypatch):
    _, out, _ = _run(["explain", "--substrait", datafusion_plan, "--no-color"], 80, capsys,
                     monkeypatch)
    assert "rows=0" not in out
    assert "MemoryExec: t (its data not given: --data PATH)" in out


def _table(names):
    return pa.table({n: pa.array([1, 2, 3], pa.int64()) for n in names})


_NAMES = st.lists(st.from_regex(r"[a-z][a-z_0-9]{0,40}", fullmatch=True), min_size=1, max_size=5,
                  unique=True)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=_NAMES, depth=st.integers(0, 4), values=st.integers(1, 40),
       width=st.integers(40, 120))
def test_every_line_of_a_random_plan_fits_the_width(tmp_path_factory, capsys, monkeypatch,
                                                    names, depth, values, width):
    table = _table(names)
    column = tk.field(names[0])
    computed = []
    for name in names:
        e = tk.field(name)
        for k in range(depth):  # nested casts, each with Arrow's seven options
            e = e.cast("float64" if k % 2 == 0 else "int64")
        computed.append(tk.call("round", [e.cast("float64")], pc.RoundOptions(2)) + 1)
    p = plan.scan("t", table).filter(
        tk.call("is_in", [column], pc.SetLookupOptions(pa.array(list(range(values)))))).project(
        computed, names=[f"out_{n}" for n in names])
    path = tmp_path_factory.mktemp("plan") / "p.pb"
    path.write_bytes(p.to_substrait())
    code, out, err = _run(["explain", "--substrait", str(path), "--no-color"], width, capsys,
                          monkeypatch)
    assert code == 0, err
    assert _widest(out) <= width, out
    assert "allow_int_overflow" not in out and "null_matching_behavior" not in out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=_NAMES, pick=st.integers(0, 4), typo=st.sampled_from(["swap", "drop", "double"]),
       width=st.integers(40, 120), prefix=st.integers(0, 12))
def test_every_error_fits_the_width_and_breaks_only_between_words(capsys, monkeypatch, names,
                                                                  pick, typo, width, prefix):
    name = names[pick % len(names)]
    if typo == "swap" and len(name) > 2:
        wrong = name[0] + name[2] + name[1] + name[3:]
    elif typo == "drop" and len(name) > 3:
        wrong = name[:-1]
    else:
        wrong = name + name[-1]
    if wrong in names:
        return
    text = " + ".join(names[:prefix % len(names)] + [wrong]) + " > 2022"
    spec = ",".join(f"{n}:int64" for n in names)
    code, _, err = _run(["explain", text, "--schema", spec], width, capsys, monkeypatch)
    assert code == 2
    lines = err.splitlines()
    assert _widest(err) <= width, err
    # the caret stands under the misspelled name
    carets = next(i for i, line in enumerate(lines) if line.strip() and set(line.strip()) == {"^"})
    column = lines[carets].index("^")
    assert lines[carets - 1][column:].startswith(wrong[: lines[carets].count("^")]), err
    # every word of the message is whole on one line (no "yea⏎r")
    words = f"no field {wrong!r}".split()
    assert all(any(word in line for line in lines) for word in words), err


# words hold no separator: spaces (Zs) part words, and line and paragraph separators
# (Zl, Zp: U+2028, U+2029) part lines as Python's splitlines reads them
@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=0x3000,
                                            blacklist_categories=("Cs", "Zs", "Zl", "Zp",
                                                                  "Cc")),
                              min_size=1, max_size=30), min_size=1, max_size=40),
       width=st.integers(40, 120))
def test_folding_a_message_keeps_every_word_that_fits_a_line_whole(words, width):
    message = "exprscope: error: " + " ".join(words)
    folded = fold_message(message, width).splitlines()
    assert all(display_width(line) <= width for line in folded), folded
    for word in words:
        if display_width(word) <= width - 2:
            assert any(word in line.split(" ") for line in folded), (word, folded)


def test_the_issues_mistyped_field_does_not_break_inside_a_word(capsys, monkeypatch):
    text = "yeer + 1 > 3 and something_long_here > 4"
    _, _, err = _run(["explain", text, "--schema", "year:int64,something_long_here:int64"], 80,
                     capsys, monkeypatch)
    assert _widest(err) <= 80
    assert any("'year'?" in line for line in err.splitlines()), err


def test_a_long_line_keeps_its_caret_under_the_culprit_in_a_window(capsys, monkeypatch):
    names = [f"column_number_{k}" for k in range(12)]
    text = " + ".join(names) + " + colunm_number_11"
    _, _, err = _run(["explain", text, "--schema", ",".join(f"{n}:int64" for n in names)], 80,
                     capsys, monkeypatch)
    lines = err.splitlines()
    assert _widest(err) <= 80, err
    carets = next(i for i, line in enumerate(lines) if set(line.strip()) == {"^"})
    column = lines[carets].index("^")
    assert lines[carets - 1][column:].startswith("colunm_number_11"), err


def test_explain_of_a_pyarrow_expression_no_pass_changes_draws_its_tree(tmp_path, capsys,
                                                                       monkeypatch):
    path = tmp_path / "pyarrow.pb"
    path.write_bytes(bytes(pa_substrait.serialize_expressions(
        [pc.field("a") + pc.field("b")], ["total"], pa.schema([("a", pa.int64()),
                                                               ("b", pa.int64())]))))
    code, out, _ = _run(["explain", "--substrait", str(path), "--no-color"], 80, capsys,
                        monkeypatch)
    assert code == 0
    assert "no pass changed the expression" in out
    assert "├── a: int64" in out and "└── b: int64" in out


def test_the_cli_at_80_columns_in_a_child_process(datafusion_plan, tmp_path):
    """COLUMNS=80 as a terminal sets it, the command run as a user runs it."""
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": os.getcwd()}
    out = subprocess.run([sys.executable, "-m", "toolkit.cli", "explain", "--substrait",
                          datafusion_plan, "--no-color"], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert _widest(out.stdout) <= 80
    out = subprocess.run([sys.executable, "-m", "toolkit.cli", "explain", "a + divde(a, 2)",
                          "--schema", "a:int64"], capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 2 and _widest(out.stderr) <= 80
    assert out.stderr.splitlines()[-2:] == ["  a + divde(a, 2)", "      ^^^^^"]


# -- help that applies ------------------------------------------------------------------------
@pytest.fixture
def hive(tmp_path):
    root = tmp_path / "hive"
    ds.write_dataset(pa.table({"x": [1, 2, 3], "year": [2021, 2022, 2022]}), root,
                     format="parquet", partitioning=["year"], partitioning_flavor="hive")
    return str(root)


def test_a_mistyped_field_of_a_hive_dataset_gets_the_near_name_and_no_partition_advice(
        hive, capsys, monkeypatch):
    code, _, err = _run(["scan", hive, "--filter", "yeer >= 2022"], 80, capsys, monkeypatch)
    assert code == 2 and "did you mean 'year'?" in err
    assert "hint" not in err and "--partitioning" not in err and "none found" not in err


def test_key_value_folders_read_without_partitioning_get_the_hive_advice(hive, capsys,
                                                                           monkeypatch):
    code, _, err = _run(["scan", hive, "--filter", "year >= 2022", "--partitioning", "none"], 80,
                        capsys, monkeypatch)
    assert code == 2 and "--partitioning hive" in " ".join(err.split())


def test_plain_folders_get_the_advice_to_name_their_levels(tmp_path, capsys, monkeypatch):
    for year in (2021, 2022):
        os.makedirs(tmp_path / "plain" / str(year))
        pq.write_table(pa.table({"x": [1]}), tmp_path / "plain" / str(year) / "p.parquet")
    code, _, err = _run(["scan", str(tmp_path / "plain"), "--filter", "year >= 2022"], 80, capsys,
                        monkeypatch)
    said = " ".join(err.split())
    assert code == 2 and "--partitioning year" in said and "--partitioning hive" not in said


def test_files_in_one_folder_get_no_partition_advice(tmp_path, capsys, monkeypatch):
    pq.write_table(pa.table({"x": [1]}), tmp_path / "p.parquet")
    code, _, err = _run(["scan", str(tmp_path), "--filter", "year >= 2022"], 80, capsys,
                        monkeypatch)
    assert code == 2 and "no field 'year'" in err and "hint" not in err
