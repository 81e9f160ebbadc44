"""The loop finding the first rows of every branch a fused group's codes select, in one
pass over a morsel's codes: a sample wants each branch's first rows, and finding them
with numpy (a compare, a search and a slice per branch, a sort for many) cost more than
the form's own work on a cheap form, after a scan that left every cache cold."""

from __future__ import annotations

from ..functions.cached_loops import compiled

__all__ = ["first_rows"]


@compiled
def first_rows(codes, start, equal, at_least, n, rows, got):
    """The first `n` rows of `codes` from row `start` equal to each value of `equal`, then
    of those at least each value of `at_least`, into `rows` (a line of `n` per value, in
    that order; `got` holds how many each line has), stopping once every line is full.
    Returns the row it stopped at."""
    lines = len(equal) + len(at_least)
    left = 0
    for j in range(lines):
        if got[j] < n:
            left += 1
    i = start
    while i < len(codes) and left > 0:
        code = codes[i]
        for j in range(len(equal)):
            if code == equal[j] and got[j] < n:
                rows[j, got[j]] = i
                got[j] += 1
                if got[j] == n:
                    left -= 1
        for k in range(len(at_least)):
            j = len(equal) + k
            if code >= at_least[k] and got[j] < n:
                rows[j, got[j]] = i
                got[j] += 1
                if got[j] == n:
                    left -= 1
        i += 1
    return i

