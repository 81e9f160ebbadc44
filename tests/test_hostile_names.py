"""A name holding invisible characters never prints like another name, in any printer.

`amo\\u200bunt` (a zero-width space inside) is another column than `amount`; a
tag character, a bidi override, an ESC or a newline in a partition value comes
from a stranger's data. Every printer (repr, str, to_text, DOT, the HTML report,
the CLI, the widgets) shows such a name with the characters spelled out, and
`parse` refuses them in a name with a caret, by the one rule of `visible_text`.
"""

from __future__ import annotations

import unicodedata

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit import plan
from toolkit.cli.command import main
from toolkit.render.svg import dot_available
from toolkit.support.visible_text import visible

# characters that draw nothing, move the cursor, reorder text or draw over others
NAMED_HOSTILE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\U000e0041", "\U000e007f",
                 "\u202e", "\u2066", "\u200f", "\u061c", "\x1b", "\x07", "\x00", "\r", "\n",
                 "\x7f", "\x85", "\u2028", "\u2029", "\u00a0", "\u3000", "\u180e", "\u3164",
                 "\ufe0f", "\u034f", "\ue000", "\u00ad"]
HOSTILE = st.one_of(
    st.sampled_from(NAMED_HOSTILE),
    st.characters(categories=["Cc", "Cf", "Zl", "Zp", "Co"]),
    st.characters(categories=["Zs"]).filter(lambda c: c != " "),
)
MARKS = st.characters(categories=["Mn", "Me"])  # drawn over what precedes them
WORD = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=6)


@st.composite
def hostile_names(draw):
    """(hostile name, the same name with the hostile characters taken out)."""
    pieces, plain = [], []
    for _ in range(draw(st.integers(1, 3))):
        word = draw(WORD)
        pieces.append(word)
        plain.append(word)
        pieces.append(draw(HOSTILE))
    if draw(st.booleans()):  # a combining mark with no letter to draw on
        pieces.insert(0, draw(MARKS))
    pieces.append(draw(WORD))
    plain.append(pieces[-1])
    return "".join(pieces), "".join(plain)


# Letters Unicode lists as Default_Ignorable_Code_Point (DerivedCoreProperties.txt):
# they are alphanumeric to Python yet draw nothing (Hangul fillers, Khmer inherent vowels).
_IGNORABLE_LETTERS = frozenset("\u115f\u1160\u17b4\u17b5\u3164\uffa0")


def _hidden(ch: str) -> bool:
    """An oracle apart from visible_text: the character draws nothing or moves text."""
    cat = unicodedata.category(ch)
    return (cat[0] in "CM" or cat in ("Zl", "Zp") or (cat == "Zs" and ch != " ")
            or ch in _IGNORABLE_LETTERS)


def _assert_shown(out: str, name: str, plain: str, plain_out: str, layout: str = "") -> None:
    """No character of the name that draws nothing reaches `out` raw (but the printer's
    own layout characters in `layout`), the name adds no line, and it does not print as
    `plain` does."""
    raw = [ch for ch in set(name) if _hidden(ch) and ch not in layout + "\n" and ch in out]
    assert not raw, [f"U+{ord(c):04X}" for c in raw]
    assert out.count("\n") == plain_out.count("\n")
    assert out != plain_out


def _printers(name: str) -> dict[str, str]:
    expr = tk.field(name) > 1
    table = pa.table({name: [1, 2, 3]})
    p = plan.scan("t", table).filter(tk.field(name) > 0)
    return {"repr": repr(expr), "str": str(expr), "ref repr": repr(tk.FieldRef(name)),
            "to_text": tk.to_text(expr, color=False),
            "dot": tk.to_dot(expr).source, "plan repr": repr(p), "plan text": str(p),
            "explain": p.explain(schema=True), "physical": str(plan.create_physical_plan(p))}


@given(hostile_names())
def test_every_printer_spells_out_what_a_hostile_name_hides(names):
    name, plain = names
    ours, theirs = _printers(name), _printers(plain)
    for printer, out in ours.items():
        _assert_shown(out, name, plain, theirs[printer], layout="\t" if printer == "dot" else "")


