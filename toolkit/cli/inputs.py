"""What the `exprscope` command reads: data files and `--schema "a:int64,b:string"` specs.

Kept apart from the argument handling so each failure becomes one clear
`InputError` sentence (with a caret under a bad type name), never a traceback.
"""

from __future__ import annotations

import os
import re

import pyarrow as pa
from pyarrow import feather

from ..errors import InputError, caret_snippet
from ..support import late

pyarrow_csv = late.module("pyarrow.csv")
pyarrow_parquet = late.module("pyarrow.parquet")

__all__ = ["DATA_SUFFIXES", "InputError", "load_data", "parse_schema_spec"]

DATA_SUFFIXES = (".parquet", ".pq", ".csv", ".tsv", ".arrow", ".feather", ".ipc")


_ALIASES = {"int": "int64", "integer": "int64", "long": "int64", "str": "string",
            "text": "string", "boolean": "bool", "float": "float64", "real": "float64",
            "double": "float64"}
_ITEM = re.compile(r"\s*([^:,]+?)\s*:\s*([^,]*?)\s*(?:,|$)")


def parse_schema_spec(spec: str) -> pa.Schema:
    """`"a:int64, b:string, ts:timestamp[us]"` as a pyarrow schema."""
    fields = []
    pos = 0
    text = spec.strip()
    if not text:
        raise InputError("--schema is empty: write it as \"a:int64,b:string\"")
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if m is None or m.end() == pos:
            raise InputError("--schema items are name:type, separated by commas\n"
                             + caret_snippet(text, pos))
        name, type_name = m.group(1), m.group(2)
        if not type_name:
            raise InputError(f"--schema: field {name!r} has no type\n"
                             + caret_snippet(text, m.start(2)))
        try:
            t = pa.type_for_alias(_ALIASES.get(type_name.lower(), type_name))
        except (ValueError, KeyError):
            raise InputError(f"--schema: unknown type {type_name!r} (try int64, float64, "
                             f"string, bool, date32, timestamp[us])\n"
                             + caret_snippet(text, m.start(2), len(type_name))) from None
        fields.append(pa.field(name, t))
        pos = m.end()
    names = [f.name for f in fields]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise InputError(f"--schema names the field {duplicate!r} twice")
    return pa.schema(fields)


def load_data(path: str, schema: pa.Schema | None = None) -> pa.Table:
    """A Parquet, CSV/TSV or Arrow IPC file as a Table; `schema` types the named columns."""
    if not os.path.exists(path):
        raise InputError(f"--data: no such file: {path}")
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix in (".parquet", ".pq"):
            table = pyarrow_parquet.read_table(path)
        elif suffix in (".csv", ".tsv"):
            pcsv = pyarrow_csv
            types = {f.name: f.type for f in schema} if schema is not None else None
            table = pcsv.read_csv(
                path, parse_options=pcsv.ParseOptions(delimiter="\t" if suffix == ".tsv" else ","),
                convert_options=pcsv.ConvertOptions(column_types=types))
        elif suffix in (".arrow", ".feather", ".ipc"):
            table = feather.read_table(path)
        else:
            raise InputError(f"--data: cannot read {suffix or 'files without a suffix'}; "
                             f"use one of {', '.join(DATA_SUFFIXES)}")
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"--data: cannot read {path}: {exc}") from None
    if schema is not None:
        table = _cast_named(table, schema, path)
    return table


def _cast_named(table: pa.Table, schema: pa.Schema, path: str) -> pa.Table:
    for f in schema:
        i = table.schema.get_field_index(f.name)
        if i < 0:
            raise InputError(f"--schema names {f.name!r}, but {path} has no such column "
                             f"(it has {', '.join(table.schema.names)})")
        if table.schema.field(i).type != f.type:
            try:
                table = table.set_column(i, f.name, table.column(i).cast(f.type))
            except (pa.ArrowException, ValueError) as exc:
                raise InputError(f"--schema: column {f.name!r} cannot be read as {f.type}: "
                                 f"{exc}") from None
    return table
