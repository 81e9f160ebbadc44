"""`import toolkit` leaves its heavy dependencies unloaded until a feature needs them.

Each runs in a fresh interpreter, which reports which of them `sys.modules`
holds. How they load late is toolkit/support/late.py; what they cost is measured by
benchmarks/bench_import.py (docs/benchmarks.md); these tests time nothing.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sqlglot", "pandas", "pyarrow.dataset", "pyarrow.parquet", "pyarrow.acero",
         "pyarrow.csv", "graphviz", "toolkit.plan", "toolkit.render", "toolkit.scan")
_REPORT = """
import sys, json, toolkit
print(json.dumps({"file": toolkit.__file__,
                  "loaded": [m for m in %r if m in sys.modules]}))
"""


def loaded_after(code: str) -> set[str]:
    """The HEAVY modules a fresh interpreter holds after running `code`."""
    path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    out = subprocess.run([sys.executable, "-c", code + _REPORT % (HEAVY,)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.splitlines()[-1])
    assert Path(report["file"]).resolve().is_relative_to(ROOT)  # this tree, not an install
    return set(report["loaded"])


def test_import_toolkit_loads_none_of_them():
    assert loaded_after("import toolkit") == set()


def test_building_optimizing_and_printing_load_only_pandas():
    code = ("import pyarrow as pa, toolkit as tk, widgets\n"
            "e = tk.optimize(tk.field('a') + 1 > 3, pa.schema([('a', pa.int64())]))\n"
            "tk.to_text(e)\n")
    # pyarrow loads pandas on the first scalar; the renderer carries the scan module
    assert loaded_after(code) == {"pandas", "toolkit.render", "toolkit.scan"}


def test_evaluating_loads_no_renderer():
    code = ("import pyarrow as pa, toolkit as tk\n"
            "t = pa.table({'a': [1, None, 3]})\n"
            "with tk.trace() as tr:\n"
            "    tk.evaluate(tk.optimize(tk.parse('if_else(a > 1, a, 0)'), t.schema), t)\n"
            "str(tr)\n")
    assert loaded_after(code) == {"pandas", "sqlglot"}  # a scalar, and the parser


def test_the_first_display_loads_the_renderer():
    code = ("import toolkit as tk\n"
            "bundle = (tk.field('a') + 1)._repr_mimebundle_()\n"
            "assert 'add' in bundle['text/plain'], bundle\n")
    assert "toolkit.render" in loaded_after(code)


def test_names_that_load_on_first_use_are_the_subpackages_own():
    code = ("import toolkit as tk, toolkit.render as r, toolkit.scan as s, toolkit.plan as p\n"
            "from toolkit import plan\n"
            "assert tk.plan is p and plan is p\n"
            "assert tk.to_svg is r.to_svg and tk.write_report is r.write_report\n"
            "assert tk.explain_scan is s.explain_scan\n"
            "assert {'to_text', 'explain_scan'} <= set(dir(tk))\n"
            "try:\n    tk.no_such_name\nexcept AttributeError as e:\n"
            "    assert 'no_such_name' in str(e)\n"
            "else:\n    raise AssertionError('no error')\n")
    loaded_after(code)


def test_parse_and_to_sql_load_sqlglot():
    assert "sqlglot" in loaded_after("import toolkit as tk\ntk.parse('a + 1 > 3')")
    assert "sqlglot" in loaded_after("import toolkit as tk\n(tk.field('a') + 1).to_sql()")


def test_pictures_load_graphviz():
    assert "graphviz" in loaded_after("import toolkit as tk\ntk.to_dot(tk.field('a') + 1)")


@pytest.mark.parametrize(("name", "write", "reader"), [
    ("t.parquet", lambda path: pq.write_table(pa.table({"a": [1, 2, 3]}), path),
     "pyarrow.parquet"),
    ("t.csv", lambda path: path.write_text("a\n1\n2\n3\n"), "pyarrow.csv"),
])
def test_a_file_scan_loads_its_reader(tmp_path, name, write, reader):
    path = tmp_path / name
    write(path)
    code = (f"from toolkit import plan\n"
            f"p = plan.create_physical_plan(plan.scan('t', {str(path)!r}))\n"
            f"assert p.collect().num_rows == 3\n")
    assert reader in loaded_after(code)


def test_explaining_a_dataset_scan_loads_what_it_needs(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)
    code = (f"import pyarrow.dataset as ds, toolkit as tk\n"
            f"x = tk.explain_scan(ds.dataset({str(path)!r}), 'a > 5')\n"
            f"assert x.row_groups == (0, 1), x.row_groups\n")
    assert {"pyarrow.dataset", "pandas", "sqlglot"} <= loaded_after(code)
