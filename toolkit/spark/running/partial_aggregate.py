"""Splitting a hash aggregate into a partial one per partition and a final one after the shuffle.

Shuffling every input row to the partition of its group is what makes a
distributed aggregate slow; shuffling one row per group and partition is what
Spark itself does. sum, count, min, max, bool_and and bool_or combine (a sum of
sums, a sum of counts, a bool_and of bool_ands ...); a mean is carried as a sum and a count and divided at the end.
Means of decimals are not split (Arrow's decimal division picks its own scale),
and neither is anything else: `split_aggregate` returns None and the aggregate
runs whole after the rows are shuffled.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pat

import toolkit as tk

from ...plan.aggregates import aggregate_type
from ...plan.physical_plan import HashAggregateExec, PhysicalAggregate, ProjectionExec

__all__ = ["split_aggregate"]


def split_aggregate(agg):
    """(partial node over agg's input, function building the final fragment over a scan), or None."""

    for a in agg.aggregates:
        if a.func not in ("sum", "count", "min", "max", "mean", "bool_and", "bool_or"):
            return None
        if a.func == "mean" and not (pat.is_integer(a.arg.type) or pat.is_floating(a.arg.type)):
            return None
    keys = len(agg.group_exprs)
    fields = [pa.field(f"k{i}", e.type) for i, e in enumerate(agg.group_exprs)]
    partial_aggs, finals = [], []  # finals: (function over the partial columns, their indices)
    for a in agg.aggregates:
        if a.func == "mean":
            s, c = len(fields), len(fields) + 1
            partial_aggs.append(PhysicalAggregate("sum", a.arg, a.nullable_arg,
                                                  aggregate_type("sum", a.arg.type)))
            fields.append(pa.field(f"p{s}", aggregate_type("sum", a.arg.type)))
            partial_aggs.append(PhysicalAggregate("count", a.arg, a.nullable_arg, pa.int64()))
            fields.append(pa.field(f"p{c}", pa.int64()))
            finals.append(("mean", (s, c)))
        else:
            i = len(fields)
            out = aggregate_type(a.func, None if a.arg is None else a.arg.type)
            partial_aggs.append(PhysicalAggregate(a.func, a.arg, a.nullable_arg, out))
            fields.append(pa.field(f"p{i}", out))
            finals.append((a.func, (i,)))
    partial_schema = pa.schema(fields)
    partial = HashAggregateExec(agg.children[0], agg.group_exprs, agg.group_nullables,
                                partial_aggs, partial_schema, agg.input_names)

    def final(scan):
        """The final aggregate over the partial rows, then the original's output columns."""
        refs = {f.name: tk.bind(tk.field(f.name), partial_schema) for f in partial_schema}
        merged_fields = list(partial_schema)[:keys]
        merged_aggs = []
        for f in list(partial_schema)[keys:]:
            combine = "sum"
            func = next(fn for fn, cols in finals if int(f.name[1:]) in cols)
            if func in ("min", "max", "bool_and", "bool_or"):
                combine = func
            merged_aggs.append(PhysicalAggregate(combine, refs[f.name], True, f.type))
            merged_fields.append(f)
        merged_schema = pa.schema(merged_fields)
        merged = HashAggregateExec(scan, [refs[f"k{i}"] for i in range(keys)], [True] * keys,
                                   merged_aggs, merged_schema, partial_schema.names)
        columns = {f.name: tk.bind(tk.field(f.name), merged_schema) for f in merged_schema}
        exprs = [columns[f"k{i}"] for i in range(keys)]
        for (func, cols), out in zip(finals, list(agg.schema)[keys:]):
            if func == "mean":
                total, count = (columns[f"p{c}"] for c in cols)
                exprs.append(tk.bind(tk.call("divide", [tk.cast(total, pa.float64()),
                                                        tk.cast(count, pa.float64())]),
                                     merged_schema))
            elif func == "count":
                exprs.append(tk.bind(tk.coalesce(columns[f"p{cols[0]}"],
                                                 tk.literal(0, pa.int64())), merged_schema))
            else:
                exprs.append(columns[f"p{cols[0]}"])
        exprs = [e if e.type == f.type else tk.bind(tk.cast(e, f.type), merged_schema)
                 for e, f in zip(exprs, agg.schema)]
        project = ProjectionExec(merged, exprs, agg.schema.names,
                                 [f.nullable for f in agg.schema], merged_schema.names)
        return project

    return partial, final
