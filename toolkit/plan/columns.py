"""Column references inside plans: user refs resolved to qualified names, and read back.

`qualify(expr, schema)` rewrites every field reference of a user's expression to
the qualified name of the field it means (see `logical_schema` for why), or
raises with the candidates. Accepted spellings of a column:

- a bare name ``"carrier"`` (must be unique among the input's fields);
- a qualified name ``"flights.carrier"`` (one string, as SQL writes it);
- a nested ref ``field("flights", "carrier")`` when ``flights`` is a relation and
  not a column; further parts descend into a struct column, as in Arrow;
- an index ``field(3)``: the input's fourth field.
"""

from __future__ import annotations

from ..model.expression import Expression, Parameter
from ..model.field_ref import FieldPath, FieldRef
from ..model.visit import modify_expression
from .errors import ColumnNotFoundError
from .logical_schema import LogicalSchema

__all__ = ["column_of", "columns_of", "qualify", "qualify_ref"]


def qualify_ref(ref: FieldRef, schema: LogicalSchema) -> FieldRef:
    """The ref with its column part replaced by that column's qualified name."""
    leaves = list(ref.leaves())
    if not leaves:
        raise ColumnNotFoundError("an empty field reference names no column", ref=ref,
                                  candidates=schema.qualified_names)
    first = leaves[0]
    rest: list[FieldRef] = leaves[1:]
    if first.is_field_path:
        indices = first.field_path.indices
        if not indices or indices[0] >= len(schema):
            raise ColumnNotFoundError(
                f"no column at index {indices[0] if indices else '(empty)'}: the input has "
                f"{len(schema)} columns ({', '.join(schema.qualified_names)})",
                ref=ref, candidates=schema.qualified_names)
        index = indices[0]
        if len(indices) > 1:
            rest = [FieldRef(FieldPath(indices[1:]))] + rest
    else:
        name = first.name
        index = None
        if rest and rest[0].is_name and schema.has_relation(name):
            qualified = schema.index_of_column(name, rest[0].name)
            if qualified is not None and not schema.has_name(name):
                index, rest = qualified, rest[1:]
        if index is None:
            index = schema.resolve(name)
    qualified_name = schema[index].qualified_name
    return FieldRef(qualified_name, *rest) if rest else FieldRef(qualified_name)


def qualify(expr: Expression, schema: LogicalSchema) -> Expression:
    """`expr` with every field reference naming its column by qualified name."""

    def pre(node):
        if node.is_field:
            ref = qualify_ref(node.ref, schema)
            return node if ref == node.ref else Parameter(ref)
        return node

    return modify_expression(expr, pre=pre)


def column_of(ref: FieldRef) -> str:
    """The qualified column name a plan's (already qualified) ref starts with."""
    return ref.leaves()[0].name


def columns_of(expr: Expression) -> set[str]:
    """The qualified names of the columns an (already qualified) expression reads."""
    return {column_of(ref) for ref in expr.field_refs()}
