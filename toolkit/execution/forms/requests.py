"""What a special form asks the trampoline for, and how the child it asks for runs.

A form is a generator: it yields a `ChildRequest` and receives that child's value.
When traced, the request carries a `BranchRun` saying which rows of the form's
domain the child's value is used for and how it runs on them, in the words the
trace shows (`NodeStats.how` and `.why`).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["DENSE", "LITERAL", "LITERAL_WHY", "MASKED", "SELECTED", "BranchRun", "ChildRequest"]

SELECTED = "selected"  # gathered on its rows, computed there, put back
DENSE = "dense"  # computed on every row of the domain, the unused ones dropped
MASKED = "masked"  # dense, the unselected rows made null first so no failing kernel sees them
LITERAL = "literal"  # one value standing for every row its branch took: nothing computed
LITERAL_WHY = "a literal: one value for the rows it is used on"


class BranchRun(NamedTuple):
    """How a form's child runs, for the trace.

    `rows`: the rows of the form's domain the child's value is used for (None: all).
    `compact`: the child runs on those rows only (its domain is `rows`); otherwise it
    runs on the whole domain and only `rows` of it are used.
    """

    rows: object  # SelectionVector | None
    how: str
    why: str
    compact: bool


class ChildRequest(NamedTuple):
    """A form asks for `child` (at `rel` below the form) under selection `sel`, with the
    rows outside `mask` made null first (None: no mask); `run` is for the trace only."""

    child: object
    rel: tuple
    sel: object  # SelectionVector | None (the batch)
    mask: object = None
    run: BranchRun | None = None
