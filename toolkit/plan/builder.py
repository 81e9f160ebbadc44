"""What the fluent plan methods build: `plan.scan("t", source).filter(e).project([...])`.

This is the argument side of DataFusion's `LogicalPlanBuilder`: it turns what a
user writes (expressions, column names, qualified or bare, expression text) into
the arguments of a new node, resolving every column against the input's schema
first, so an unknown or ambiguous column fails here, with the candidates listed,
and not later. The node classes (`logical_plan.py`) call these functions from
their `filter`, `project`, ... methods; this module knows the input plan only
by its `schema`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ParseError
from ..model.builders import coalesce
from ..model.expression import Expression, Parameter, as_expression
from ..model.field_ref import FieldRef
from ..sql.parse import parse
from .aggregates import AggregateExpr
from .columns import qualify
from .errors import ColumnNotFoundError, PlanError
from .logical_schema import LogicalSchema
from .window import WindowExpr, WindowFrame

__all__ = [
    "aggregation",
    "filter_predicate",
    "join_condition",
    "join_pairs",
    "projection",
    "sort_keys",
    "using_columns",
    "window_functions",
]


def _field(name: str) -> Expression:
    return Parameter(FieldRef(name))


def _parsed(text: str, missing: ColumnNotFoundError) -> Expression:
    """Expression text (`"dep_delay * 2"`); text that is not an expression was a bad column."""
    try:
        return parse(text)
    except ParseError:
        raise missing from None


def _resolved(schema, value) -> tuple[Expression, Expression, str | None]:
    """(the user's expression, the same with qualified column refs, its text if any).

    A string naming a column (qualified or bare) is that column; any other string
    is read as expression text with `toolkit.parse`, and its text names the output.
    """
    if isinstance(value, str):
        try:
            schema.resolve(value)
        except ColumnNotFoundError as missing:
            expr = _parsed(value, missing)
            return expr, qualify(expr, schema), value
        expr = _field(value)
        return expr, qualify(expr, schema), None
    expr = as_expression(value)
    return expr, qualify(expr, schema), None


def _name_and_relation(schema, user: Expression, qualified: Expression, name: str | None,
                       text: str | None = None):
    """Output name (given, or from the user's text) and the relation it keeps.

    A column projected under its own name keeps its relation (`flights.carrier`);
    a computed or renamed column has none, as in DataFusion.
    """
    if name is None:
        if qualified.is_field and len(qualified.ref.leaves()) == 1:
            name = schema.field(qualified.ref.name).name
        elif text is not None:
            name = text
        elif user.is_field and user.ref.leaves()[-1].is_name:
            name = user.ref.leaves()[-1].name
        else:
            name = user.to_string()
    relation = None
    if qualified.is_field and len(qualified.ref.leaves()) == 1:
        field = schema.field(qualified.ref.name)
        if field.name == name:
            relation = field.relation
    return name, relation


def filter_predicate(plan, predicate) -> Expression:
    """The predicate of a Filter on `plan`, its columns qualified."""
    return _resolved(plan.schema, predicate)[1]


def projection(plan, exprs: Sequence, names: Sequence[str] | None = None):
    """(expressions, output names, relations) of a Projection on `plan`."""
    exprs = list(exprs)
    if names is not None and len(names) != len(exprs):
        raise PlanError(f"project: {len(exprs)} expressions but {len(names)} names")
    out, out_names, relations = [], [], []
    for i, value in enumerate(exprs):
        user, qualified, text = _resolved(plan.schema, value)
        name, relation = _name_and_relation(plan.schema, user, qualified,
                                            None if names is None else names[i], text)
        out.append(qualified)
        out_names.append(name)
        relations.append(relation)
    return out, out_names, relations


def aggregation(plan, group_by: Sequence, aggregates: Sequence[tuple]):
    """(keys, key names, key relations, aggregates) of an Aggregate on `plan`.

    Each aggregate is ``(func, expr, name)`` or ``(func, expr)`` with func one of
    `AGGREGATE_FUNCTIONS`; ``("count", None, "n")`` counts rows; percentile adds its
    fraction: ``("percentile", "x", "p90", 0.9)``.
    """
    keys, key_names, key_relations = [], [], []
    for value in group_by:
        user, qualified, text = _resolved(plan.schema, value)
        name, relation = _name_and_relation(plan.schema, user, qualified, None, text)
        keys.append(qualified)
        key_names.append(name)
        key_relations.append(relation)
    aggs = []
    for spec in aggregates:
        if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3, 4):
            raise PlanError(f"an aggregate is (func, expr, name) or (func, expr), or "
                            f"(\"percentile\", expr, name, fraction), got {spec!r}")
        func, arg = spec[0], spec[1]
        if arg is None or (isinstance(arg, str) and arg == "*"):
            user = qualified = text = None
        else:
            user, qualified, text = _resolved(plan.schema, arg)
        inner = "*" if user is None else (text or user.to_string())
        fraction = spec[3] if len(spec) == 4 else None
        if func == "percentile" and len(spec) != 4:
            raise PlanError(f"percentile needs its fraction: (\"percentile\", expr, name, "
                            f"fraction), got {spec!r}")
        name = spec[2] if len(spec) >= 3 else f"{func}({inner})"
        aggs.append(AggregateExpr(func, qualified, name, fraction))
    return keys, key_names, key_relations, aggs


def join_pairs(on) -> list[tuple]:
    """`on` as [(left column, right column), ...]; a name alone stands for itself on both sides."""
    if isinstance(on, str):
        on = [on]
    pairs = [(k, k) if isinstance(k, str) else tuple(k) for k in on]
    for pair in pairs:
        if len(pair) != 2:
            raise PlanError(f"join keys are (left column, right column) pairs, got {pair!r}")
    return pairs


def join_condition(left, right, condition) -> Expression:
    """A join's residual condition, its columns qualified against both inputs."""
    both = LogicalSchema(list(left.schema) + list(right.schema))
    return _resolved(both, condition)[1]


def using_columns(left, right, joined, names: Sequence[str], how: str):
    """(expressions, names) of the projection after a USING join: each key once, then the
    rest of the left, then the rest of the right (none after a semi or anti join)."""
    exprs, out_names = [], []
    for n in names:
        lk = left.schema.field(n).qualified_name
        rk = right.schema.field(n).qualified_name
        if how == "right":
            exprs.append(_field(rk))
        elif how == "full":
            exprs.append(coalesce(_field(lk), _field(rk)))
        else:
            exprs.append(_field(lk))
        out_names.append(n)
    keys = {side.schema.field(n).qualified_name for side in (left, right) for n in names}
    for side in (left, right) if how not in ("semi", "anti") else (left,):
        for f in side.schema:
            if f.qualified_name in keys:
                continue
            exprs.append(_field(f.qualified_name))
            out_names.append(f.name)
    return exprs, out_names


def sort_keys(plan, keys: Sequence) -> list[tuple[Expression, bool, bool]]:
    """(expression, ascending, nulls first) per key: a column/expression or (key, order[, nulls])."""
    out = []
    for key in keys:
        if not isinstance(key, (tuple, list)):
            key = (key,)
        order = key[1] if len(key) > 1 else "ascending"
        nulls = key[2] if len(key) > 2 else "nulls_last"
        if order not in ("ascending", "descending"):
            raise PlanError(f"sort order must be 'ascending' or 'descending', got {order!r}")
        if nulls not in ("nulls_first", "nulls_last"):
            raise PlanError(f"null placement must be 'nulls_first' or 'nulls_last', "
                            f"got {nulls!r}")
        qualified = _resolved(plan.schema, key[0])[1]
        out.append((qualified, order == "ascending", nulls == "nulls_first"))
    return out


_WINDOW_KEYS = ("func", "arg", "partition_by", "order_by", "frame", "offset", "default",
                "ignore_nulls")


def _window_frame(frame):
    if frame is None or isinstance(frame, WindowFrame):
        return frame
    if not (isinstance(frame, (tuple, list)) and len(frame) == 3
            and frame[0] in ("rows", "range")):
        raise PlanError(f"a window frame is None (SQL's default), ('rows', start, end) or "
                        f"('range', start, end), got {frame!r}")
    return WindowFrame(frame[1], frame[2], frame[0])


def window_functions(plan, functions: Sequence) -> list:
    """The WindowExprs of a Window on `plan`, from dicts of `_WINDOW_KEYS` (their order
    keys as (expression, ascending, nulls first), which the node makes SortKeys)."""
    out = []
    for i, spec in enumerate(functions):
        if not isinstance(spec, dict):
            raise PlanError(f"window function {i} must be a dict with keys "
                            f"{', '.join(_WINDOW_KEYS)}, got {type(spec).__name__}")
        unknown = sorted(set(spec) - set(_WINDOW_KEYS))
        if unknown or "func" not in spec:
            raise PlanError(f"window function {i}: unknown keys {unknown} (it takes "
                            f"{', '.join(_WINDOW_KEYS)}; func is required)")
        arg = spec.get("arg")
        arg = None if arg is None else _resolved(plan.schema, arg)[1]
        partition = tuple(_resolved(plan.schema, k)[1] for k in spec.get("partition_by", ()))
        order = tuple(sort_keys(plan, spec.get("order_by", ())))
        default = spec.get("default")  # a string names a column, as everywhere here
        default = None if default is None else _resolved(plan.schema, default)[1]
        out.append(WindowExpr(spec["func"], arg, partition, order,
                              _window_frame(spec.get("frame")), spec.get("offset", 1), default,
                              spec.get("ignore_nulls", False)))
    return out
