"""How the columns of a plan read from Substrait are found and named.

Substrait names only a plan's final columns (the root's names, struct fields
among them, depth-first) and a table's; a computed or aggregated column in
between is named by its rel's `hint.output_names` when the producer wrote them,
else as exprscope's plan builder names it: a column keeps its own name (and its
relation, if passed on under it), anything else is named by its text. Names are
made unique with a suffix, since (relation, name) pairs must be.
"""

from __future__ import annotations

import pyarrow as pa

from ...errors import SubstraitError
from ...model.expression import Expression
from ...plan.logical_fields import output_name
from ...plan.logical_plan import LogicalPlan
from ...plan.logical_schema import LogicalField
from ...support.visible_text import visible

__all__ = ["field_of", "hinted_names", "kept_relation", "natural_name", "top_level_names",
           "unique_columns"]


def field_of(node: LogicalPlan, qualified: str) -> LogicalField:
    """The field of `node` whose qualified name is `qualified` (names a bare lookup may
    find twice, `k` beside `u.k`, are exact here)."""
    i = node.schema.index_of_qualified(qualified)
    if i is None:
        raise SubstraitError(f"no column {visible(qualified)!r} in {visible(node.label()[:80])}")
    return node.schema[i]


def hinted_names(common, count: int) -> list[str] | None:
    names = list(common.hint.output_names) if common.HasField("hint") else []
    return names if len(names) == count else None


def natural_name(input_plan: LogicalPlan, e: Expression) -> str:
    """A column's own name; a computed one's text, as the builder names it."""
    if e.is_field and e.ref.is_name:
        return field_of(input_plan, e.ref.name).name
    return output_name(e)


def kept_relation(input_plan: LogicalPlan, e: Expression, name: str) -> str | None:
    """A column passed on under its own name keeps its relation, as the builder has it."""
    if e.is_field and e.ref.is_name:
        f = field_of(input_plan, e.ref.name)
        if f.name == name:
            return f.relation
    return None


def unique_columns(input_plan: LogicalPlan, exprs: list[Expression | None],
                   names: list[str]) -> tuple[list[str], list[str | None]]:
    """Names and relations of the columns computing `exprs` (None: an aggregate) from
    `input_plan`, each (relation, name) pair made unique: `t.k` and `u.k` may both be `k`."""
    seen: set[tuple[str | None, str]] = set()
    out_names, out_relations = [], []
    for e, name in zip(exprs, names):
        relation = None if e is None else kept_relation(input_plan, e, name)
        candidate, k = name, 1
        while (relation, candidate) in seen:
            k += 1
            candidate, relation = f"{name}_{k}", None
        seen.add((relation, candidate))
        out_names.append(candidate)
        out_relations.append(relation)
    return out_names, out_relations


def _nested_names(t: pa.DataType) -> int:
    if pa.types.is_struct(t):
        return sum(1 + _nested_names(f.type) for f in t)
    if pa.types.is_list(t):
        return _nested_names(t.value_type)
    if pa.types.is_map(t):
        return _nested_names(t.key_type) + _nested_names(t.item_type)
    return 0


def top_level_names(names: list[str], types: list[pa.DataType], where: str) -> list[str]:
    """Each output column's own name from the root's names (struct fields' names follow it)."""
    want = sum(1 + _nested_names(t) for t in types)
    if len(names) != want:
        raise SubstraitError(f"the root names {len(names)} columns and fields, but its input "
                             f"has {want} (at {where}.names)")
    out, i = [], 0
    for t in types:
        out.append(names[i])
        i += 1 + _nested_names(t)
    return out

