"""Many pictures laid out by one `dot` run are the pictures `to_svg` draws one by one."""

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import evaluation, needs_dot

import toolkit as tk
from toolkit.render.svg import to_svgs
from toolkit.tracing.catalyst_steps import CatalystStep, SparkCheck

pytestmark = needs_dot

OPERATORS = ("Project [a#1, b#2]", "Filter (a#1 > 1)", "Sort [a#1 ASC]",
             "Aggregate [a#1], [sum(b#2) AS s#3]", "Filter (c#4 = '</svg><script>x')",
             "LocalRelation [a#1, b#2]")


def _plan(chain: list[str]) -> str:
    """A plan printed as Spark's treeString prints a chain of operators."""
    lines = [chain[0]]
    for depth, op in enumerate(chain[1:]):
        lines.append("   " * depth + "+- " + op)
    return "\n".join(lines) + "\n"


chains = st.lists(st.sampled_from(OPERATORS), min_size=1, max_size=6)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.tuples(chains, chains), min_size=1, max_size=5))
def test_catalyst_steps_drawn_in_one_run_are_each_drawn_alone(pairs):
    steps = [CatalystStep("optimizer", "Operator Optimization", i + 1, f"Rule{i}", f"x.Rule{i}",
                          _plan(before), _plan(after),
                          checks=(SparkCheck("resolved", i % 2 == 0, "" if i % 2 == 0 else
                                             "The plan becomes unresolved: </svg>"),))
             for i, (before, after) in enumerate(pairs)]
    together = to_svgs(steps)
    assert together == [tk.to_svg(s) for s in steps]
    assert all(svg.count("<svg") == 1 and svg.rstrip().endswith("</svg>") for svg in together)


def test_any_picture_to_dot_draws_and_none():
    table = pa.table({"a": [0, 1, 2, None], "b": [1, 2, 3, 4]})
    objs = [tk.parse("a + b > 2"), evaluation(table, tk.parse("if(a != 0, b / a, 0)"))]
    assert to_svgs(objs) == [tk.to_svg(o) for o in objs]
    assert to_svgs([]) == []
