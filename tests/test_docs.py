"""The docs build: guide pages with working links and API names, then the pdoc reference."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ["index.md", "getting-started.md", "concepts.md", "jupyter.md", "api.md",
         "differences-from-arrow.md", "substrait.md", "explain-row.md"]


@pytest.fixture(scope="module")
def build():
    """docs/build.py as a module (it is a script, not part of a package)."""
    spec = importlib.util.spec_from_file_location("docs_build", DOCS / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_guide_has_its_pages():
    missing = [p for p in PAGES if not (DOCS / p).exists()]
    assert not missing


def test_the_docs_build_cleanly(tmp_path):
    out = tmp_path / "api"
    done = subprocess.run([sys.executable, str(DOCS / "build.py"), str(out)], cwd=ROOT, check=False,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "pages checked" in done.stdout
    assert (out / "toolkit.html").exists() and (out / "widgets.html").exists()
    reference = (out / "toolkit.html").read_text(encoding="utf-8")
    assert "evaluate" in reference and "optimize" in reference


def test_every_page_links_and_names_resolve(build):
    for page in PAGES:
        path = DOCS / page
        assert build.broken_links(path) == [], page
        assert build.broken_api_names(path) == [], page


def test_a_broken_link_and_a_missing_api_name_are_caught(build, tmp_path):
    # the page must live under the repository: problems are reported relative to it
    page = DOCS / f"_broken_for_test_{tmp_path.name}.md"
    page.write_text("See [nowhere](no-such-page.md) and [a real one](concepts.md).\n"
                    "Call `tk.evaluate` and `tk.evaluat`, `plan.scan` and `plan.scna`, "
                    "`tks.run` and `widgets.Explorer.next` and `widgets.Exploder`.\n",
                    encoding="utf-8")
    try:
        links = build.broken_links(page)
        names = build.broken_api_names(page)
    finally:
        page.unlink()
    assert len(links) == 1 and "no-such-page.md" in links[0]
    assert sorted(n.split(": ", 1)[1] for n in names) == [
        "`plan.scna` does not exist", "`tk.evaluat` does not exist",
        "`widgets.Exploder` does not exist"]


def test_the_concepts_pictures_are_drawn_by_the_toolkit(tmp_path):
    """docs/figures.py redraws every picture concepts.md shows."""
    shown = {line.split("](images/")[1].split(")")[0]
             for line in (DOCS / "concepts.md").read_text(encoding="utf-8").splitlines()
             if "](images/" in line}
    assert shown and all((DOCS / "images" / name).exists() for name in shown)
    done = subprocess.run([sys.executable, str(DOCS / "figures.py"), str(tmp_path)], cwd=ROOT,
                          check=False,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    drawn = {p.name for p in tmp_path.glob("*.svg")}
    assert shown <= drawn
    assert all("<svg" in (tmp_path / name).read_text(encoding="utf-8") for name in drawn)


def test_the_jupyter_guides_python_blocks_run_as_written(capsys):
    """Every Python block of docs/jupyter.md (magics aside) runs in one fresh namespace."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "jupyter.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.DOTALL)
              if not b.lstrip().startswith("%")]
    assert blocks
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/jupyter.md", "exec"), namespace)  # noqa: S102 - the guide's own code
    assert namespace["explorer"].current is not None


def test_the_function_list_in_the_api_page_is_current(build):
    """docs/api.md lists every function as the registry has it (regenerate with
    `python docs/build.py --functions`)."""
    assert build.current_function_list() == build.function_list()
    from toolkit.functions import function_names

    listed = build.current_function_list()
    assert all(f"| `{name}` |" in listed for name in function_names())


def test_the_substrait_function_tables_are_current(build):
    """docs/substrait.md lists every mapping the Substrait reader and writer share
    (regenerate with `python docs/build.py --substrait`)."""
    assert build.current_substrait_tables() == build.substrait_tables()
    from toolkit.interop.substrait.functions import ARGUMENT_OPTIONS, FUNCTION_MAPPINGS

    listed = build.current_substrait_tables()
    assert all(f"| `{m.arrow}` | `{m.substrait}` |" in listed for m in FUNCTION_MAPPINGS)
    assert all(f"| `{name}` |" in listed for name in ARGUMENT_OPTIONS)


def test_a_stale_substrait_table_is_noticed(build, monkeypatch):
    from toolkit.interop.substrait import functions as substrait_functions

    monkeypatch.setitem(substrait_functions.ARGUMENT_OPTIONS, "made_up", ("functions_x", "y"))
    assert build.current_substrait_tables() != build.substrait_tables()


def test_the_layout_picture_is_the_import_graph_of_today(tmp_path):
    """docs/architecture.md's picture of the folders is the one docs/figures.py draws from
    the import graph now: a new folder or a new import between folders redraws it."""
    assert "](images/layout.svg)" in (DOCS / "architecture.md").read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, str(DOCS / "figures.py"), str(tmp_path)], cwd=ROOT,
                          check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    titles = re.compile(r"<title>(.*?)</title>")
    assert (set(titles.findall((tmp_path / "layout.svg").read_text(encoding="utf-8")))
            == set(titles.findall((DOCS / "images" / "layout.svg").read_text(encoding="utf-8"))))
