"""The README's tour is what new users paste first: every Python block must run."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "if_else((a != 0), divide(b, a), 0)" in out
    assert "divide by zero" in out and "row 1" in out
    assert (tmp_path / "out" / "tour-report.html").exists()
    assert namespace["plan"].create_physical_plan(namespace["p"]).collect().num_rows == 2
