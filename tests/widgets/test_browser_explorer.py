"""The explorer in a real browser: JupyterLab on loopback, Debian's headless chromium.

Starts JupyterLab on a free port of 127.0.0.1 with a token, opens the showcase
notebook in chromium through Playwright (the system's browser: nothing is
downloaded), runs every cell, clicks "next" in the first explorer and checks
that the tree it draws changed. A screenshot lands in out/browser-explorer.png.
"""

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "explorer.ipynb"
OUT = REPO / "out"  # screenshots kept for a person to look at
KERNEL = "exprscope-tests"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]

# the notebook's kernel, through the app object JupyterLab exposes with expose_app_in_browser
KERNEL_IDLE = """() => {
  const app = window.jupyterapp;
  const widget = app && app.shell.currentWidget;
  const session = widget && widget.sessionContext && widget.sessionContext.session;
  return Boolean(session && session.kernel && session.kernel.status === 'idle');
}"""

# controls whose text does not fit them: buttons and labels cut with an ellipsis, and
# dropdowns whose chosen option is wider than the box that shows it
TRUNCATED = """(root) => {
  const cut = [];
  for (const el of root.querySelectorAll('button, .widget-label, label span, .widget-readout')) {
    if (el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1) {
      cut.push(el.textContent.trim());
    }
  }
  const ctx = document.createElement('canvas').getContext('2d');
  for (const select of root.querySelectorAll('select')) {
    if (select.offsetParent === null || select.selectedIndex < 0) continue;
    const style = getComputedStyle(select);
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = select.options[select.selectedIndex].text;
    const room = select.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight);
    if (ctx.measureText(text).width > room + 1) cut.push(text);
  }
  return cut;
}"""

# the step each part of an explorer names: header, slider, picture
STEPS_SHOWN = """(root) => {
  const header = root.querySelector('.exprscope-step-title').textContent;
  const picture = root.querySelector('.exprscope-step-picture');
  return [Number((header.match(/Step (\\d+) of/) || [])[1]),
          Number(root.querySelector('.exprscope-slider .widget-readout').textContent),
          Number(picture && picture.getAttribute('data-step'))];
}"""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"Debian's chromium is not installed at {CHROMIUM} "
                              "(apt-get install chromium, or `make system-packages`)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, token: str, timeout: float = 2.0) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status


def _prepare(root: Path, notebook: Path = NOTEBOOK) -> dict:
    """A private Jupyter home: the notebook, a kernelspec of this Python, fresh settings."""
    for name in ("config", "data", "runtime", "work"):
        (root / name).mkdir()
    labconfig = root / "config" / "labconfig"  # no "get Jupyter news?" toast over the page
    labconfig.mkdir()
    (labconfig / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    spec = root / "data" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "exprscope tests", "language": "python"}))
    nb = json.loads(notebook.read_text())
    nb["metadata"]["kernelspec"] = {"name": KERNEL, "display_name": "exprscope tests",
                                    "language": "python"}
    (root / "work" / notebook.name).write_text(json.dumps(nb))
    # this checkout first on the kernel's path: an installed copy elsewhere must not stand in
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / "config"),
               JUPYTER_DATA_DIR=str(root / "data"), JUPYTER_RUNTIME_DIR=str(root / "runtime"),
               JUPYTER_PLATFORM_DIRS="1", PYTHONPATH=path)
    env.pop("JUPYTER_PATH", None)
    return env


@pytest.fixture
def notebook(request, tmp_path_factory):
    """The notebook JupyterLab serves: the explorer tour, or one written for a test."""
    if getattr(request, "param", None) == "at-size":
        return _at_size_notebook(tmp_path_factory.mktemp("nb") / "at-size.ipynb")
    return NOTEBOOK


@pytest.fixture
def jupyterlab(tmp_path, notebook):
    """(base URL, token) of a JupyterLab serving a copy of the notebook; shut down after."""
    env = _prepare(tmp_path, notebook)
    port, token = _free_port(), secrets.token_hex(16)
    with open(tmp_path / "jupyterlab.log", "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
             f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path / 'work'}",
             "--LabApp.expose_app_in_browser=True",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             "--ServerApp.terminals_enabled=False",
             *(["--allow-root"] if os.geteuid() == 0 else [])],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(server, base, token, tmp_path / "jupyterlab.log")
            yield base, token
        finally:
            _shut_down(server, base, token)


def _wait_until_up(server: subprocess.Popen, base: str, token: str, log: Path) -> None:
    deadline = time.monotonic() + 40
    while True:
        if server.poll() is not None:
            pytest.fail("JupyterLab exited early:\n" + log.read_text())
        try:
            if _get(f"{base}/api/status", token) == 200:
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            pytest.fail("JupyterLab did not answer within 40 s:\n" + log.read_text())
        time.sleep(0.3)


