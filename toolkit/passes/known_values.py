"""Known field values: what a guarantee pins down exactly, and putting those values in.

`extract_known_field_values(guarantee)` reads the members of the guarantee's
`and_kleene` chain and keeps `field == literal` (the value) and `is_null(field)`
(a null); everything else is left to the inequality rules (docs/semantics.md §5). The first
value for a field wins. `replace_fields_with_known_values(expr, known)` then puts
the values where the fields were, cast to the field's type, dictionary-encoded
when the field is a dictionary; folding is left to fold_constants.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

from ..functions.facts import conjuncts
from ..model.expression import Expression, Literal, as_expression
from ..model.field_ref import FieldRef
from ..rewrite import Transformed
from .errors import GuaranteeError
from .fold_constants import literal_text
from .framework import optimization_pass, require_bound, sweep_pre

__all__ = [
    "extract_known_field_values",
    "known_value_of",
    "replace_fields_with_known_values",
]


def known_value_of(member: Expression) -> tuple[FieldRef, pa.Scalar | pa.Array] | None:
    """(ref, value) for `equal(field, literal)` or `is_null(field)`, else None."""
    if not member.is_call or not member.args:
        return None
    first = member.args[0]
    if not first.is_field:
        return None
    if member.name == "equal" and len(member.args) == 2 and member.args[1].is_literal:
        return first.ref, member.args[1].value
    if member.name == "is_null":
        return first.ref, pa.scalar(None)
    return None


def extract_known_field_values(guarantee) -> dict[FieldRef, pa.Scalar]:
    """{FieldRef: value} for every field the guarantee fixes (unbound input is fine)."""
    known: dict[FieldRef, pa.Scalar] = {}
    for member in conjuncts(as_expression(guarantee)):
        pair = known_value_of(member)
        if pair is not None:
            known.setdefault(*pair)  # Arrow: on a duplicate the first value wins
    return known


@optimization_pass("replace_fields_with_known_values", takes=("known",), idempotent=True)
def replace_fields_with_known_values(expr: Expression, *, known: dict | None = None,
                                     guarantee=None, **ctx) -> Expression:
    """`expr` with every field in `known` replaced by its value as a literal.

    Without `known`, the values the guarantee fixes (`extract_known_field_values`).
    """
    require_bound(expr, "ReplaceFieldsWithKnownValues called on an unbound Expression")
    if known is None:
        known = extract_known_field_values(guarantee) if guarantee is not None else {}
    if not known:
        return expr
    known = {(k if isinstance(k, FieldRef) else FieldRef(k)): v for k, v in known.items()}

    def rule(node: Expression) -> Transformed | None:
        if not node.is_field or node.ref not in known:
            return None
        value = _as_field_type(known[node.ref], node)
        return Transformed.fired(Literal(value), "replace_fields/known-value",
                     f"the guarantee fixes {node.to_string()} to {_text(value)}")

    return sweep_pre(expr, rule)


def _as_field_type(value, field: Expression):
    target = field.type
    if value.type == target:
        return value
    try:
        if pat.is_dictionary(target) and not pat.is_dictionary(value.type):
            if value.type != target.value_type:
                value = value.cast(target.value_type)
            if isinstance(value, pa.Scalar):
                value = pa.DictionaryArray.from_arrays(
                    pa.array([0], pa.int32()), pa.array([value], target.value_type))[0]
        return value.cast(target)
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise GuaranteeError(
            f"the guarantee gives {field.to_string()} the value {_text(value)} ({value.type}), "
            f"which cannot be cast to the field's type {target}: {exc}") from exc


def _text(value) -> str:
    return literal_text(value) if isinstance(value, pa.Scalar) else f"Array[{value.type}]"
