"""The branch rows a traced evaluation's morsels recorded: joined into its event's
BranchSelections when first read, and the first rows of each that its sample keeps.

A morsel records a lazily run form's branches one piece each (`BranchPiece`), and a
fused group's branches all in one record (`FusedBranches`). The event's
BranchSelections, one per branch over every morsel, are made from them when someone
reads `EvalEvent.branches` (a trace is recorded far more often than read). Its sample
needs each branch's first rows at once, while the data is there: a fused group's are
read from its codes for all the branches of one code together (`first_rows_by_code`),
the others from their pieces.
"""

from __future__ import annotations

import numpy as np

from ..observe import BranchSelection
from .fused_branches import FusedBranches, expanded, first_rows_by_code

__all__ = ["branch_selections", "first_rows_of_branches"]


def branch_selections(recorded: list, at, total_rows: int) -> list[BranchSelection]:
    """Every branch's rows over all morsels (`recorded`: the morsels' records in row
    order; `at`: a path id -> its path), in the order they were first recorded."""
    out = []
    for (path, name, arg), parts in _pieces(recorded).items():
        count = None if any(b.count is None for b in parts) else sum(b.count for b in parts)
        out.append(BranchSelection(path=at(path), branch=name, arg_index=arg,
                                   rows=tuple(b.piece for b in parts), total_rows=total_rows,
                                   count=count))
    return out


def first_rows_of_branches(recorded: list, n: int, kept_first: int) -> list[np.ndarray]:
    """The first `n` rows of every branch that a sample keeps beside the batch's first
    `kept_first` rows (none for a branch whose first rows lie among them)."""
    keys: dict[tuple, bool] = {}  # (form, branch, argument) -> only fused records hold it
    fused = []
    for item in recorded:
        if isinstance(item, FusedBranches):
            fused.append(item)
            for key in item.plan.keys:
                keys.setdefault(key, True)
        else:
            keys[item[:3]] = False
    covered = _covered_by_cases(keys)
    by_code = first_rows_by_code(fused, n, kept_first,
                                 skip=covered | {k for k, alone in keys.items() if not alone})
    wanted = {k for k in keys if k not in covered and k not in by_code}
    rest = _pieces(recorded, wanted) if wanted else {}
    out = []
    for key in keys:
        if key in covered:
            continue
        if key in by_code:
            first = by_code[key]
        else:
            parts = rest.get(key, [])
            count = None if any(b.count is None for b in parts) else sum(b.count for b in parts)
            first = _first_rows(parts, n, count, kept_first)
        if first is not None:
            out.append(first)
    return out


def _pieces(recorded: list, keys=None) -> dict[tuple, list]:
    """(form, branch, argument) -> its pieces over every morsel, in row order (of `keys`
    only, when given), fused records made into pieces."""
    out: dict[tuple, list] = {}
    for item in recorded:
        for b in expanded(item, keys) if isinstance(item, FusedBranches) else (item,):
            key = b[:3]
            if keys is not None and key not in keys:
                continue
            found = out.get(key)
            if found is None:
                out[key] = [b]
            else:
                found.append(b)
    return out


def _first_rows(pieces: list, n: int, count: int | None, kept_first: int) -> np.ndarray | None:
    """The first `n` rows of a branch of `count` rows (None: not counted yet) from its
    slices' pieces (in row order), reading only the pieces that may hold them (a piece's
    count, when known, says whether it holds any); None when it has none, or when they
    all lie among the batch's first `kept_first` rows, which the sample holds anyway."""
    holding = [b for b in pieces if b.count is None or b.count]
    if not holding:
        return None
    first = holding[0].piece
    wanted = n if count is None else min(n, count)
    if first.offset == 0 and holding[0].count is not None:
        below = first.rows_below(kept_first)
        if below is not None and below >= wanted:
            return None
    parts = []
    for b in holding:
        part = b.piece.first_rows(n)
        if not parts and b.count is None and b.piece.offset == 0 and len(part) >= wanted \
                and part[wanted - 1] < kept_first:
            return None  # a piece not counted: its first rows, read once, settle it
        parts.append(part)
        n -= len(part)
        if n <= 0:
            break
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _covered_by_cases(keys) -> set:
    """The branches `(path, "when i", arg)` of the case_whens that record an else: every
    row reaching case i takes a later `then j` or the else, so the first rows of those
    branches, which the sample keeps, hold the first rows of `when i` (a wide case_when's
    whens were half the fixed cost of tracing it)."""
    with_else = {path for path, name, _ in keys if name == "else"}
    return {key for key in keys if key[0] in with_else and key[1].startswith("when ")}
