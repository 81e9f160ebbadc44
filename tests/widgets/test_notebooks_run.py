"""Every notebook in notebooks/ runs top to bottom, as a workshop attendee would run it.

Each runs in a fresh kernel of the Python running the tests (an explicit
kernelspec, so a `python3` kernel elsewhere on the machine cannot take its
place), with the notebook's own folder as the working directory and this
checkout first on the kernel's path, so an installed copy of the package
elsewhere cannot stand in for the code under test.
"""

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
KERNEL = "exprscope-tests"


def _notebooks() -> list[Path]:
    return sorted(p for p in NOTEBOOKS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def test_there_are_notebooks_to_run():
    assert _notebooks(), f"no notebooks found under {NOTEBOOKS}"


@pytest.fixture(scope="module")
def run_notebook(tmp_path_factory):
    """Executes a notebook once per test module; later asks get the executed copy."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "exprscope tests", "language": "python",
        "env": {"PYTHONPATH": os.pathsep.join(
            p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)}}))
    done: dict[Path, nbformat.NotebookNode] = {}

    def run(path: Path) -> nbformat.NotebookNode:
        if path not in done:
            nb = nbformat.read(path, as_version=4)
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("JUPYTER_PATH", str(root))
                NotebookClient(nb, timeout=180, kernel_name=KERNEL,
                               resources={"metadata": {"path": str(path.parent)}}).execute()
            done[path] = nb  # execute() raised CellExecutionError, naming the cell, on failure
        return done[path]

    return run


def _outputs(nb) -> list:
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_notebook_runs_top_to_bottom(path, run_notebook):
    nb = run_notebook(path)
    complaints = [o.text for o in _outputs(nb) if o.output_type == "stream" and o.name == "stderr"]
    assert not complaints, f"{path.name} printed errors: {complaints}"


def test_the_kernel_runs_this_checkout(run_notebook, tmp_path):
    probe = tmp_path / "probe.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("import toolkit; print(toolkit.__file__)"))
    nbformat.write(nb, probe)
    printed = "".join(o.get("text", "") for o in _outputs(run_notebook(probe)))
    assert printed.strip() == str(REPO / "toolkit" / "__init__.py")


def test_the_explorer_notebook_shows_trees_and_widgets(run_notebook):
    bundles = [o.get("data", {}) for o in _outputs(run_notebook(NOTEBOOKS / "explorer.ipynb"))]
    assert any("<svg" in b.get("image/svg+xml", "") for b in bundles), "no tree was drawn"
    widgets = [b for b in bundles if "application/vnd.jupyter.widget-view+json" in b]
    assert len(widgets) >= 4, "the explorers and the selection view should all display"
