"""Translators of the set lookups to pyspark Columns."""

from __future__ import annotations

from ....model.options import value_set
from ..literal_column import literal_column
from .common import (
    F,
    options_of,
    register,
)

_NULL_MATCHING = ["match", "skip", "emit_null", "inconclusive"]


def _set_values(call):
    """The set's distinct non-null values as literals, their first positions, and how nulls
    match."""
    values = value_set(call.options)
    behavior = options_of(call).get("null_matching_behavior", 0)
    behavior = behavior if isinstance(behavior, str) else _NULL_MATCHING[int(behavior)]
    literals, positions, seen = [], [], set()
    null_position = None
    for i in range(len(values)):
        scalar = values[i]
        if not scalar.is_valid:
            null_position = i if null_position is None else null_position
            continue
        key = scalar.as_py()
        if key in seen:
            continue
        seen.add(key)
        literals.append(literal_column(scalar))
        positions.append(i)
    return literals, positions, null_position, behavior


@register("is_in")
def _is_in(call, a, t):
    """Arrow's null matching: MATCH (default) and SKIP never give null; Spark's IN does."""
    literals, _, null_position, behavior = _set_values(call)
    matched = a[0].isin(*literals) if literals else F.lit(False)
    null_bool = F.lit(None).cast("boolean")
    if behavior == "match":
        return F.when(a[0].isNull(), F.lit(null_position is not None)).otherwise(matched)
    if behavior == "skip":
        return F.when(a[0].isNull(), F.lit(False)).otherwise(matched)
    if behavior == "emit_null":
        return F.when(a[0].isNotNull(), matched)
    # inconclusive: SQL's IN (a miss against a set holding null is unknown)
    if null_position is not None:
        return F.when(a[0].isNotNull() & matched, F.lit(True)).otherwise(null_bool)
    return F.when(a[0].isNotNull(), matched)


@register("index_in")
def _index_in(call, a, t):
    literals, positions, null_position, behavior = _set_values(call)
    if literals:
        where = F.array_position(F.array(*literals), a[0])  # 1-based, 0: absent
        index = F.when(where > 0, F.element_at(F.array(*[F.lit(p) for p in positions]),
                                               where.cast("int")))
    else:
        index = F.lit(None)
    on_null = F.lit(None)
    if behavior == "match" and null_position is not None:
        on_null = F.lit(null_position)
    return F.when(a[0].isNull(), on_null).otherwise(index).cast("int")