def _shut_down(server: subprocess.Popen, base: str, token: str) -> None:
    """Ask the server to stop (it stops its kernels), then insist."""
    if server.poll() is None:
        try:
            request = urllib.request.Request(f"{base}/api/shutdown", method="POST", data=b"",
                                             headers={"Authorization": f"token {token}"})
            urllib.request.urlopen(request, timeout=5).close()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGTERM)  # the group this test started: server + kernels
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=5)


@contextlib.contextmanager
def _notebook_running(jupyterlab, name: str, timeout_ms: int):
    """A chromium page on the notebook, every cell started once the kernel is up."""
    from playwright.sync_api import sync_playwright

    base, token = jupyterlab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(timeout_ms)
            page.goto(f"{base}/lab/tree/{name}?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            page.wait_for_function(KERNEL_IDLE)  # run only once the kernel is up
            page.evaluate(
                "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            yield page
        finally:
            browser.close()


def _steps_agree(explorer) -> int:
    """The step the header, the slider and the picture name: one and the same."""
    header, slider, picture = explorer.evaluate(STEPS_SHOWN)
    assert header == slider == picture, (header, slider, picture)
    return header


def test_clicking_next_in_the_explorer_redraws_the_tree(jupyterlab):
    from playwright.sync_api import expect

    with _notebook_running(jupyterlab, NOTEBOOK.name, 45_000) as page:
        explorer = page.locator(".exprscope-explorer").first
        tree = explorer.locator(".exprscope-tree")
        header = explorer.locator(".exprscope-step-title")
        tree.locator("svg").first.wait_for(state="attached")
        explorer.scroll_into_view_if_needed()  # JupyterLab may not lay out offscreen cells
        expect(header).to_contain_text("Step 1 of", timeout=45_000)
        before = tree.inner_html()

        explorer.locator("button.exprscope-next").click()
        expect(header).to_contain_text("Step 2 of", timeout=45_000)
        page.wait_for_function(
            "([el, old]) => el.innerHTML !== old && el.querySelector('svg') !== null",
            arg=[tree.element_handle(), before])
        assert tree.inner_html() != before
        # the slider and the picture name the same step as the header
        expect(explorer.locator(".exprscope-slider .widget-readout")).to_have_text("2")
        assert _steps_agree(explorer) == 2
        assert explorer.evaluate(TRUNCATED) == []  # every control's text fits it

        # keys with the pointer over the picture: right and left step, End goes to the last
        tree.hover()
        page.keyboard.press("ArrowRight")
        expect(header).to_contain_text("Step 3 of", timeout=45_000)
        page.keyboard.press("ArrowLeft")
        expect(header).to_contain_text("Step 2 of", timeout=45_000)
        total = header.inner_text().split(" of ")[1].split(":")[0]
        page.keyboard.press("End")
        expect(header).to_contain_text(f"Step {total} of {total}", timeout=45_000)
        assert _steps_agree(explorer) == int(total)
        page.keyboard.press("Home")
        expect(header).to_contain_text("Step 1 of", timeout=45_000)
        expect(explorer.locator(".exprscope-keys-hint")).to_contain_text("← → step")
        explorer.locator("button.exprscope-next").click()
        expect(header).to_contain_text("Step 2 of", timeout=45_000)

        # every explorer of the tour, plan steps and check picker included: no text cut
        explorers = page.locator(".exprscope-explorer")
        assert explorers.count() >= 4  # %%explain, a trace, a plan, a buggy rule's checks
        for k in range(explorers.count()):
            explorers.nth(k).scroll_into_view_if_needed()
            assert explorers.nth(k).evaluate(TRUNCATED) == [], f"explorer {k + 1}"
        picker = explorers.last.locator(".exprscope-check-picker")
        picker.scroll_into_view_if_needed()
        OUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT / "browser-explorer-checks.png"))
        # a failed check's expected and actual schemas share the width evenly
        texts = explorers.last.locator(".exprscope-before-after pre")
        widths = [texts.nth(i).bounding_box()["width"] for i in range(texts.count())]
        assert len(widths) == 2 and min(widths) > 0.8 * max(widths), widths

        explorer.scroll_into_view_if_needed()
        shot = OUT / "browser-explorer.png"
        shot.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000


def _at_size_notebook(path: Path) -> Path:
    """A 12-term `or` through %%explain and a 5,000,000-row if_else through %%trace."""
    terms = " or ".join(f"species = 'S{i}'" for i in range(12))
    cells = [
        "%load_ext widgets\nimport numpy as np\nimport pyarrow as pa\n"
        "rng = np.random.default_rng(0)\n"
        "big = pa.table({'a': rng.integers(-2, 3, 5_000_000), 'b': rng.random(5_000_000)})\n"
        "small = pa.table({'species': ['S1', 'S3', 'x'], 'n': [1, 2, 3]})\n"
        "import toolkit\nprint('toolkit from', toolkit.__file__)",
        f"%%explain --data small\n{terms}",
        "%%trace --data big\nif(a != 0, b / a, 0)",
        "import toolkit as tk\nfrom widgets import Explorer\nexpr = tk.literal(-1)\n"
        "for k in range(300):\n    expr = tk.if_else(tk.field('a') != k % 3, expr, k)\n"
        "with tk.trace() as deep:\n    tk.evaluate(expr, small.append_column('a', "
        "pa.array([0, 1, 2])))\nExplorer(deep)",
    ]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                     "outputs": [], "source": c} for c in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


