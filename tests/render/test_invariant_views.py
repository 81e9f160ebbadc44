"""Invariant checks drawn: the subject, the verdict in its color, why it failed."""

import pyarrow as pa
from render_helpers import needs_dot, svg_texts

import toolkit as tk
from toolkit.observe import InvariantCheck

# a failing check as the plan package records one (real failures need a broken plan)
FAILED = InvariantCheck(name="output schema equals plan schema", level="MUST",
                        subject='Projection: "<b>x</b>"', passed=False,
                        details="column 0 differs", expected="x: int64", actual="x: string")


def test_dot_colors_the_verdict():
    source = tk.to_dot(FAILED).source
    assert 'class="verdict-fail"' in source and "#b91c1c" in source
    assert "&lt;b&gt;x&lt;/b&gt;" in source and "<b>x</b>" not in source
    assert "expected: x: int64" in source and "actual: x: string" in source


def test_text_says_fail_and_why():
    text = tk.to_text(FAILED, color=False)
    assert text.splitlines()[0] == "✖ FAIL [MUST] output schema equals plan schema"
    assert "  expected: x: int64" in text and "  actual:   x: string" in text


@needs_dot
def test_real_checks_pass_and_a_failed_one_gets_a_picture_in_the_report(tmp_path):
    from toolkit import plan

    data = pa.table({"a": [1, 2, 3]})
    with tk.trace() as t:
        plan.optimize(plan.scan("t", data).filter(tk.field("a") > 1))
    passed = t.invariant_checks
    assert passed and all(c.passed for c in passed)
    assert "✔ PASS" in svg_texts(tk.to_svg(passed[0]))
    t.steps.append(FAILED)
    html = tk.write_report(t, tmp_path / "r.html").read_text(encoding="utf-8")
    section = html[html.index('id="invariants"'):]
    assert section.count('<span class="fail">✖ FAIL</span>') == 1
    assert section.count('<span class="pass">✔ pass</span>') == len(passed)
    assert section.count("<svg") == 1  # only the failed check is drawn
    assert "(expected x: int64, actual x: string)" in section