@given(hostile_names())
def test_visible_spells_out_each_hidden_character_and_nothing_else(names):
    name, plain = names
    shown = visible(name)
    assert not any(_hidden(ch) for ch in shown)
    assert shown != plain
    assert visible(plain) == plain


@given(hostile_names(), st.sampled_from(["{} > 1", '"{}" > 1', "abs({}) + {}"]))
def test_parse_refuses_a_hostile_name_with_a_caret_under_the_first_hidden_character(
        names, template):
    name, _ = names
    if '"' not in template and not all(ch.isalnum() or ch == "_" or _hidden(ch)
                                       for ch in name):
        return
    text = template.format(name, name)
    with pytest.raises(tk.ParseError) as info:
        tk.parse(text)
    first = min(i for i, ch in enumerate(text) if _hidden(ch) and ch not in "\t\n\r")
    if text[first] not in "\n\r\t":
        assert info.value.position == first, (info.value.position, first)
        # the message shows the line spelled out, the caret under the escape
        message = str(info.value)
        assert not any(_hidden(ch) for ch in message if ch != "\n")
        shown, caret = message.splitlines()[-2:]
        assert shown[caret.index("^")] == "\\"


def test_a_hidden_character_in_a_string_literal_is_data_and_parses():
    expr = tk.parse("s = 'amo\u200bunt'")
    assert expr.args[1].value.as_py() == "amo\u200bunt"
    assert "\u200b" not in repr(expr) and "\\u200b" in repr(expr)


EXAMPLES = ["amo\u200bunt", "x\x1b[2Jy", "part\nforged line", "a\u202eb", "tag\U000e0041",
            "\u0301lead", "nb\u00a0sp", "bom\ufeff"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_report_widgets_scan_and_cli_spell_out_a_hostile_name(name, tmp_path, capsys):
    from widgets import Explorer, ScanView

    plain = "".join(ch for ch in name if not _hidden(ch))
    outputs = {}
    for which, n in (("hostile", name), ("plain", plain)):
        table = pa.table({n: [1, 2, 3], "b": [1.0, 2.0, 3.0]})
        expr = (tk.field(n) * 1 > 1).bind(table.schema)
        with tk.trace() as recorded:
            tk.evaluate(tk.optimize(expr), table)
        report = tk.write_report(recorded, tmp_path / which / "r.html").read_text()
        explorer = Explorer(recorded)
        pages = []
        for i in range(len(recorded.steps)):
            explorer.go(i)
            pages.append(explorer.header.value + explorer.rules.value
                         + explorer.before_after.value + explorer.tree.value)
        for part in ("x", n):
            folder = tmp_path / which / "data" / f"part={part}"
            folder.mkdir(parents=True)
            pq.write_table(pa.table({"v": [1, 2]}), folder / "f.parquet")
        dataset = __import__("pyarrow.dataset", fromlist=["dataset"]).dataset(
            tmp_path / which / "data", partitioning="hive")
        scan = tk.explain_scan(dataset, tk.field("v") > 1)
        view = ScanView(scan)
        pq.write_table(table, tmp_path / which / "d.parquet")
        main(["explain", "zz > 1", "--data", str(tmp_path / which / "d.parquet")])
        captured = capsys.readouterr()
        svg = tk.to_svg(expr) if dot_available() else ""
        outputs[which] = {"report": report, "explorer": "".join(pages), "svg": svg,
                          "scan text": tk.to_text(scan, color=False), "scan repr": repr(scan),
                          "scan html": view.table.value,
                          "picker": "\n".join(label for label, _ in view.picker.options),
                          "cli": captured.out + captured.err}
    for printer, out in outputs["hostile"].items():
        raw = [ch for ch in set(name) if _hidden(ch) and ch != "\n" and ch in out]
        assert not raw, (printer, [f"U+{ord(c):04X}" for c in raw])
        if printer in ("picker", "scan text", "cli"):
            assert out.count("\n") == outputs["plain"][printer].count("\n"), printer
    for printer in ("report", "explorer", "picker", "cli") + (("svg",) if dot_available() else ()):
        assert outputs["hostile"][printer] != outputs["plain"][printer], printer
