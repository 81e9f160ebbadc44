"""LogicalField (relation, name, type, nullable) and LogicalSchema, DataFusion's logical plane.

A column is identified by (relation, name). Users may write it qualified,
``"flights.carrier"``, or bare, ``"carrier"``; a bare name must match exactly
one field, otherwise the error lists the candidates.

How qualified names reach field references (the contract with `toolkit.bind`):
inside a plan every column reference is rewritten to a `FieldRef` whose name is
the field's *qualified name*, ``relation.name`` (just ``name`` for a field
without a relation, e.g. a computed column). A node binds its expressions
against its input's *binding schema*: the input's fields named by their
qualified names (`LogicalSchema.binding_schema()`), which are unique because
(relation, name) is. At execution the batches flowing between physical nodes
carry the stripped names (the physical schema, duplicates allowed after a
join); a node renames its input columns to the binding names (zero-copy)
before evaluating. So `explain()` reads like DataFusion's
(``Filter: (flights.dep_delay > 0)``) and no reference changes meaning when the
optimizer prunes columns around it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa

from .errors import AmbiguousColumnError, ColumnNotFoundError, DuplicateFieldError, PlanError

__all__ = ["LogicalField", "LogicalSchema", "duplicate_fields", "qualified_name"]


def qualified_name(relation: str | None, name: str) -> str:
    return name if relation is None else f"{relation}.{name}"


@dataclass(frozen=True)
class LogicalField:
    """DataFusion's LF(relation, name, type, nullable)."""

    relation: str | None
    name: str
    type: pa.DataType
    nullable: bool = True

    @property
    def qualified_name(self) -> str:
        return qualified_name(self.relation, self.name)

    def to_physical(self) -> pa.Field:
        """The physical field: the relation qualifier stripped."""
        return pa.field(self.name, self.type, self.nullable)

    def __str__(self) -> str:
        return f"{self.qualified_name}:{self.type}{'' if self.nullable else ' NOT NULL'}"


def duplicate_fields(fields: Sequence[LogicalField]) -> list[tuple[int, int, LogicalField]]:
    """Each (first index, second index, field) sharing a (relation, name) with an earlier one."""
    seen: dict[tuple, int] = {}
    dups = []
    for i, f in enumerate(fields):
        key = (f.relation, f.name)
        if key in seen:
            dups.append((seen[key], i, f))
        else:
            seen[key] = i
    return dups


def describe_duplicates(dups) -> str:
    return "; ".join(
        f"field {a} and field {b} are both {f.qualified_name!r}"
        + ("" if f.relation else " (no relation)") for a, b, f in dups)


class LogicalSchema:
    """An ordered, immutable list of LogicalFields whose (relation, name) are unique."""

    __slots__ = ("_by_key", "_by_name", "_by_qualified", "fields")

    def __init__(self, fields: Iterable[LogicalField]):
        self.fields: tuple[LogicalField, ...] = tuple(fields)
        dups = duplicate_fields(self.fields)
        if dups:
            raise DuplicateFieldError(
                "unique (relation, name)", "MUST", "LogicalSchema", describe_duplicates(dups),
                expected="unique (relation, name) pairs",
                actual=[f.qualified_name for f in self.fields])
        self._by_key = {(f.relation, f.name): i for i, f in enumerate(self.fields)}
        self._by_name: dict[str, list[int]] = {}
        for i, f in enumerate(self.fields):
            self._by_name.setdefault(f.name, []).append(i)
        self._by_qualified: dict[str, int] | None = None  # built on the first lookup

    # -- sequence-like ---------------------------------------------------------
    def __len__(self) -> int:
        return len(self.fields)

    def __iter__(self) -> Iterator[LogicalField]:
        return iter(self.fields)

    def __getitem__(self, i: int) -> LogicalField:
        return self.fields[i]

    def __eq__(self, other) -> bool:
        return isinstance(other, LogicalSchema) and self.fields == other.fields

    def __hash__(self) -> int:
        return hash(self.fields)

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def qualified_names(self) -> list[str]:
        return [f.qualified_name for f in self.fields]

    # -- lookup ----------------------------------------------------------------
    def index_of_column(self, relation: str | None, name: str) -> int | None:
        return self._by_key.get((relation, name))

    def index_of_qualified(self, qualified: str) -> int | None:
        """The first field whose qualified name is exactly `qualified` (no bare-name
        reading, no error): one dict lookup, the index built once per schema."""
        if self._by_qualified is None:
            index: dict[str, int] = {}
            for i, f in enumerate(self.fields):
                index.setdefault(f.qualified_name, i)
            self._by_qualified = index
        return self._by_qualified.get(qualified)

    def resolve(self, column: str) -> int:
        """The index of the field a column text names: qualified ``t.a`` or bare ``a``.

        A qualified text matches (relation, name) exactly; failing that it is read as a
        bare name (a column may itself contain a dot). A bare name must match one field.
        """
        dot = column.find(".")
        while dot > 0:
            i = self._by_key.get((column[:dot], column[dot + 1:]))
            if i is not None:
                return i
            dot = column.find(".", dot + 1)
        matches = self._by_name.get(column, [])
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            candidates = [self.fields[i].qualified_name for i in matches]
            raise AmbiguousColumnError(
                f"column {column!r} is ambiguous: it could be any of "
                f"{', '.join(candidates)}; qualify it with its relation",
                ref=column, candidates=candidates)
        raise self.not_found(column)

    def not_found(self, column: str) -> ColumnNotFoundError:
        candidates = self.qualified_names
        close = difflib.get_close_matches(column, candidates + self.names, n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(repr(c) for c in dict.fromkeys(close))}?)" if close else ""
        return ColumnNotFoundError(
            f"no column named {column!r}{hint}; valid columns are: {', '.join(candidates)}",
            ref=column, candidates=candidates)

    def field(self, column: str) -> LogicalField:
        return self.fields[self.resolve(column)]

    def has_name(self, name: str) -> bool:
        """Whether some field (of any relation) has this bare name."""
        return name in self._by_name

    def has_relation(self, relation: str) -> bool:
        return any(f.relation == relation for f in self.fields)

    # -- the physical side -----------------------------------------------------
    def to_arrow(self) -> pa.Schema:
        """DataFusion's logical_plan.physical_schema: the qualifiers stripped."""
        return pa.schema([f.to_physical() for f in self.fields])

    def binding_schema(self) -> pa.Schema:
        """The schema a node's expressions bind against: fields named by qualified name."""
        names = self.qualified_names
        if len(set(names)) != len(names):
            seen: dict[str, int] = {}
            for i, n in enumerate(names):
                if n in seen:
                    a, b = self.fields[seen[n]], self.fields[i]
                    raise PlanError(
                        f"fields {seen[n]} ({a.relation!r}, {a.name!r}) and {i} "
                        f"({b.relation!r}, {b.name!r}) both read as {n!r}; rename one "
                        "with a projection")
                seen[n] = i
        return pa.schema([pa.field(n, f.type, f.nullable) for n, f in zip(names, self.fields)])

    def __str__(self) -> str:
        return "[" + ", ".join(str(f) for f in self.fields) + "]"

    def __repr__(self) -> str:
        return f"LogicalSchema{self}"
