"""Terminal escapes and bidi overrides from names and values never reach a screen raw.

A field named `\\x1b[2J` (clear screen) or holding U+202E (right-to-left override)
comes from the user's data or a stranger's file; every text exprscope prints
spells such characters out.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit.cli.command import main

EVIL = "\x1b[2J\x07\x00\u202edanger"
RAW = ("\x1b", "\x07", "\x00", "\u202e")


def _clean(text: str) -> None:
    assert not any(ch in text for ch in RAW), repr(text)


@pytest.fixture
def table():
    return pa.table({EVIL: [1, 0, 3], "b": [1, 2, 3]})


def test_to_text_role_labels_and_trees(table):
    expr = tk.make_struct([tk.field(EVIL), tk.literal(EVIL)], [EVIL, "y"])
    _clean(tk.to_text(expr))
    with tk.trace() as t:
        tk.evaluate(expr, table)
    _clean(tk.to_text(t))


def test_kernel_errors(table):
    with pytest.raises(tk.KernelError) as info:
        tk.evaluate(tk.field("b") / tk.field(EVIL) + tk.literal(0), table, mode="eager")
    _clean(str(info.value))
    assert "\\x1b[2J" in str(info.value)


def test_plan_explain(table):
    p = plan.scan(EVIL, table).filter(tk.field(EVIL) > 0).project([tk.field(EVIL)], names=[EVIL])
    _clean(p.explain())
    _clean(p.explain(verbose=True))


def test_cli_optimized_line_and_errors(capsys, tmp_path):
    assert main(["explain", "a + 1 > 3", "--schema", "a:int64"]) == 0
    path = tmp_path / "d.parquet"
    import pyarrow.parquet as pq

    pq.write_table(pa.table({EVIL: [1, 2]}), path)
    main(["explain", f'"{EVIL}" > 1', "--data", str(path)])
    main(["explain", "zz > 1", "--data", str(path)])
    out = capsys.readouterr()
    _clean(out.out)
    _clean(out.err)


def test_explorer_code_cells(table):
    from widgets import Explorer

    with tk.trace() as t:
        tk.optimize(tk.field(EVIL) * 1 > 2, table.schema)
    explorer = Explorer(t)
    for i in range(len(t.steps)):
        explorer.go(i)
        for html in (explorer.header.value, explorer.rules.value, explorer.before_after.value,
                     explorer.tree.value):
            _clean(html)
