"""A scan says what it reads: data, footers only, or nothing; the CLI finds hive folders."""

import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

import toolkit as tk
from toolkit.render.scan_html import scan_report_html


def _dataset(root):
    table = pa.table({"day": list(range(1, 29)), "v": list(range(28))})
    for year in (2021, 2022):
        os.makedirs(root / f"year={year}", exist_ok=True)
        pq.write_table(table, root / f"year={year}" / "part.parquet", row_group_size=7)
    return ds.dataset(root, format="parquet", partitioning="hive")


def test_a_file_whose_every_row_group_is_skipped_has_its_footer_read_not_its_data(tmp_path):
    scan = tk.explain_scan(_dataset(tmp_path), "year = 2022 and day > 40")
    # pyarrow's own scan reads no row group of either file
    frags = list(_dataset(tmp_path).get_fragments(filter=ds.field("year") == 2022))
    assert sum(len(f.subset(ds.field("day") > 40).row_groups) for f in frags) == 0
    text = tk.to_text(scan, color=False, width=200)
    assert "reads 0 of 2 files (and 1 footer only)" in text
    assert "◌ year=2022/part.parquet   footer read, data not: all 4 row groups skipped" in text
    assert "✓" not in text
    html = scan_report_html(scan, "scan", "default-src 'none'")
    assert "footer only" in html and "reads <b>0</b> of 2 files" in html


def test_the_report_details_have_real_line_breaks(tmp_path):
    scan = tk.explain_scan(_dataset(tmp_path), "year = 2022 and day > 20")
    html = scan_report_html(scan, "scan", "default-src 'none'")
    details = html[html.index("<pre>"):html.index("</pre>")]
    assert "\\n" not in details and details.count("\n") > 2


def test_the_cli_reads_hive_folders_by_default_and_hints_at_partitions(tmp_path):
    _dataset(tmp_path / "hive")
    run = [sys.executable, "-m", "toolkit.cli", "scan"]
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "COLUMNS": "100"}
    out = subprocess.run(run + [str(tmp_path / "hive"), "--filter", "year = 2022"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert "reads 1 of 2 files" in out.stdout
    plain = tmp_path / "plain" / "2022"
    os.makedirs(plain)
    pq.write_table(pa.table({"day": [1, 2]}), plain / "part.parquet")
    out = subprocess.run(run + [str(tmp_path / "plain"), "--filter", "year = 2022"],
                         capture_output=True, text=True, timeout=120, env=env)
    said = " ".join(out.stderr.split())  # folded to the 100 columns between words
    assert out.returncode != 0 and "no field 'year'" in said
    assert "hint: 'year' may be a partition field" in said
    # one folder level: its one name, never the default `hive` given already
    assert said.endswith("--partitioning year") and "Traceback" not in out.stderr


def test_one_skipped_group_is_one_group(tmp_path):
    scan = tk.explain_scan(_dataset(tmp_path), "day > 7")  # days 1-7 are each file's first group
    html = scan_report_html(scan, "scan", "default-src 'none'")
    assert "1 group skipped" in html and "1 groups" not in html
    assert "1 groups" not in tk.to_text(scan, color=False, width=200)


def test_every_line_of_a_scan_fits_the_width(tmp_path):
    from toolkit.render.text import display_width

    scan = tk.explain_scan(_dataset(tmp_path), "day > 7 and day < 25")
    for width in (40, 60, 80, 100, 160):
        for color in (False, True):
            lines = tk.to_text(scan, color=color, width=width).splitlines()
            assert max(display_width(line) for line in lines) <= width, (width, lines)
