"""`make docs`: the API reference from docstrings, and a check of every reference.

The guide pages are Markdown in docs/. This build
  1. generates the API reference for `toolkit` and `widgets` with pdoc
     (into docs/_build/api, ignored by git), and
  2. fails on broken references: a relative link to a file that does not exist,
     or a `tk.name` / `toolkit.name` / `widgets.name` / `plan.name` in the
     guide that the package does not have.

Run: python docs/build.py [OUT_DIR]
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
API_NAME = re.compile(r"`(tk|toolkit|widgets|plan|tks)\.([A-Za-z_][A-Za-z0-9_.]*)")
MODULES = {"tk": "toolkit", "toolkit": "toolkit", "widgets": "widgets",
           "plan": "toolkit.plan", "tks": "toolkit.spark"}


def broken_links(page: Path) -> list[str]:
    problems = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue  # absolute URLs and in-page anchors are not files
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            problems.append(f"{page.relative_to(ROOT)}: link to missing file {target}")
    return problems


def _resolves(module_name: str, dotted: str) -> bool:
    obj = importlib.import_module(module_name)
    for part in dotted.rstrip(".").split("."):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:  # a submodule not imported by its package
            obj = importlib.import_module(f"{obj.__name__}.{part}")
        except (ImportError, AttributeError):
            return False
    return True


def broken_api_names(page: Path) -> list[str]:
    problems = []
    for alias, dotted in API_NAME.findall(page.read_text(encoding="utf-8")):
        if not _resolves(MODULES[alias], dotted):
            problems.append(f"{page.relative_to(ROOT)}: `{alias}.{dotted}` does not exist")
    return problems


def build_api(out: Path) -> None:
    import pdoc

    out.mkdir(parents=True, exist_ok=True)
    pdoc.pdoc("toolkit", "widgets", output_directory=out)


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else DOCS / "_build" / "api"
    sys.path.insert(0, str(ROOT))
    pages = sorted(DOCS.glob("**/*.md")) + [ROOT / "README.md"]
    problems = [p for page in pages for p in broken_links(page) + broken_api_names(page)]
    if problems:
        print("docs: broken references:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    build_api(out)
    print(f"docs: {len(pages)} pages checked, API reference in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
