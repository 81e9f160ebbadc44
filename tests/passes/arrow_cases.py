"""Shared fixtures for the pass tests: Arrow's kBoringSchema, binding helpers, and an
Acero reference evaluator (a bound exprscope expression converted to pc.Expression)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

import toolkit as tk
from toolkit.model.expression import Expression, as_expression, postorder

# the schema of Arrow's expression_test.cc
BORING_SCHEMA = pa.schema([
    pa.field("bool", pa.bool_()),
    pa.field("i8", pa.int8()),
    pa.field("i32", pa.int32()),
    pa.field("i32_req", pa.int32(), nullable=False),
    pa.field("u32", pa.uint32()),
    pa.field("i64", pa.int64()),
    pa.field("f32", pa.float32()),
    pa.field("f32_req", pa.float32(), nullable=False),
    pa.field("f64", pa.float64()),
    pa.field("date64", pa.date64()),
    pa.field("str", pa.utf8()),
    pa.field("dict_str", pa.dictionary(pa.int32(), pa.utf8())),
    pa.field("dict_i32", pa.dictionary(pa.int32(), pa.int32())),
    pa.field("ts_ns", pa.timestamp("ns")),
    pa.field("ts_s", pa.timestamp("s")),
    pa.field("binary", pa.binary()),
    pa.field("ts_s_utc", pa.timestamp("s", "UTC")),
])


def bound(expr, schema=BORING_SCHEMA) -> Expression:
    return tk.bind(as_expression(expr), schema)


def call(name, *args, options=None):
    return tk.call(name, list(args), options)


def cast(expr, to_type):
    return tk.call("cast", [expr], pc.CastOptions.safe(to_type))


def true_unless_null(expr):
    return tk.call("true_unless_null", [expr])


def null_literal(type_):
    return tk.literal(None, type_)


def assert_same_expr(actual: Expression, expected: Expression):
    assert actual.equals(expected), f"\n  actual:   {actual}\n  expected: {expected}"


def to_pc_expression(expr: Expression) -> pc.Expression:
    """The same computation as a pyarrow.compute.Expression, for Acero to evaluate."""
    done: dict[int, pc.Expression] = {}
    for node in postorder(expr):
        if node.is_literal:
            out = pc.scalar(node.value)
        elif node.is_field:
            out = pc.field(*node.path.indices) if node.path is not None else pc.field(
                node.ref.name)
        else:
            name = node.function.pc_name or node.name if node.function is not None else node.name
            out = pc.Expression._call(name, [done[id(a)] for a in node.args], node.options)
        done[id(node)] = out
    return done[id(expr)]


def evaluate_acero(expr: Expression, table: pa.Table) -> pa.Array:
    """Acero's result for `expr` on `table`, always an array of the table's length."""
    result = ds.dataset(table).to_table(columns={"out": to_pc_expression(expr)})
    return result.column("out").combine_chunks()


def evaluate_full(expr: Expression, table: pa.Table) -> pa.Array:
    """toolkit.evaluate's result as an array of the table's length (scalars broadcast)."""
    out = tk.evaluate(expr, table)
    if isinstance(out, pa.ChunkedArray):
        out = out.combine_chunks()
    if isinstance(out, pa.Scalar):
        out = pa.array([out.as_py()] * table.num_rows, out.type) if out.is_valid else \
            pa.nulls(table.num_rows, out.type)
    return out
