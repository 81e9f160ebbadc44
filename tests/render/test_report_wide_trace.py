"""The report of a 250-branch case_when: repeats grouped, one numbering, an honest stepper."""

import re

import numpy as np
import pyarrow as pa
import pytest
from render_helpers import needs_dot

import toolkit as tk
from toolkit.render.html_report import report_html

X, Y = tk.field("x"), tk.field("y")


@pytest.fixture(scope="module")
def trace():
    e = tk.case_when([(X < 4 * (k + 1), Y * k) for k in range(250)], else_=Y)
    rng = np.random.default_rng(3)
    table = pa.table({"x": pa.array(rng.integers(0, 1000, 5_000), mask=rng.random(5_000) < 0.2),
                      "y": rng.random(5_000)})
    with tk.trace() as t:
        tk.evaluate(tk.optimize(e, table.schema), table)
    return t


@needs_dot
def test_a_rule_that_fired_250_times_for_one_reason_is_one_bullet(trace):
    (changed,) = [p for p in trace.passes if p.changed]
    assert len(changed.rewrites) == 250
    page = report_html(trace)
    rewrites = page[page.index('<ul class="rewrites">'):]
    rewrites = rewrites[:rewrites.index("</ul>\n")]
    bullets = re.findall(r'<li><span class="rule">', rewrites)
    assert len(bullets) == 1  # not 250 nearly identical bullets
    assert "and 249 more firings of canonicalize/reorder-commutative for the same reason" \
        in rewrites
    assert "<details>" in rewrites  # the others folded, listed with where each fired


@needs_dot
def test_headings_contents_and_stepper_number_the_trace_steps_alike(trace):
    page = report_html(trace)
    steps = len(trace.steps)
    contents = re.findall(r'<li><a href="#[^"]*"[^>]*>([^<]*)</a>', page)
    headings = [re.sub(r" <.*", "", h) for h in re.findall(r"<h3>(.*?)</h3>", page)]
    numbers = [re.match(r"[\d–]+", text).group(0) for text in contents]
    assert numbers == [re.match(r"[\d–]+", h).group(0) for h in headings]
    evaluation = next(h for h in headings if "evaluate" in h)
    assert evaluation.startswith(f"{steps}. evaluate")  # the last of the trace's steps
    assert f"(the trace has {steps} steps)" in page  # the stepper says what it counts
    assert '<ol class="contents">' not in page  # numbers written, not counted by the list


def test_the_explorer_lists_the_250_firings_as_one_row_and_a_fold(trace):
    widgets = pytest.importorskip("widgets")
    explorer = widgets.Explorer(trace)
    explorer.go(next(i for i, s in enumerate(trace.steps) if getattr(s, "changed", False)))
    rules = explorer.rules.value
    top = rules[:rules.index("<details>")]
    assert top.count("<code>canonicalize/reorder-commutative</code>") == 1
    assert "and 249 more firings of <code>canonicalize/reorder-commutative</code>" in rules
