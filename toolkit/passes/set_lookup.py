"""SetLookupOptions beyond what pyarrow's constructor offers.

pyarrow builds SetLookupOptions only with MATCH or SKIP (`skip_nulls`), yet Arrow
has four null-matching behaviours and SimplifyIsIn must keep whichever a call
carries when it trims the value set. Options round-trip through their IPC
serialization (one struct row), so a field can be replaced there and read back.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..model.options import option_values

__all__ = [
    "BEHAVIOR_NAMES",
    "EMIT_NULL",
    "INCONCLUSIVE",
    "MATCH",
    "SKIP",
    "null_matching_behavior",
    "set_lookup_options",
]

MATCH, SKIP, EMIT_NULL, INCONCLUSIVE = 0, 1, 2, 3
BEHAVIOR_NAMES = {MATCH: "MATCH", SKIP: "SKIP", EMIT_NULL: "EMIT_NULL",
                  INCONCLUSIVE: "INCONCLUSIVE"}
_BY_NAME = {v.lower(): k for k, v in BEHAVIOR_NAMES.items()}


def null_matching_behavior(options: pc.SetLookupOptions) -> int:
    return int(option_values(options)["null_matching_behavior"])


def set_lookup_options(value_set: pa.Array, behavior: int | str = MATCH) -> pc.SetLookupOptions:
    """SetLookupOptions with any of Arrow's four null-matching behaviours."""
    if isinstance(behavior, str):
        behavior = _BY_NAME[behavior.lower()]
    if behavior in (MATCH, SKIP):
        return pc.SetLookupOptions(value_set, skip_nulls=behavior == SKIP)
    template = pc.SetLookupOptions(value_set)
    table = pa.ipc.open_file(pa.py_buffer(template.serialize().to_pybytes())).read_all()
    column = table.column(0).combine_chunks()
    struct_type = column.type
    children = [column.field(i) for i in range(struct_type.num_fields)]
    index = struct_type.get_field_index("null_matching_behavior")
    children[index] = pa.array([behavior], struct_type.field(index).type)
    rebuilt = pa.StructArray.from_arrays(
        children, fields=[struct_type.field(i) for i in range(struct_type.num_fields)])
    out_table = pa.table({table.column_names[0]: rebuilt}).replace_schema_metadata(
        table.schema.metadata)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, out_table.schema) as writer:
        writer.write_table(out_table)
    return pc.SetLookupOptions.deserialize(sink.getvalue())
