"""The fluent plan builder: `plan.scan("t", source).filter(e).project([...]).limit(10)`.

The builder is DataFusion's `build(logical_plan, params...) -> logical_plan`: it
turns what a user writes (expressions, column names, qualified or bare) into
nodes, resolving every column against the input's schema first, so an unknown
or ambiguous column fails here, with the candidates listed, and not later.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..expression import Expression, Parameter, as_expression
from ..field_ref import FieldRef
from .aggregates import AggregateExpr
from .columns import qualify
from .errors import ColumnNotFoundError, PlanError

__all__ = ["PlanBuilder", "scan"]


def scan(relation: str, source) -> LogicalPlan:  # noqa: F821
    """A TableScan of a pyarrow Table, pandas DataFrame, .parquet/.csv path or Spark DataFrame."""
    from .logical_plan import TableScan
    from .sources import as_source

    return TableScan(relation, as_source(source))


def _field(name: str) -> Expression:
    return Parameter(FieldRef(name))


def _parsed(text: str, missing: ColumnNotFoundError) -> Expression:
    """Expression text (`"dep_delay * 2"`); text that is not an expression was a bad column."""
    from ..errors import ParseError
    from ..parse import parse

    try:
        return parse(text)
    except ParseError:
        raise missing from None


class PlanBuilder:
    """The methods every logical plan has to grow a bigger plan on top of itself."""

    def _resolved(self, value) -> tuple[Expression, Expression, str | None]:
        """(the user's expression, the same with qualified column refs, its text if any).

        A string naming a column (qualified or bare) is that column; any other string
        is read as expression text with `toolkit.parse`, and its text names the output.
        """
        if isinstance(value, str):
            try:
                self.schema.resolve(value)
            except ColumnNotFoundError as missing:
                expr = _parsed(value, missing)
                return expr, qualify(expr, self.schema), value
            expr = _field(value)
            return expr, qualify(expr, self.schema), None
        expr = as_expression(value)
        return expr, qualify(expr, self.schema), None

    def _name_and_relation(self, user: Expression, qualified: Expression, name: str | None,
                           text: str | None = None):
        """Output name (given, or from the user's text) and the relation it keeps.

        A column projected under its own name keeps its relation (`flights.carrier`);
        a computed or renamed column has none, as in DataFusion.
        """
        if name is None:
            if qualified.is_field and len(qualified.ref.leaves()) == 1:
                name = self.schema.field(qualified.ref.name).name
            elif text is not None:
                name = text
            elif user.is_field and user.ref.leaves()[-1].is_name:
                name = user.ref.leaves()[-1].name
            else:
                name = user.to_string()
        relation = None
        if qualified.is_field and len(qualified.ref.leaves()) == 1:
            field = self.schema.field(qualified.ref.name)
            if field.name == name:
                relation = field.relation
        return name, relation

    def filter(self, predicate) -> LogicalPlan:  # noqa: F821
        """Keep the rows where `predicate` is true."""
        from .logical_plan import Filter

        _, qualified, _ = self._resolved(predicate)
        return Filter(self, qualified)

    def project(self, exprs: Sequence, names: Sequence[str] | None = None) -> LogicalPlan:  # noqa: F821
        """One output column per expression (or column name), named by `names` or the text."""
        from .logical_plan import Projection

        exprs = list(exprs)
        if names is not None and len(names) != len(exprs):
            raise PlanError(f"project: {len(exprs)} expressions but {len(names)} names")
        out, out_names, relations = [], [], []
        for i, value in enumerate(exprs):
            user, qualified, text = self._resolved(value)
            name, relation = self._name_and_relation(user, qualified,
                                                     None if names is None else names[i], text)
            out.append(qualified)
            out_names.append(name)
            relations.append(relation)
        return Projection(self, out, out_names, relations)

    def aggregate(self, group_by: Sequence, aggregates: Sequence[tuple]) -> LogicalPlan:  # noqa: F821
        """Group by `group_by` (expressions or column names) and compute the aggregates.

        Each aggregate is ``(func, expr, name)`` or ``(func, expr)`` with func one of sum,
        count, min, max, mean; ``("count", None, "n")`` counts rows.
        """
        from .logical_plan import Aggregate

        keys, key_names, key_relations = [], [], []
        for value in group_by:
            user, qualified, text = self._resolved(value)
            name, relation = self._name_and_relation(user, qualified, None, text)
            keys.append(qualified)
            key_names.append(name)
            key_relations.append(relation)
        aggs = []
        for spec in aggregates:
            if not isinstance(spec, (tuple, list)) or len(spec) not in (2, 3):
                raise PlanError(f"an aggregate is (func, expr, name) or (func, expr), got {spec!r}")
            func, arg = spec[0], spec[1]
            if arg is None or (isinstance(arg, str) and arg == "*"):
                user = qualified = text = None
            else:
                user, qualified, text = self._resolved(arg)
            inner = "*" if user is None else (text or user.to_string())
            name = spec[2] if len(spec) == 3 else f"{func}({inner})"
            aggs.append(AggregateExpr(func, qualified, name))
        return Aggregate(self, keys, key_names, key_relations, aggs)

    def join(self, other, on, how: str = "inner") -> LogicalPlan:  # noqa: F821
        """Equi-join with `other`: `on` is [(left column, right column), ...] or shared names."""
        from .logical_plan import Join

        if isinstance(on, str):
            on = [on]
        pairs = [(k, k) if isinstance(k, str) else tuple(k) for k in on]
        for pair in pairs:
            if len(pair) != 2:
                raise PlanError(f"join keys are (left column, right column) pairs, got {pair!r}")
        return Join(self, other, pairs, how)

    def sort(self, keys: Sequence) -> LogicalPlan:  # noqa: F821
        """Order by keys: a column/expression, or (key, "ascending"|"descending"[, nulls])."""
        from .logical_plan import Sort, SortKey

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
            _, qualified, _ = self._resolved(key[0])
            out.append(SortKey(qualified, order == "ascending", nulls == "nulls_first"))
        return Sort(self, out)

    def limit(self, n: int, offset: int = 0) -> LogicalPlan:  # noqa: F821
        """At most `n` rows, after skipping `offset`."""
        from .logical_plan import Limit

        return Limit(self, n, offset)
