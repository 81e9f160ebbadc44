"""Translators of the conditionals and structs to pyspark Columns."""

from __future__ import annotations

from ....model.field_ref import FieldRef
from ....model.options import field_names
from .common import (
    STRUCTURAL_TRANSLATORS,
    F,
    fail,
    options_of,
    register,
    typed_null,
    untranslatable,
)


@register("if_else")
def _if_else(call, a, t):
    cond, then, otherwise = a
    # Arrow: a null condition gives null (Spark would take the else branch)
    return F.when(cond.isNull(), typed_null(call)).when(cond, then).otherwise(otherwise)


@register("choose")
def _choose(call, a, t):
    index, *values = a
    column = F.when(index.isNull(), typed_null(call))
    for k, value in enumerate(values):
        column = column.when(index == k, value)
    return column.otherwise(fail("choose: index out of range"))  # Arrow's error


def _case_when(call, column_of):
    conditions = call.args[0]
    if not (conditions.is_call and conditions.name == "make_struct"):
        raise untranslatable("case_when", "its first argument must be make_struct(conditions) "
                             "for Spark")
    conds = [column_of(c) for c in conditions.args]
    values = [column_of(v) for v in call.args[1:]]
    out = None
    for cond, value in zip(conds, values):
        out = F.when(cond, value) if out is None else out.when(cond, value)
    if len(values) > len(conds):
        out = out.otherwise(values[len(conds)])
    return out


STRUCTURAL_TRANSLATORS["case_when"] = _case_when


@register("make_struct")
def _make_struct(call, a, t):
    names = field_names(call.options) if call.options is not None else \
        [str(i) for i in range(len(a))]
    return F.struct(*[col.alias(name) for col, name in zip(a, names)])


@register("struct_field")
def _struct_field(call, a, t):
    ref = FieldRef.from_dot_path(options_of(call)["field_ref"])
    column, struct_type = a[0], t[0]
    for leaf in ref.leaves():
        if leaf.is_name:
            column = column.getField(leaf.name)
            struct_type = struct_type.field(leaf.name).type if struct_type is not None else None
            continue
        if struct_type is None:
            raise untranslatable("struct_field", "an index path needs the struct type "
                                 "(bind the expression first)")
        for i in leaf.field_path.indices:
            child = struct_type.field(i)
            column = column.getField(child.name)
            struct_type = child.type
    return column
