"""`exprscope scan PATH --filter TEXT`: the scan explanation from the command line."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from toolkit.cli.command import main


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-scan")
    table = pa.table({"year": [2020, 2021, 2022] * 100, "x": list(range(300))})
    ds.write_dataset(table, root, format="parquet", partitioning=["year"],
                     partitioning_flavor="hive", max_rows_per_group=20, min_rows_per_group=20)
    return root


def test_prints_what_is_read_and_writes_the_report(folder, tmp_path, capsys):
    report = tmp_path / "scan.html"
    code = main(["scan", str(folder), "--filter", "year >= 2021 AND x < 50",
                 "--partitioning", "hive", "--html", str(report)])
    out = capsys.readouterr().out
    assert code == 0
    assert "reads 2 of 3 files · 2 of 15 row groups" in out
    assert "✗ 1 file skipped by year >= 2021   e.g. year=2020/part-0.parquet: year == 2020" in out
    assert "\x1b" not in out  # not a terminal: no color
    assert report.exists() and "year == 2020 contradicts" in report.read_text()


def test_directory_partitioning_by_field_names(tmp_path, capsys):
    table = pa.table({"year": [2020, 2021] * 10, "x": list(range(20))})
    ds.write_dataset(table, tmp_path, format="parquet", partitioning=["year"])
    assert main(["scan", str(tmp_path), "--filter", "year = 2021", "--partitioning", "year"]) == 0
    assert "reads 1 of 2 files" in capsys.readouterr().out


def test_mistakes_are_one_message_and_exit_2(folder, capsys):
    assert main(["scan", str(folder), "--filter", "yaer > 1", "--partitioning", "hive"]) == 2
    assert main(["scan", str(folder / "nope"), "--filter", "x > 1"]) == 2
    err = capsys.readouterr().err
    assert "yaer" in err and "no such file or folder" in err
    assert "Traceback" not in err


def test_limit_lists_the_first_files_and_counts_the_rest(folder, capsys):
    assert main(["scan", str(folder), "--filter", "x > 1", "--partitioning", "hive",
                 "--limit", "1"]) == 0
    assert "… 2 more files read" in capsys.readouterr().out
