"""Sample or population: how Substrait's `variance` and `std_dev` say which they are.

One function name serves both, told apart by the `distribution` option of the call;
aggregate rels and window rels write and read it the same way.
"""

from __future__ import annotations

from ...errors import SubstraitError
from ...support.visible_text import visible
from .functions import AGGREGATE_DISTRIBUTIONS, AGGREGATE_MAPPINGS

__all__ = ["DISTRIBUTED", "read_distribution", "write_distribution"]

# Substrait names whose calls carry the option
DISTRIBUTED = frozenset(AGGREGATE_MAPPINGS[func][1] for func in AGGREGATE_DISTRIBUTIONS)


def write_distribution(function, func: str) -> None:
    """Add the option to `function` (an aggregate or window function message) when the
    plan's `func` is one of the variances or standard deviations."""
    if func in AGGREGATE_DISTRIBUTIONS:
        function.options.add(name="distribution", preference=[AGGREGATE_DISTRIBUTIONS[func]])


def read_distribution(function, name: str, where: str) -> str | None:
    """SAMPLE or POPULATION for `variance` and `std_dev` (SQL's VARIANCE and STDDEV are
    the sample ones, so a plan that does not say means SAMPLE); None for the others."""
    if name not in DISTRIBUTED:
        return None
    for i, option in enumerate(function.options):
        if option.name != "distribution":
            continue
        for preference in option.preference:
            if preference in ("SAMPLE", "POPULATION"):
                return preference
        raise SubstraitError(f"{visible(name)}'s distribution option names none of SAMPLE, "
                             f"POPULATION (at {where}.options[{i}])")
    return "SAMPLE"
