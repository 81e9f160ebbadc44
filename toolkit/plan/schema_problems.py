"""What differs between a declared schema and the one a step produced, field by field.

Used by every schema invariant (the logical optimizer, the physical planner and
optimizer, batches checked against their plan node, Spark's partitions), so the
same difference reads the same everywhere. Fields are anything with `name`,
`type` and `nullable` (pyarrow fields, logical fields); a logical field's
qualified name is compared where it has one.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["schema_problems"]


def _name(field) -> str:
    return getattr(field, "qualified_name", None) or field.name


def _nullability(nullable: bool) -> str:
    return "nullable" if nullable else "NOT NULL"


def schema_problems(declared: Sequence, got: Sequence, *, noun: str = "field",
                    declared_by: str = "declared", nullable_may_narrow: bool = False
                    ) -> list[str]:
    """Each difference as one line; [] when `got` is what was declared.

    `nullable_may_narrow`: a NOT NULL field where a nullable one was declared is
    fine (data that happens to have no nulls), the reverse is not.
    """
    declared, got = list(declared), list(got)
    if len(declared) != len(got):
        return [f"{len(got)} {noun}s, {declared_by} {len(declared)}"]
    problems = []
    for i, (want, have) in enumerate(zip(declared, got)):
        if _name(want) != _name(have):
            problems.append(f"{noun} {i} is named '{_name(have)}', {declared_by} '{_name(want)}'")
        if want.type != have.type:
            problems.append(f"{noun} {i} '{_name(want)}' is {have.type}, {declared_by} "
                            f"{want.type}")
        if want.nullable != have.nullable and not (nullable_may_narrow and want.nullable):
            problems.append(f"{noun} {i} '{_name(want)}' is {_nullability(have.nullable)}, "
                            f"{declared_by} {_nullability(want.nullable)}")
    return problems
