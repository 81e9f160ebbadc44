"""Text trees for the terminal: box drawing, color only on a terminal, user text made harmless."""

import html
import io
import re

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import example, given
from hypothesis import strategies as st
from render_helpers import HOSTILE, evaluation

import toolkit as tk
from tests.strategies.untyped import expressions
from toolkit.render.labels import bounded_text, share_text
from toolkit.render.text import INDENT_CAP, strip_text, wants_color


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_expression_tree_with_box_drawing(schema):
    text = tk.to_text((tk.field("a") + 1 > 3).bind(schema), color=False)
    assert text.splitlines() == [
        "greater: bool",
        "├── add_checked: int64",
        "│   ├── a: int64",
        "│   └── 1: int64",
        "└── 3: int64",
    ]


def test_color_only_on_a_terminal(monkeypatch, changed_pass):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" not in tk.to_text(changed_pass, stream=io.StringIO())
    assert "\x1b[33m~ \x1b[0m" in tk.to_text(changed_pass, stream=_Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_color(_Tty())


def test_pass_marks_changes_rules_and_reasons(changed_pass, folding_pass):
    text = tk.to_text(changed_pass, color=False)
    assert "⟲ canonicalize/flip-comparison at 0:" in text
    assert "~ greater: bool [canonicalize/flip-comparison] (was less)" in text
    folded = tk.to_text(folding_pass, color=False)
    assert "- removed: 1" in folded and "- removed: 2" in folded


def test_evaluation_shows_strips_and_the_failing_row():
    table = pa.table({"a": [0, 1, 2, 0, 5], "b": [1, 2, 3, 4, 5]})
    expr = tk.if_else(tk.field("a") != 0, tk.field("b") / tk.field("a"), 0)
    text = tk.to_text(evaluation(table, expr), color=False)
    assert "[then ▕·██·█▏ 3 of 5 rows (60.0%)] divide_checked: int64 · 3 of 5 rows" in text
    eager = tk.to_text(evaluation(table, expr, "eager"), color=False, width=200)
    assert re.search(r"then: divide_checked: int64 ✖ .*divide by zero.* at row 0", eager)
    assert "if_else: int64 · did not finish" in eager



def test_a_branch_says_why_it_computed_more_rows_once():
    n = 50_000  # large and 99.998% selected: the branch runs masked on every row
    table = pa.table({"a": pa.array([0] + [3] * (n - 1), pa.int64()),
                      "b": pa.array(range(n), pa.int64())})
    expr = tk.if_else(tk.field("a") != 0, (tk.field("b") + 1) / tk.field("a"), 0)
    lines = tk.to_text(evaluation(table, expr), color=False, width=200).splitlines()
    reasons = [k for k, line in enumerate(lines) if "(masked:" in line]
    assert len(reasons) == 1 and "divide_checked" in lines[reasons[0] - 1]  # under its node
    below = [line for line in lines if "add_checked" in line or "b: int64" in line]
    assert len(below) == 2 and all(line.endswith("computed on 50,000 · used on 49,999")
                                   for line in below)
    # a share never rounds the one row away
    assert "49,999 of 50,000 rows (>99.9%)" in lines[reasons[0] - 1]
    assert any("1 of 50,000 rows (<0.1%)" in line for line in lines)


def test_density_bar_for_large_batches():
    bar = strip_text(pa.array(range(0, 1000, 2), pa.int64()), 1000)
    assert bar.startswith("▕") and len(bar.split("▏")[0]) == 65 and "500 of 1,000" in bar


def test_hostile_names_cannot_inject_terminal_codes():
    expr = tk.call("add", [tk.field(name) for name in HOSTILE])
    plain = tk.to_text(expr, color=False)
    assert "\x1b" not in plain and "\u202e" not in plain
    assert "tab\\tand\\x1b[31mred" in plain and "new\\nline" in plain
    colored = tk.to_text(expr, color=True)
    assert re.sub(r"\x1b\[[0-9;]+m", "", colored) == plain


def test_ten_thousand_deep_tree_prints_in_bounded_lines():
    expr = tk.field("a")
    for _ in range(10_000):
        expr = expr + 1
    lines = tk.to_text(expr, color=False, depth=None).splitlines()
    assert len(lines) == 20_001
    assert max(len(line) for line in lines) < 4 * INDENT_CAP + 40
    assert sum("⋯[depth 10000] " in line for line in lines) == 2  # the deepest a and 1


def test_a_plan_as_text():
    from toolkit import plan

    p = plan.scan("t", pa.table({"a": [1, 2]})).filter(tk.field("a") > 1)
    text = tk.to_text(p, color=False)
    assert text.splitlines()[0].startswith("Filter: ")
    assert text.splitlines()[1].startswith("└── TableScan: t")


@given(expressions())
def test_bounded_text_is_to_string_when_it_fits(expr):
    text = expr.to_string()
    assert bounded_text(expr, 10**9) == text
    cut = bounded_text(expr, 20)
    assert cut == text if len(text) <= 20 else (cut == text[:19] + "…")


def test_case_when_conditions_name_their_fields_not_arrows_defaults():
    e = tk.case_when([(tk.field("a") > 1, tk.literal("x")), (tk.field("a") > 0, tk.literal("y"))],
                     else_=tk.literal("z"))
    assert tk.to_text(e, color=False).splitlines()[1] == "├── conditions: make_struct fields 0, 1"
    odd = tk.Call("make_struct", [tk.field("a")], pc.MakeStructOptions(["x"], field_nullability=[False]))
    assert "field_nullability=[false]" in tk.to_text(odd, color=False)  # not the default: shown


@given(st.integers(0, 10**9), st.integers(1, 10**9), st.integers(0, 2))
@example(1, 200, 0)  # 0.5% rounds half to even: "0%"
@example(199, 200, 0)
def test_a_share_says_none_or_all_only_when_it_is(part, total, digits):
    part = min(part, total)
    text = share_text(part, total, digits)
    zero, full = f"{0:.{digits}f}%", f"{100:.{digits}f}%"
    assert (text == zero) == (part == 0) and (text == full) == (part == total)


def test_a_wide_struct_type_is_cut_like_other_labels():
    conds = [(tk.field("x") < i, tk.literal(f"b{i}")) for i in range(170)]
    bound = tk.case_when(conds, else_=tk.literal("none")).bind(pa.schema([("x", pa.int64())]))
    lines = tk.to_text(bound, color=False, width=200).splitlines()
    assert lines[1].startswith("├── conditions: make_struct fields 0, 1, 2")
    assert ": struct<0: bool, 1: bool" in lines[1] and lines[1].endswith("…")
    assert max(map(len, lines)) < 200


def test_a_call_label_shows_only_the_options_that_differ_from_the_defaults():
    """Text and DOT labels write `{width=6, padding="*"}`, not every field of PadOptions; the
    fields an options class cannot do without (the width) show even at their value."""
    schema = pa.schema([("s", pa.string()), ("x", pa.float64()), ("t", pa.timestamp("s"))])
    s, x, t = tk.field("s"), tk.field("x"), tk.field("t")
    cases = [
        (tk.Call("utf8_lpad", [s], pc.PadOptions(6, "*")), '{width=6, padding="*"}'),
        (tk.Call("utf8_lpad", [s], pc.PadOptions(6)), "{width=6}"),
        (tk.Call("round", [x], pc.RoundOptions(2)), "{ndigits=2}"),
        (tk.Call("round_temporal", [t], pc.RoundTemporalOptions(2, "hour")),
         "{multiple=2, unit=HOUR}"),
        (tk.Call("match_substring_regex", [s], pc.MatchSubstringOptions("a+", ignore_case=True)),
         '{pattern="a+", ignore_case=true}'),
    ]
    for call, label in cases:
        bound = call.bind(schema)
        first = tk.to_text(bound, color=False).splitlines()[0]
        assert first == f"{call.name} {label}: {bound.type}", first
        assert f">{html.escape(label, quote=True)}<" in tk.to_dot(bound).source, label
    for call in (tk.Call("round", [x], pc.RoundOptions()), tk.is_null(x)):
        first = tk.to_text(call.bind(schema), color=False).splitlines()[0]
        assert "{" not in first, first  # every option at its default: none shown


def _serialized_bytes_printing(n: int, monkeypatch) -> int:
    """Bytes of options serialized while `to_text` prints an n-case case_when expression."""
    from toolkit.model import options as options_module

    real, total = options_module._fingerprint, [0]

    def counted(options):
        out = real(options)
        total[0] += len(out)
        return out

    monkeypatch.setattr(options_module, "_fingerprint", counted)
    x = tk.field("x")
    tk.to_text(tk.case_when([(x == k, tk.literal(k)) for k in range(n)], else_=tk.literal(-1)),
               color=False)
    return total[0]


def test_the_conditions_struct_is_read_once_however_many_fields_it_names(monkeypatch):
    # naming each condition's role read the struct's options again: 10x the cases was
    # ~100x the bytes serialized (a 1,000-case case_when printed in 13 s)
    small, large = (_serialized_bytes_printing(n, monkeypatch) for n in (100, 1_000))
    assert large <= 12 * small, f"{small:,} -> {large:,} bytes serialized"


def test_a_deep_tree_prints_folded_as_the_svg_draws_it():
    """By default a 1,000-deep tree prints its top 8 levels (as its picture draws them),
    each subtree below as one line naming its size and the focus that opens it, and a
    last line saying so; at 80 columns every line fits. The focus prints the next
    levels, folded again; `depth=3` prints three."""
    expr = tk.field("a")
    for i in range(1_000):
        expr = tk.if_else(tk.field("p"), expr + 1, tk.field("c")) if i % 2 else expr * 2
    lines = tk.to_text(expr, color=False, width=80).splitlines()
    assert len(lines) < 40 and all(len(line) <= 80 for line in lines)
    text = " ".join(line.strip("│├└─ ") for line in lines)  # wrapped lines joined
    assert len(re.findall(r"▸ if_else: [\d,]+ nodes folded, [\d,]+ levels deep", text)) == 1
    focus = re.search(r'focus="([0-9/]+)"', text).group(1)
    assert len(focus.split("/")) == 9  # below the 8 levels printed
    assert "(1,500 levels deep: its top 8 levels printed" in text
    opened = tk.to_text(expr, color=False, width=80, focus=focus).splitlines()
    assert 10 < len(opened) < 40 and "nodes folded" in " ".join(opened)
    assert len(tk.to_text(expr, color=False, depth=3).splitlines()) < 12
