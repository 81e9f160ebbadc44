"""Every expression pass and every plan rule, run alone through the one driver on its fixtures."""

import pytest

import toolkit as tk
from toolkit.passes import PASSES
from toolkit.plan.optimizer import run_rule
from toolkit.plan.rules import default_rules

from .fixtures import FIXTURES, bound, build_plan, expression_cases, plan_cases

PASS_NAMES = sorted(p.stem for p in (FIXTURES / "passes").glob("*.txt"))
RULES = {rule.name: rule for rule in default_rules()}
RULE_NAMES = sorted(p.stem for p in (FIXTURES / "plan_rules").glob("*.txt"))


def test_every_pass_and_every_rule_has_a_fixture_file():
    assert set(PASS_NAMES) == set(PASSES)
    assert set(RULE_NAMES) == set(RULES)


@pytest.mark.parametrize("case", [c for name in PASS_NAMES for c in expression_cases(name)],
                         ids=str)
def test_pass_fixture(case):
    name = case.file.removesuffix(".txt")
    expr = bound(case.text)
    guarantee = tk.parse(case.given) if case.given else None
    with tk.trace() as t:
        out = PASSES[name](expr, guarantee=guarantee)
    assert out.to_string() == case.expected, f"{case}: {case.text}"
    if out is expr:
        assert not t.passes[-1].rewrites  # unchanged: nothing fired
    else:
        assert t.passes[-1].rewrites  # changed: the rules that did it are recorded


@pytest.mark.parametrize("case", [c for name in RULE_NAMES for c in plan_cases(name)], ids=str)
def test_plan_rule_fixture(case):
    rule = RULES[case.file.removesuffix(".txt")]
    before = build_plan(case.text)
    after, applied = run_rule(rule, before)
    assert str(after) == case.expected, f"{case}:\n{after}"
    assert bool(applied) == (str(after) != str(before))
