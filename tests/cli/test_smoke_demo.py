"""`make demo` is the product's front door: it must run, tell the story and write the report."""

import os
import re
import subprocess
import sys


def test_demo_tells_the_story_and_writes_the_report(tmp_path):
    out = subprocess.run([sys.executable, "-m", "toolkit.cli.demo"], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "336,776 rows" in text
    assert "└──" in text
    # passes: a rule that fired, with the node it changed
    assert "⟲ fold_constants/evaluate-literals" in text
    # lazy: the branch selection of the headline expression, one cell per row for the sample
    assert re.search(r"\[then ▕[█·]{40}▏ \d+ of 40 rows", text)
    # eager: the failure as a story (node and row), not a traceback
    assert "divide by zero in divide(arr_delay, dep_delay) at row 15" in text
    assert "row 15: carrier=" in text
    assert "Traceback" not in out.stderr
    # progress on stderr, the report's path on stdout
    assert "… evaluating lazily" in out.stderr
    report = re.search(r"^report: (.+\.html)$", text, re.M).group(1)
    assert os.path.isfile(report) and report.startswith(str(tmp_path))
    html = open(report, encoding="utf-8").read()
    # a pass that changed the tree is a step; so is each run of passes that changed nothing
    passes = "".join("·" if unchanged else "+"
                     for unchanged in re.findall(r"^(· )?pass \w+:", text, re.M))
    assert html.count('class="step"') == len(re.findall(r"\+|·+", passes)) > 1
    assert "http://" not in html and "https://" not in html
    # scan: the flights as Parquet by month and carrier, two files read, the rest explained
    assert "reads 2 of 185 files" in text
    assert "✗ 154 files skipped by month >= 11" in text
    # one row: the flight a "delayed and long" filter dropped, and the term that did it
    assert "1 row matches flight = 1545 and month = 1 and day = 1" in text
    assert "why: the result is false: `(dep_delay > 60)` is false" in text
    row_report = re.search(r"^row report: (.+\.html)$", text, re.M).group(1)
    assert os.path.isfile(row_report)
    scan_report = re.search(r"^scan report: (.+\.html)$", text, re.M).group(1)
    assert "carrier == &quot;UA&quot;" in open(scan_report, encoding="utf-8").read()
