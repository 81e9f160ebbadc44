"""exprscope's logical plan nodes written as Substrait rels that Acero runs.

Each node's expressions are bound to its input, so a field's path is already
the position Substrait wants. Where Substrait moved a field on and Acero (as of
pyarrow 26) still reads only the old one, both are written with equal values:
a fetch's count and offset as plain numbers and as literals, a grouping's keys
inside the grouping and as references to the rel's grouping expressions. A
scan's column list is written as the read's emit (Acero refuses a read's
projection mask). Names Substrait does not carry (projected and aggregated
columns) go in each rel's `hint.output_names`, where exprscope reads them back.
"""

from __future__ import annotations

import pyarrow as pa
from substrait import algebra_pb2

from ...errors import SubstraitError
from ...functions.bind import bind
from ...model.expression import Call, Expression, Literal, Parameter
from ...model.field_ref import FieldRef
from ...plan.float_keys import IEEE, nan_equal
from ...plan.logical_plan import (
    Aggregate,
    ConditionJoin,
    Filter,
    Join,
    Limit,
    LogicalPlan,
    Projection,
    ScalarSubquery,
    Sort,
    SubqueryFilter,
    TableScan,
    Union,
    Window,
)
from ...support.visible_text import visible
from .distributions import write_distribution
from .functions import AGGREGATE_MAPPINGS
from .old_fields import add_old_field
from .sort_fields import SORT_DIRECTION
from .types import schema_to_substrait, type_to_substrait
from .window_rels import write_window_rels
from .write import ExpressionWriter

__all__ = ["PlanWriter"]

_JOIN_TYPE = {"inner": algebra_pb2.JoinRel.JOIN_TYPE_INNER,
              "left": algebra_pb2.JoinRel.JOIN_TYPE_LEFT,
              "right": algebra_pb2.JoinRel.JOIN_TYPE_RIGHT,
              "full": algebra_pb2.JoinRel.JOIN_TYPE_OUTER,
              "semi": algebra_pb2.JoinRel.JOIN_TYPE_LEFT_SEMI,
              "anti": algebra_pb2.JoinRel.JOIN_TYPE_LEFT_ANTI}
# fields Substrait removed that Acero still reads (and reads instead of their successors)
_OLD_FETCH_OFFSET = 3
_OLD_FETCH_COUNT = 4
_OLD_GROUPING_EXPRESSIONS = 1


