"""What `exprscope explain/trace --substrait FILE` reads: a file's expressions or plan, and data.

Kept apart from `cli.py` because it carries the substrait package's protobuf
classes, which the other commands never need: `cli.py` loads it only when
`--substrait` is given. Every failure is an `ExprscopeError` sentence.
"""

from __future__ import annotations

import os

import pyarrow as pa

import toolkit as tk

from ..errors import InputError
from ..interop.substrait.expressions import BoundExpressions, from_substrait_all
from ..interop.substrait.files import plan_reads, read_substrait_file
from ..plan.sources import TableSource
from ..support.visible_text import visible
from .inputs import load_data

__all__ = ["SubstraitInput", "conform", "from_plan", "plan_tables"]


class SubstraitInput:
    """A Substrait file's content: `expressions` (a BoundExpressions) or `plan` (the message)."""

    def __init__(self, path: str):
        message = read_substrait_file(path)
        self.path = path
        self.is_plan = type(message).__name__ == "Plan"
        self.message = message
        self.expressions: BoundExpressions | None = None
        if not self.is_plan:
            self.expressions = from_substrait_all(message)

    @property
    def kind(self) -> str:
        return "Plan" if self.is_plan else "ExtendedExpression"


def conform(table: pa.Table, schema: pa.Schema, path: str) -> pa.Table:
    """`table`'s columns as the message's schema types them (the message's expressions are
    bound to those types): every field must be a column, cast where the types differ."""
    columns = {}
    for f in schema:
        i = table.schema.get_field_index(f.name)
        if i < 0:
            raise InputError(f"--data: the Substrait message reads the column "
                             f"{visible(f.name)!r}, but {visible(path)} has none "
                             f"(it has {visible(', '.join(table.schema.names))})")
        column = table.column(i)
        if column.type != f.type:
            try:
                column = column.cast(f.type)
            except (pa.ArrowException, ValueError) as exc:
                raise InputError(f"--data: column {visible(f.name)!r} is {column.type}; the "
                                 f"Substrait message reads it as {f.type}, and the cast "
                                 f"fails: {' '.join(str(exc).split())}") from None
        columns[f.name] = column
    return pa.table(columns, schema=schema)


class DataNotGiven(TableSource):
    """A table the plan reads whose rows were not given: its schema and no rows, labelled
    so that the plan does not read as running on an empty table."""

    def __init__(self, schema: pa.Schema, how_to_give: str):
        super().__init__(schema.empty_table())
        self.how_to_give = how_to_give

    def describe(self) -> str:
        return f"(its data not given: {self.how_to_give})"


def plan_tables(message, data: list[str] | None) -> dict[str, pa.Table | DataNotGiven]:
    """The table for each named read of the plan: from `--data` (PATH when the plan reads one
    table, NAME=PATH for each otherwise), else the read's schema, labelled as not given."""
    reads = {r.name: r for r in plan_reads(message)}
    tables = {name: DataNotGiven(read.schema, "--data PATH" if len(reads) == 1 else
                                 f"--data {visible(name)}=PATH")
              for name, read in reads.items()}
    for item in data or []:
        name, path = _named(item, reads)
        tables[name] = conform(load_data(path), reads[name].schema, path)
    return tables


def _named(item: str, reads: dict) -> tuple[str, str]:
    name, sep, path = item.partition("=")
    if sep and name in reads:
        return name, path
    listed = ", ".join(visible(n) for n in reads) or "none"
    if sep and not os.path.exists(item):  # NAME=PATH, not a file whose name holds '='
        raise InputError(f"--data {visible(item)}: the plan reads no table called "
                         f"{visible(name)!r} (it reads {listed})")
    if len(reads) == 1:
        return next(iter(reads)), item
    raise InputError(f"--data: the plan reads {len(reads)} tables ({listed}); give each as "
                     "--data NAME=PATH")


def from_plan(message, tables: dict[str, pa.Table]):
    """The plan as exprscope's LogicalPlan, through `plan.from_substrait`."""
    return tk.plan.from_substrait(message, tables)
