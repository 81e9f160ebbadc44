"""The answers to the workshop's exercises, kept apart from the exercises notebook.

`SOLUTIONS[exercise_id]` is an answer that `workshop_checks.check` accepts;
`WRONG[exercise_id]` is a tempting wrong answer with the lesson it teaches
(the tests check that each is rejected with a helpful message).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from workshop_checks import penguins

from toolkit import plan

__all__ = ["SOLUTIONS", "WRONG", "fixed_join"]


def fixed_join():
    """The self-join made valid: the second input is scanned under another relation name."""
    return plan.scan("penguins", penguins()).join(
        plan.scan("others", penguins()), on=[("penguins.species", "others.species")])


SOLUTIONS = {
    # the literal moves to the right (less becomes greater); `2 * x` already has its literal first
    "canonicalize": "body_mass_g > 3000 and 2 * flipper_length_mm > 400",
    # 1000 * (3 + 1) folds to 4000; 1 + 1 = 3 folds to false, and `x or false` is x
    "fold_constants": "body_mass_g > 4000",
    # fixing year and island decides both of their conjuncts
    "guarantee_keeps_mass": "year = 2008 and island = 'Biscoe'",
    # a year after 2007, and a species other than Adelie, fixed by equalities
    "guarantee_removes_filter": "year = 2009 and species = 'Gentoo'",
    # penguins with a known bill depth above 18 mm (the two with no measurements give null)
    "rows_evaluated": 130,
    "which_invariant": "unique (relation, name)",
    "fix_the_join": fixed_join,  # called by the tests and the solutions notebook
    # compare the partition column itself: each other month's `month == m` contradicts it
    "read_two_files": "(month = 12 AND day >= 24) OR (month = 1 AND day <= 2)",
}

WRONG = {
    "canonicalize": "body_mass_g > 3000 and flipper_length_mm * 2 > 400",  # not the normal form
    "fold_constants": "body_mass_g > 1000 * 4",  # folding goes all the way
    "guarantee_keeps_mass": "island = 'Biscoe'",  # leaves year >= 2008
    "guarantee_removes_filter": "species = 'Adelie'",  # makes the filter false, not true
    "rows_evaluated": 344,  # what eager evaluation does
    "which_invariant": "physical schema invariant under planning",  # never reached
    "fix_the_join": lambda: plan.scan("penguins", penguins()),  # no join at all
    "read_two_files": "month * 100 + day >= 1224 OR month * 100 + day <= 102",  # reads all 12
}


def answer(exercise_id: str, table=SOLUTIONS):
    """The answer itself (plans are built when asked for)."""
    value = table[exercise_id]
    return value() if callable(value) else value