@pytest.mark.parametrize("notebook", ["at-size"], indirect=True)
def test_wide_and_big_explanations_fit_the_cell_and_show_rows(jupyterlab, notebook):
    from playwright.sync_api import expect

    with _notebook_running(jupyterlab, "at-size.ipynb", 90_000) as page:
        # the kernel runs this checkout, not an installed copy of the package
        printed = page.locator(".jp-OutputArea-output").filter(has_text="toolkit from")
        expect(printed).to_contain_text(str(REPO / "toolkit" / "__init__.py"))
        explorer = page.locator(".exprscope-explorer").first
        svg = explorer.locator(".exprscope-tree svg").first
        svg.wait_for(state="attached")
        explorer.scroll_into_view_if_needed()
        expect(explorer.locator(".exprscope-step-title")).to_contain_text("Step 1 of")
        expect(explorer.locator(".exprscope-slider .widget-readout")).to_have_text("1")
        assert _steps_agree(explorer) == 1
        assert explorer.evaluate(TRUNCATED) == []  # "next change", zoom, ...: none cut
        cell = explorer.locator("xpath=ancestor::div[contains(@class,'jp-Cell')][1]")
        svg.scroll_into_view_if_needed()
        tree_box, cell_box = svg.bounding_box(), cell.bounding_box()
        view = page.viewport_size
        # the whole picture lies within the cell and the window: scaled to fit, not cut off
        assert tree_box["x"] >= cell_box["x"] - 1
        assert tree_box["x"] + tree_box["width"] <= cell_box["x"] + cell_box["width"] + 1
        assert tree_box["y"] >= 0 and tree_box["y"] + tree_box["height"] <= view["height"]
        assert tree_box["x"] >= 0 and tree_box["x"] + tree_box["width"] <= view["width"]
        assert tree_box["height"] > 300  # and not scaled to nothing
        shot = OUT / "browser-at-size-or.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000

        view = page.locator(".exprscope-selection").filter(has_text="on 5,000,000 rows").first
        nodes = view.locator(".exprscope-node-table")
        nodes.wait_for(state="attached")
        view.scroll_into_view_if_needed()
        assert view.locator(".exprscope-row-table tr").count() > 3  # rows, with their values
        expect(nodes).to_contain_text("5,000,000")  # each node's rows, on all 5M rows
        assert view.locator(".exprscope-node-table tr").count() > 3
        nodes.scroll_into_view_if_needed()  # each node's rows computed and used
        shot = OUT / "browser-at-size-trace.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000

        # a 300-deep evaluation opens folded, says so, and opens a folded box by its path
        deep = page.locator(".exprscope-explorer").last
        deep.locator(".exprscope-tree svg").wait_for(state="attached")
        expect(deep.locator(".exprscope-window-note")).to_contain_text("folded past 8")
        folded = deep.locator("g.folded")
        assert folded.count() >= 1
        deep_svg = deep.locator(".exprscope-tree svg").first
        deep_svg.scroll_into_view_if_needed()
        # held at its smallest readable size, it scrolls in a box within the window,
        # opened on its root
        deep_box = deep.locator(".exprscope-tree-svg").first.bounding_box()
        assert deep_box["x"] + deep_box["width"] <= page.viewport_size["width"]
        root = deep_svg.locator("g#node1").bounding_box()
        assert deep_box["x"] <= root["x"] and \
            root["x"] + root["width"] <= deep_box["x"] + deep_box["width"]
        shot = OUT / "browser-at-size-folded.png"
        page.screenshot(path=str(shot))
        subtree = deep.locator(".exprscope-subtree input")
        subtree.fill("1*8")
        subtree.press("Enter")
        expect(deep.locator(".exprscope-tree")).to_contain_text(
            "the subtree at 1/1/1/1/1/1/1/1")

        # a row outside the sample, looked up in the batch the notebook still holds
        number = view.locator(".widget-inline-hbox input").first
        number.fill("3000000")
        number.press("Enter")
        view.locator(".exprscope-go-to-row").click()
        target = view.locator(".exprscope-target-row")
        expect(target).to_contain_text("3,000,000")
        expect(view.locator(".exprscope-page-label")).to_contain_text("all 5,000,000 rows")
        target.scroll_into_view_if_needed()
        shot = OUT / "browser-at-size-row-lookup.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
