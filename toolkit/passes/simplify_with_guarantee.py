"""simplify_with_guarantee: drop what a guarantee already decides (docs/semantics.md §5).

A guarantee is a predicate known to hold for every row (a partition's `year ==
2024`, a row group's `x > 3`). The steps, as in Arrow:
1. split the guarantee's `and_kleene` chain into members; `field == literal` and
   `is_null(field)` members give known values, which replace the fields;
2. canonicalize and fold constants (always);
3. every other member that is an inequality (`a > 3`, `a > 3 or is_null(a)`)
   simplifies comparisons, `is_in`, `is_valid`/`is_null` of its field; an
   `is_valid(x)` member makes `is_valid(x)` and `true_unless_null(x)` true and
   `is_null(x)` false. After a member changed something: canonicalize and fold.
The guarantee itself is neither bound nor canonicalized.
"""

from __future__ import annotations

import pyarrow as pa

from ..functions.facts import conjuncts
from ..model.expression import Call, Expression, Literal, as_expression
from ..model.options import option_values
from ..rewrite import Transformed
from .canonicalize import canonicalize
from .fold_constants import fold_constants
from .framework import optimization_pass, sweep_post
from .inequality import Inequality
from .known_values import known_value_of, replace_fields_with_known_values

__all__ = ["simplify_with_guarantee"]


@optimization_pass("simplify_with_guarantee", takes=("guarantee",), needs=("guarantee",))
def simplify_with_guarantee(expr: Expression, *, guarantee, **ctx) -> Expression:
    """`expr` simplified on the rows where `guarantee` holds; the same object if unchanged."""
    guarantee = as_expression(guarantee)
    known = {}
    remaining = []
    for member in conjuncts(guarantee):
        pair = known_value_of(member)
        if pair is None:
            remaining.append(member)
        else:
            known.setdefault(*pair)
    expr = replace_fields_with_known_values(expr, known)
    expr = fold_constants(canonicalize(expr))
    for member in remaining:
        if not member.is_call:
            continue
        inequality = Inequality.extract_one(member)
        if inequality is not None:
            simplified = sweep_post(expr, inequality.simplify)
            if simplified is expr:
                continue
            expr = fold_constants(canonicalize(simplified))
        if member.name == "is_valid" and member.args:
            simplified = sweep_post(expr, _validity_rule(member.args[0]))
            if simplified is expr:
                continue
            expr = fold_constants(canonicalize(simplified))
    return expr


def _validity_rule(valid: Expression):
    """Arrow's SimplifyIsValidGuarantee for the guarantee `is_valid(valid)`."""
    label = valid.to_string()

    def rule(call: Call) -> Transformed | None:
        if not call.args or not call.args[0].equals(valid):
            return None
        name = call.name
        if name in ("is_valid", "true_unless_null"):
            return Transformed.fired(Literal(pa.scalar(True)), f"simplify/{name}-by-is-valid",
                         f"the guarantee is_valid({label}) makes {name}({label}) true")
        if name == "is_null" and not _nan_counts_as_null(call):
            return Transformed.fired(Literal(pa.scalar(False)), "simplify/is_null-by-is-valid",
                         f"the guarantee is_valid({label}) makes is_null({label}) false")
        return None

    return rule


def _nan_counts_as_null(call: Call) -> bool:
    """is_null(x, nan_is_null=true) on floats is true for NaN, which is_valid does not exclude.

    Arrow ignores the option here (a defect): `is_valid(x)` holds for NaN, so
    folding `is_null(x, nan_is_null=true)` to false would be wrong.
    """
    if call.options is None:
        return False
    return bool(option_values(call.options).get("nan_is_null", False))
