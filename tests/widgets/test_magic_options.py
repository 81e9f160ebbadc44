"""`%expr` keeps the expression text verbatim after its options, so carets line up."""

import pytest

from widgets.magics import split_leading_options

VALUED = {"--data", "-d"}


@pytest.mark.parametrize("line, options, text", [
    ("a + 1 > 3", "", "a + 1 > 3"),
    ("--data df a + 1", "--data df", "a + 1"),
    ("-d df   s == 'two  spaces'", "-d df", "s == 'two  spaces'"),
    ("--data=df b", "--data df", "b"),
    ('--data "odd name" b', '--data "odd name"', "b"),
    ("--data df -- -d + 1", "--data df", "-d + 1"),
    ("-- --data", "", "--data"),
    ("--data", "--data", ""),
    ("-x + 1", "", "-x + 1"),
])
def test_options_are_split_from_the_expression(line, options, text):
    assert split_leading_options(line, VALUED) == (options, text)
