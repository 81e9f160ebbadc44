"""Comments and docstrings stand alone: no process words, no files outside the repository."""

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
CODE = [p for d in ("toolkit", "widgets", "benchmarks", "tests", "notebooks")
        for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".ipynb")]
OUTSIDE = re.compile(r"(?-i:ARROW_SEMANTICS)|seeds/|\bthe seed\b|\bseed's\b|\bissues? \d+\b|"
                     r"built in parallel|\bstop \d+\b", re.IGNORECASE)
ALLOWED = ("Arrow's issue 47374",)  # an upstream issue users can look up


def test_no_code_cites_process_or_files_outside_the_repository():
    found = []
    for path in CODE:
        if path.name == Path(__file__).name:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line) and not any(a in line for a in ALLOWED):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:90]}")
    assert not found, "\n".join(found)


def test_every_cited_section_of_the_semantics_page_exists():
    sections = set(re.findall(r"^## (§\d+)", (ROOT / "docs" / "semantics.md").read_text(
        encoding="utf-8"), re.MULTILINE))
    cited = {}
    for path in CODE:
        for m in re.finditer(r"docs/semantics\.md\s+(§\d+)", path.read_text(encoding="utf-8")):
            cited.setdefault(m.group(1), path.relative_to(ROOT))
    assert cited and set(cited) <= sections, {s: str(p) for s, p in cited.items()
                                               if s not in sections}
