"""A scan explanation as a person sees it: terminal text, the notebook table, the report."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import toolkit as tk
from toolkit.render.scan_html import scan_html


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A dataset whose partition values and column names carry markup and terminal escapes."""
    table = pa.table({
        "tag": ["<img src=x onerror=alert(1)>", "\x1b[31mred\u202e", "plain"] * 40,
        "v": list(range(120)),
    })
    root = tmp_path_factory.mktemp("hostile")
    part = ds.partitioning(pa.schema([("tag", pa.utf8())]), flavor="hive")
    ds.write_dataset(table, root, format="parquet", partitioning=part,
                     max_rows_per_group=10, min_rows_per_group=10)
    return ds.dataset(root, format="parquet", partitioning=part)


def test_text_has_totals_a_bar_and_a_line_per_file(hostile):
    scan = tk.explain_scan(hostile, "tag = 'plain' AND v < 30")
    text = tk.to_text(scan, color=False, width=200)
    lines = text.splitlines()
    assert lines[1].startswith("reads 1 of 3 files · 1 of 12 row groups")
    assert lines[2].startswith("▕") and "% of bytes" in lines[2]
    assert sum(line.startswith("✓") for line in lines) == 1
    assert sum(line.startswith("✗ 2 files skipped by tag == \"plain\"") for line in lines) == 1
    assert "1 of 4 row groups   10 rows   skipped 3, e.g. group 1: v >= 32 contradicts v < 30" in text


def test_no_escape_or_markup_from_the_data_reaches_the_screen(hostile):
    scan = tk.explain_scan(hostile, "tag = 'plain'")
    text = tk.to_text(scan, color=False, width=200)
    assert 'tag == "\\x1b[31mred\\u202e"' in text or 'tag == "<img' in text
    assert "\x1b" not in text and "\u202e" not in text
    page = scan_html(scan)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_report_lists_every_file_with_its_row_groups(hostile, tmp_path):
    scan = tk.explain_scan(hostile, "tag != 'plain'")
    path = tk.write_report(scan, tmp_path / "scan.html")
    page = path.read_text()
    assert page.count("<details>") == 3
    assert "<img" not in page and "\x1b" not in page
    assert "Content-Security-Policy" in page


def test_the_notebook_table_pages_long_scans(tmp_path):
    table = pa.table({"k": list(range(120)), "v": list(range(120))})
    part = ds.partitioning(pa.schema([("k", pa.int64())]), flavor="hive")
    ds.write_dataset(table, tmp_path, format="parquet", partitioning=part)
    scan = tk.explain_scan(ds.dataset(tmp_path, format="parquet", partitioning=part), "k < 3")
    first = scan_html(scan)
    assert "files 1–50 of 120 (page 1 of 3)" in first
    assert first.count("<tr") == 51
    last = scan_html(scan, page=2)
    assert "files 101–120 of 120 (page 3 of 3)" in last
    bundle = scan._repr_mimebundle_()
    assert "text/html" in bundle and bundle["text/plain"].startswith("filter:")
    assert "✗ 117 files skipped by k < 3" in bundle["text/plain"]


@pytest.mark.parametrize(("keep", "shown", "filled"), [(1, "<1% of bytes", 1),
                                                      (199, ">99% of bytes", 39)])
def test_the_bar_shows_a_small_read_and_a_small_skip(tmp_path, keep, shown, filled):
    table = pa.table({"k": list(range(200)), "v": [b"x" * 400] * 200})
    part = ds.partitioning(pa.schema([("k", pa.int64())]), flavor="hive")
    ds.write_dataset(table, tmp_path, format="parquet", partitioning=part)
    dataset = ds.dataset(tmp_path, format="parquet", partitioning=part)
    bar = tk.to_text(tk.explain_scan(dataset, f"k < {keep}"), color=False,
                     width=200).splitlines()[2]
    assert bar.endswith(shown) and bar.count("█") == filled