class PlanWriter:
    """Writes the rels of one Plan, collecting the functions they declare."""

    def __init__(self):
        self.expressions = ExpressionWriter()

    @property
    def anchors(self) -> dict[tuple[str, str], int]:
        return self.expressions.anchors

    def write(self, node: LogicalPlan) -> algebra_pb2.Rel:
        out = algebra_pb2.Rel()
        if isinstance(node, TableScan):
            self._read(node, out.read)
        elif isinstance(node, Filter):
            out.filter.input.CopyFrom(self.write(node.input))
            out.filter.condition.CopyFrom(self._expression(node, node.predicate))
        elif isinstance(node, Projection):
            self._project(node, out.project)
        elif isinstance(node, Aggregate):
            self._aggregate(node, out.aggregate)
        elif isinstance(node, Sort):
            out.sort.input.CopyFrom(self.write(node.input))
            for key in node.keys:
                field = out.sort.sorts.add()
                field.expr.CopyFrom(self._expression(node, key.expr))
                field.direction = SORT_DIRECTION[(key.ascending, key.nulls_first)]
        elif isinstance(node, Limit):
            self._fetch(node, out.fetch)
        elif isinstance(node, Join | ConditionJoin):
            if getattr(node, "how", None) == "cross":
                out.cross.left.CopyFrom(self.write(node.left))
                out.cross.right.CopyFrom(self.write(node.right))
            else:
                self._join(node, out.join)
        elif isinstance(node, SubqueryFilter | ScalarSubquery):
            return self.write(node.as_join)  # Substrait's subqueries are expressions: the join
        elif isinstance(node, Window):
            return self._window(node)
        elif isinstance(node, Union):
            out.set.op = algebra_pb2.SetRel.SET_OP_UNION_ALL
            for child in node.children:
                out.set.inputs.add().CopyFrom(self.write(child))
        else:
            raise SubstraitError(f"cannot write {visible(node.label())} as Substrait: a "
                                 f"{type(node).__name__} node has no Substrait rel exprscope "
                                 "writes (it writes TableScan, Filter, Projection, Aggregate, "
                                 "Sort, Limit, joins of every kind, subqueries as the joins "
                                 "they run as, Union and Window)")
        return out

    def _expression(self, node: LogicalPlan, e: Expression) -> algebra_pb2.Expression:
        try:
            return self.expressions.write(e)
        except SubstraitError as exc:
            raise SubstraitError(f"in {visible(_short(node.label()))}: {exc}") from None

    def _read(self, node: TableScan, read) -> None:
        schema = node.source.schema
        try:
            schema_to_substrait(schema, read.base_schema, self.expressions.user_types)
        except SubstraitError as exc:
            raise SubstraitError(f"cannot write {visible(node.label())} as Substrait: in the "
                                 f"table's schema, {exc}") from None
        read.named_table.names.append(node.relation)
        if node.projection is not None:
            read.common.emit.output_mapping.extend(schema.get_field_index(n)
                                                   for n in node.projection)

    def _project(self, node: Projection, project) -> None:
        project.input.CopyFrom(self.write(node.input))
        for e in node.exprs:
            project.expressions.add().CopyFrom(self._expression(node, e))
        width = len(node.input.schema)
        project.common.emit.output_mapping.extend(range(width, width + len(node.exprs)))
        project.common.hint.output_names.extend(node.names)

    def _aggregate(self, node: Aggregate, aggregate) -> None:
        aggregate.input.CopyFrom(self.write(node.input))
        grouping = aggregate.groupings.add()
        for i, key in enumerate(node.group_exprs):
            written = self._expression(node, key)
            aggregate.grouping_expressions.add().CopyFrom(written)
            grouping.expression_references.append(i)
            add_old_field(grouping, _OLD_GROUPING_EXPRESSIONS, written)
        fields = list(node.schema)[len(node.group_exprs):]
        for agg, field in zip(node.aggregates, fields):
            if agg.func not in AGGREGATE_MAPPINGS:
                raise SubstraitError(f"cannot write {agg.to_string()} as Substrait: Substrait "
                                     f"has no aggregate for exprscope's {agg.func} (its "
                                     "quantile returns a list of n-tile boundaries)")
            measure = aggregate.measures.add().measure
            extension, name = AGGREGATE_MAPPINGS[agg.func]
            measure.function_reference = self.anchors.setdefault((extension, name),
                                                                 len(self.anchors) + 1)
            measure.phase = algebra_pb2.AGGREGATION_PHASE_INITIAL_TO_RESULT
            measure.invocation = algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_ALL
            if agg.arg is not None:  # count with no argument counts rows
                measure.arguments.add().value.CopyFrom(self._expression(node, agg.arg))
            write_distribution(measure, agg.func)
            measure.output_type.CopyFrom(type_to_substrait(
                field.type, field.nullable, f"{agg.to_string()} AS {agg.name}",
                self.expressions.user_types))
        aggregate.common.direct.SetInParent()  # Acero refuses a common with no emit kind
        aggregate.common.hint.output_names.extend([*node.group_names,
                                                   *(a.name for a in node.aggregates)])

    def _window(self, node: Window) -> algebra_pb2.Rel:
        added = list(node.schema)[len(node.input.schema):]

        def output_type(i: int):
            field = added[i]
            return type_to_substrait(field.type, field.nullable,
                                     f"{node.functions[i].to_string()} AS {node.names[i]}",
                                     self.expressions.user_types)

        return write_window_rels(
            node, self.write(node.input), lambda e: self._expression(node, e),
            lambda extension, name: self.anchors.setdefault((extension, name),
                                                            len(self.anchors) + 1),
            output_type)

    def _fetch(self, node: Limit, fetch) -> None:
        fetch.input.CopyFrom(self.write(node.input))
        fetch.offset_expr.literal.i64 = node.skip
        add_old_field(fetch, _OLD_FETCH_OFFSET, node.skip)
        if node.fetch is not None:  # no count: every row after the offset
            fetch.count_expr.literal.i64 = node.fetch
            add_old_field(fetch, _OLD_FETCH_COUNT, node.fetch)
        else:  # the old field's sign for every row
            add_old_field(fetch, _OLD_FETCH_COUNT, -1)

    def _join(self, node: Join | ConditionJoin, join) -> None:
        """A JoinRel whose one expression is the key equalities ANDed with the residual
        condition, over the left columns then the right ones. Substrait's `equal` is
        IEEE's (NaN equals nothing): a float key of a join that pairs NaN with NaN
        (float_keys normalized, Spark's) is written `l = r OR (is_nan(l) AND is_nan(r))`."""
        join.left.CopyFrom(self.write(node.left))
        join.right.CopyFrom(self.write(node.right))
        join.type = _JOIN_TYPE[node.how]
        terms: list[Expression] = [_key_equality(node, lk, rk) for lk, rk in node.on]
        if getattr(node, "condition", None) is not None:
            terms.append(node.condition)
        condition = terms[0] if terms else Literal(pa.scalar(True))
        for e in terms[1:]:
            condition = Call("and_kleene", [condition, e])
        both = pa.schema(list(node.left.schema.binding_schema())
                         + list(node.right.schema.binding_schema()))
        join.expression.CopyFrom(self._expression(node, bind(condition, both)))


def _key_equality(node: Join | ConditionJoin, lk: str, rk: str) -> Expression:
    left, right = Parameter(FieldRef(lk)), Parameter(FieldRef(rk))
    if node.float_keys == IEEE or not pa.types.is_floating(node.left.schema.field(lk).type):
        return Call("equal", [left, right])
    return nan_equal(left, right)


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."
