"""Every workshop exercise's check accepts its solution and rejects a wrong answer, saying why."""

import importlib
import re
import sys
from pathlib import Path

import pytest

WORKSHOP = Path(__file__).resolve().parents[2] / "notebooks" / "workshop"


@pytest.fixture(scope="module")
def workshop():
    """The checks and the solutions, imported as the notebooks import them."""
    for folder in (WORKSHOP, WORKSHOP / "solutions"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    checks = importlib.import_module("workshop_checks")
    solutions = importlib.import_module("workshop_solutions")
    return checks, solutions


EXERCISE_IDS = ["canonicalize", "fold_constants", "guarantee_keeps_mass",
                "guarantee_removes_filter", "rows_evaluated", "which_invariant", "fix_the_join",
                "read_two_files"]

# what the message for the solutions' tempting wrong answer must explain
WRONG_ANSWER_SAYS = {
    "canonicalize": ["same values on every penguin", "first difference is at 1/0/0",
                     "yours has `flipper_length_mm`"],
    "fold_constants": ["same values on every penguin", "multiply(1000, 4)", "`4000`"],
    "guarantee_keeps_mass": ["Still there: (year >= 2008)"],
    "guarantee_removes_filter": ["always false"],
    "rows_evaluated": ["every row", "eager"],
    "which_invariant": ["holds for this plan", "self_join_plan()"],
    "fix_the_join": ["no join"],
    "read_two_files": ["the right flights", "reads 12 of 12 files", "month * 100 + day"],
}


def test_the_workshop_has_at_least_five_exercises_each_with_a_solution(workshop):
    checks, solutions = workshop
    assert list(checks.EXERCISES) == EXERCISE_IDS
    assert set(solutions.SOLUTIONS) == set(solutions.WRONG) == set(EXERCISE_IDS)


@pytest.mark.parametrize("exercise_id", EXERCISE_IDS)
def test_the_solution_is_accepted(workshop, exercise_id):
    checks, solutions = workshop
    verdict = checks.check(exercise_id, solutions.answer(exercise_id))
    assert verdict.ok, verdict.message
    assert str(verdict).startswith("✔ right")


@pytest.mark.parametrize("exercise_id", EXERCISE_IDS)
def test_a_wrong_answer_is_rejected_with_a_reason(workshop, exercise_id):
    checks, solutions = workshop
    verdict = checks.check(exercise_id, solutions.answer(exercise_id, solutions.WRONG))
    assert not verdict.ok
    for phrase in WRONG_ANSWER_SAYS[exercise_id]:
        assert phrase in verdict.message, verdict.message


def test_the_input_itself_is_not_a_prediction(workshop):
    checks, _ = workshop
    verdict = checks.check("canonicalize", checks.CANONICALIZE_INPUT)
    assert not verdict.ok
    assert "the input, unchanged" in verdict.message
    assert "canonicalize/flip-comparison" in verdict.message


def test_a_prediction_that_computes_other_values_is_told_so(workshop):
    checks, _ = workshop
    verdict = checks.check("canonicalize", "body_mass_g > 4000 and 2 * flipper_length_mm > 400")
    assert not verdict.ok
    assert "computes other values" in verdict.message
    assert "yours has `4000`, the pass has `3000`" in verdict.message


def test_an_equivalent_answer_is_accepted_for_guarantees(workshop):
    """A guarantee is judged by what the optimizer does with it, not by its text."""
    checks, _ = workshop
    assert checks.check("guarantee_keeps_mass", "island = 'Biscoe' and year >= 2009").ok
    assert checks.check("guarantee_removes_filter", "species = 'Chinstrap' and year = 2008").ok


@pytest.mark.parametrize("guarantee, says", [
    ("false", "can never hold"),
    ("year = 2020", "holds on no penguin"),
    ("year = 2008 and island = 'Biscoe' and body_mass_g > 5000", "decides the whole filter"),
])
def test_vacuous_or_overreaching_guarantees_are_explained(workshop, guarantee, says):
    checks, _ = workshop
    verdict = checks.check("guarantee_keeps_mass", guarantee)
    assert not verdict.ok and says in verdict.message, verdict.message


@pytest.mark.parametrize("count, says", [
    (132, "null too"),           # true or null conditions
    (214, "`else` side"),        # false or null conditions
    (100, "disagrees by 30 rows"),
    ("130", "whole number"),
])
def test_row_count_mistakes_are_explained(workshop, count, says):
    checks, _ = workshop
    verdict = checks.check("rows_evaluated", count)
    assert not verdict.ok and says in verdict.message, verdict.message


def test_a_valid_join_with_the_wrong_rows_is_rejected(workshop):
    checks, _ = workshop
    from toolkit import plan

    t = checks.penguins()
    on_island = plan.scan("penguins", t).join(plan.scan("others", t),
                                             on=[("penguins.island", "others.island")])
    verdict = checks.check("fix_the_join", on_island)
    assert not verdict.ok and "joining the 344 penguins with themselves on species gives 43104" \
        in verdict.message, verdict.message


def test_answers_the_engine_cannot_use_are_explained_not_raised(workshop):
    checks, _ = workshop
    unparsable = checks.check("canonicalize", "body_mass_g >")
    assert not unparsable.ok and "ParseError" in unparsable.message
    unknown = checks.check("fold_constants", "body_mas_g > 4000")
    assert not unknown.ok and "no field 'body_mas_g'; did you mean 'body_mass_g'?" in unknown.message
    assert "no exercise 'nope'" in checks.check("nope", 1).message
    assert "no answer given yet" in checks.check("canonicalize", None).message
    assert "not an invariant's name" in checks.check("which_invariant", "schema").message


@pytest.mark.parametrize("exercise_id, answer", [
    ("fold_constants", "cast(body_mass_g as int64) > 4000"),
    ("canonicalize", "species in ('Adelie', 'Gentoo')"),
])
def test_a_difference_is_written_as_labels_write_it(workshop, exercise_id, answer):
    """No cast option list nor Arrow value set in what a person reads: `to int64`, `{...}`."""
    checks, _ = workshop
    message = checks.check(exercise_id, answer).message
    assert "first difference" in message, message
    for blob in ("to_type=", "allow_int_overflow", "value_set=", "null_matching_behavior"):
        assert blob not in message, message


def test_the_guide_counts_the_exercises_the_workshop_has(workshop):
    checks, _ = workshop
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
             "ten", "eleven", "twelve"]
    index = (WORKSHOP.parents[1] / "docs" / "index.md").read_text(encoding="utf-8")
    said = re.search(r"exercises\.ipynb\)\s+holds\s+(\w+)\s+short exercises", index)
    assert said and said.group(1) == words[len(checks.EXERCISES)], said
