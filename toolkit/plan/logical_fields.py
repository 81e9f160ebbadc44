"""How a function knows its logical field: DataFusion's `logical_field(lf1, ...) -> LF`.

The type comes from binding (the registry's kernel resolves it from the argument
types). The name comes from the expression's text as the user wrote it
(`output_name`). Nullability follows the function's null handling:

- INTERSECTION: nullable when any argument is (a null in gives a null out);
- OUTPUT_NOT_NULL: never (``is_null``, ``is_valid``, ``make_struct``); but ``is_in``
  whose options emit nulls (EMIT_NULL: where the value is null; INCONCLUSIVE: also
  where the value is missing from a set that holds a null) is nullable then;
- COMPUTED: decided per function, conservatively: ``coalesce`` only when every
  argument is nullable; ``if_else`` when the condition or either branch is;
  ``case_when`` when a value is, or there is no ``else``; Kleene logic and
  ``is_in`` when an argument is; any other COMPUTED function is taken as nullable.

The walk is iterative (postorder), so deep expressions work.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import UnboundError
from ..functions import NullHandling
from ..model.expression import Expression, postorder
from ..model.options import value_set
from ..passes.set_lookup import EMIT_NULL, INCONCLUSIVE, null_matching_behavior
from .logical_schema import LogicalField

__all__ = ["logical_field", "nullable", "output_name"]


def _computed_nullable(call, args: list[bool]) -> bool:
    name = call.name
    if name == "coalesce":
        return all(args)
    if name == "if_else":
        return any(args)
    if name == "case_when":
        # args[0] is the struct of conditions: a null condition counts as false
        has_else = len(call.args) > 1 + _condition_count(call)
        return any(args[1:]) or not has_else
    if name in ("and_kleene", "or_kleene", "and_not_kleene", "is_in"):
        return any(args)
    return True


def _is_in_nullable(options, args: list[bool]) -> bool:
    behavior = null_matching_behavior(options)
    if behavior == EMIT_NULL:
        return args[0]
    if behavior == INCONCLUSIVE:
        return args[0] or value_set(options).null_count > 0
    return False


def _condition_count(call) -> int:
    struct_type = call.args[0].type
    return struct_type.num_fields if isinstance(struct_type, pa.StructType) else 0


def nullable(expr: Expression) -> bool:
    """Whether the bound expression may produce a null (see the module doc)."""
    result: dict[int, bool] = {}
    for node in postorder(expr):
        if node.is_literal:
            value = node.value
            out = (not value.is_valid) if isinstance(value, pa.Scalar) else value.null_count > 0
        elif node.is_field:
            if node.type is None:
                raise UnboundError(f"nullability needs a bound expression; {node} is not bound")
            out = node.nullable
        else:
            if node.function is None:
                raise UnboundError(f"nullability needs a bound expression; {node} is not bound")
            args = [result[id(a)] for a in node.args]
            handling = node.function.null_handling
            if node.name == "is_in" and node.options is not None:
                out = _is_in_nullable(node.options, args)
            elif handling is NullHandling.OUTPUT_NOT_NULL:
                out = False
            elif handling is NullHandling.INTERSECTION:
                out = any(args)
            else:
                out = _computed_nullable(node, args)
        result[id(node)] = out
    return result[id(expr)]


def output_name(expr: Expression) -> str:
    """The name a projected expression gets: a column's own name, else the expression text."""
    if expr.is_field and expr.ref.is_name:
        return expr.ref.name
    return expr.to_string()


def logical_field(expr: Expression, name: str, relation: str | None = None) -> LogicalField:
    """LF(relation, name, type, nullable) of a bound expression."""
    if expr.type is None:
        raise UnboundError(f"a logical field needs a bound expression; {expr} is not bound")
    return LogicalField(relation, name, expr.type, nullable(expr))
