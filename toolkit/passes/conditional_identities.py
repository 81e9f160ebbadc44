"""Conditionals with constant conditions, coalesce with a non-null argument (beyond Arrow).

`if_else(true, t, f)` is t, `if_else(false, t, f)` is f, `if_else(null, t, f)` is
null. In `case_when`, a case whose condition is the literal false or null is
never taken (null counts as false there), and a literal-true condition makes
every later case unreachable: it becomes the else branch. In `coalesce`, null
literals contribute nothing and nothing after an argument that is never null
(a non-null literal, a non-nullable field) is ever looked at.

These keep lazy semantics: a dropped branch was one no row would evaluate.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..model.expression import Call, Expression, Literal
from ..model.options import field_names
from ..rewrite import Transformed
from .rebind import bind_new_call, with_args_rebound

__all__ = ["coalesce_truncation", "constant_case_when", "constant_if_else"]


def _truth(expr: Expression) -> bool | None:
    """True/False for a literal condition, None when it is not a scalar literal."""
    if not expr.is_literal or not expr.is_scalar:
        return None
    value = expr.value
    return bool(value.as_py()) if value.is_valid else False


def _null_of(call: Call) -> Literal:
    return Literal(pa.scalar(None, call.type))


def constant_if_else(call: Call) -> Transformed | None:
    if call.name != "if_else" or len(call.args) != 3:
        return None
    cond, then, otherwise = call.args
    if not cond.is_literal or not cond.is_scalar:
        return None
    if not cond.value.is_valid:
        return Transformed.fired(_null_of(call), "identities/if-else-null-condition",
                     "if_else with a null condition is null on every row")
    chosen, branch = (then, "then") if cond.value.as_py() else (otherwise, "else")
    if chosen.type != call.type:
        return None
    return Transformed.fired(chosen, "identities/if-else-constant",
                 f"the condition is always {str(cond.value.as_py()).lower()}, "
                 f"so only the {branch} branch is ever taken")


def _conditions(struct: Expression) -> tuple[list[Expression], list[str]] | None:
    if struct.is_call and struct.name == "make_struct" and isinstance(struct.options,
                                                                    pc.MakeStructOptions):
        return list(struct.args), field_names(struct.options)
    if struct.is_literal and struct.is_scalar and isinstance(struct.value, pa.StructScalar):
        value = struct.value
        names = [value.type.field(i).name for i in range(value.type.num_fields)]
        if not value.is_valid:
            return [Literal(pa.scalar(None, pa.bool_())) for _ in names], names
        return [Literal(value[i]) for i in range(len(names))], names
    return None


def constant_case_when(call: Call) -> Transformed | None:
    if call.name != "case_when" or len(call.args) < 2:
        return None
    found = _conditions(call.args[0])
    if found is None:
        return None
    conds, names = found
    n = len(conds)
    values = list(call.args[1:1 + n])
    otherwise = call.args[1 + n] if len(call.args) == n + 2 else None
    kept: list[tuple[Expression, Expression, str]] = []
    changed = False
    for cond, value, name in zip(conds, values, names):
        truth = _truth(cond)
        if truth is None:
            kept.append((cond, value, name))
            continue
        changed = True
        if truth:
            otherwise = value  # later cases are unreachable
            break
        # a false or null condition: the case is never taken
    if not changed:
        return None
    if not kept:
        after = otherwise if otherwise is not None else _null_of(call)
        if after.type != call.type:
            return None
        return Transformed.fired(after, "identities/case-when-constant",
                     "every condition is a literal: the case taken is known")
    kept_names = [name for _, _, name in kept]
    if names == [str(i) for i in range(n)]:  # the builder's numbering stays a numbering
        kept_names = [str(i) for i in range(len(kept))]
    struct = bind_new_call("make_struct", [c for c, _, _ in kept], pc.MakeStructOptions(kept_names))
    args = [struct, *(v for _, v, _ in kept)]
    if otherwise is not None:
        args.append(otherwise)
    after = bind_new_call("case_when", args)
    dropped = n - len(kept)
    return Transformed.fired(after, "identities/case-when-constant",
                 f"{dropped} case{'s' if dropped > 1 else ''} with a literal condition "
                 "resolved (false and null are never taken, true ends the search)")


def _never_null(expr: Expression) -> bool:
    if expr.is_literal:
        return expr.is_scalar and expr.value.is_valid
    return expr.is_field and expr.field_type is not None and not expr.nullable


def coalesce_truncation(call: Call) -> Transformed | None:
    if call.name != "coalesce" or len(call.args) < 2:
        return None
    args = list(call.args)
    without_nulls = [a for a in args if not (a.is_literal and a.is_null_literal)] or args[:1]
    cut = next((i for i, a in enumerate(without_nulls) if _never_null(a)), None)
    kept = without_nulls if cut is None else without_nulls[:cut + 1]
    if len(kept) == len(args):
        return None
    rule = ("identities/coalesce-truncate" if cut is not None and cut + 1 < len(without_nulls)
            else "identities/coalesce-drop-null")
    last = next(i for i, a in enumerate(args) if a is kept[-1])
    reason = (f"argument {last} is never null, so the arguments after it are "
              "never used" if rule == "identities/coalesce-truncate"
              else "null literal arguments never supply a value")
    if len(kept) == 1:
        if kept[0].type != call.type:
            return None
        return Transformed.fired(kept[0], rule, reason)
    return Transformed.fired(with_args_rebound(call, kept), rule, reason)
