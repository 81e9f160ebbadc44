"""The records of a row's journey through a plan: plain, frozen values.

A `RowJourney` is one source row's walk from its scan to the plan's root, one
`Stop` per operator on that path, told on the plan as the user wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..support.late import mimebundle
from .records import RowStory

__all__ = ["JoinPartners", "RowJourney", "SourceRead", "Stop", "WhyNot"]


@dataclass(frozen=True)
class JoinPartners:
    """At a join: the partner rows found for the row (the first ones and their count), or why
    there are none (no row of the other input has the key, or its partners were dropped
    on their own way, `partner_journey` saying where)."""

    keys: dict[str, Any]
    found: int
    rows: pa.Table | None
    why: str
    partner_journey: RowJourney | None = None


@dataclass(frozen=True)
class Stop:
    """One operator on the row's path: what the row is there (the rows of the operator's
    output that exist because of it: the first ones, and how many) and whether it is kept."""

    depth: int  # the operator's distance from the root (0: the root)
    operator: str  # the operator's one-line label
    kind: str  # TableScan, Filter, Projection, Join, Aggregate, Sort, Limit
    kept: bool
    rows: pa.Table | None  # the row as it is here (first few), None when not kept
    count: int  # how many output rows of this operator come from the row
    note: str = ""
    story: RowStory | None = None  # at a filter: the predicate's story for the row
    partners: JoinPartners | None = None  # at a join
    position: int | None = None  # at a sort or a limit: the row's position in the order
    at: tuple[int, ...] = ()  # the operator's place in the plan: child indices from the root


@dataclass(frozen=True)
class SourceRead:
    """How many rows of one source the journey read (the row's own source: the row)."""

    relation: str
    rows: int


@dataclass(frozen=True)
class RowJourney:
    """Row `row` of source `relation` through the plan: where it went and why."""

    relation: str
    row: int
    stops: tuple[Stop, ...]
    kept: bool
    dropped_at: str | None  # the label of the operator that dropped it
    why: str
    plan: Any = None  # the plan as the user wrote it (for the picture)
    reads: tuple[SourceRead, ...] = ()  # the rows read from other sources for the row

    def _repr_mimebundle_(self, include=None, exclude=None):
        return mimebundle(self)

    def __str__(self) -> str:
        return f"row {self.row:,} of {self.relation}: {self.why}"


@dataclass(frozen=True)
class WhyNot:
    """`p.why_not(predicate)`: the source rows compatible with the missing output, each with
    its journey (the first ones, and how many)."""

    predicate: str
    relation: str
    compatible: int
    journeys: tuple[RowJourney, ...]
    why: str
    carried: str = ""  # the predicate as carried down to the source, over its columns
    not_carried: tuple[str, ...] = ()  # the conjuncts that could not reach that source

    def __iter__(self):
        return iter(self.journeys)

    def __len__(self) -> int:
        return len(self.journeys)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return mimebundle(self)

    def __str__(self) -> str:
        return self.why
