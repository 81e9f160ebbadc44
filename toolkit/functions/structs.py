"""Structs: make_struct builds one from its arguments, struct_field reads a child.

make_struct's output type comes from MakeStructOptions (names, nullability,
metadata; names default to "0", "1", ...); struct_field's from the child the
field reference in StructFieldOptions points at (by name or index path; unions
by index). Both are checked at bind time.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pat

from ..errors import BindError, FieldRefError
from ..model.field_ref import FieldRef
from ..model.options import option_values
from .function import Arity, Kernel, NullHandling
from .registry import definer
from .types import ANY, computed, of_kind

define = definer("nested")

__all__ = ["struct_field_type"]


def _make_struct_type(types, options) -> pa.DataType:
    if not types:
        # pyarrow's eager pc.make_struct() gives a struct<> array of length 0 whatever the
        # rows, and Acero crashes the interpreter projecting one: there is no answer to follow
        raise BindError("make_struct needs at least one argument: with none, pyarrow's "
                        "pc.make_struct() returns an empty struct<> array of no rows, and "
                        "a scan or projection of it crashes")
    values = option_values(options) if options is not None else {"field_names": []}
    if not values["field_names"]:  # Arrow names unnamed fields "0", "1", ...
        names = [str(i) for i in range(len(types))]
        nullable = [True] * len(types)
        metadata = [None] * len(types)
    else:
        names = list(values["field_names"])
        nullable = list(values["field_nullability"])
        metadata = [dict(m) if m else None for m in values["field_metadata"]]
        if not (len(names) == len(nullable) == len(metadata)):
            raise BindError("make_struct: field_names, field_nullability and field_metadata "
                            "must have the same length")
        if len(names) != len(types):
            raise BindError(f"make_struct: {len(types)} arguments but {len(names)} field names")
    return pa.struct([pa.field(n, t, nullable=nb, metadata=md)
                      for n, t, nb, md in zip(names, types, nullable, metadata)])


define("make_struct", [Kernel("make_struct", (ANY,), computed("struct<names: types>", _make_struct_type),
                              varargs=True)],
       "A struct of the arguments, named by MakeStructOptions.field_names.",
       arity=Arity(0, None), null_handling=NullHandling.OUTPUT_NOT_NULL,
       options_class=pc.MakeStructOptions, default_options=pc.MakeStructOptions())


def struct_field_type(struct_type: pa.DataType, options) -> pa.DataType:
    """The type of the child that StructFieldOptions' field reference selects."""
    if options is None:
        raise BindError("Function 'struct_field' needs StructFieldOptions; none were given")
    dot_path = option_values(options)["field_ref"]
    ref = FieldRef.from_dot_path(dot_path)
    path = ref.field_path
    if path is not None:
        t = struct_type
        for i in path.indices:
            if not (pat.is_struct(t) or pat.is_union(t)) or not 0 <= i < t.num_fields:
                raise BindError(f"struct_field: index out of bounds in {ref.to_string()} for {struct_type}")
            t = t.field(i).type
        return t
    if not pat.is_struct(struct_type):
        raise BindError(f"struct_field: a union's children are selected by index, not {dot_path!r}")
    try:
        _, found = ref.resolve(struct_type)
    except FieldRefError as exc:
        raise BindError(f"struct_field: {exc}") from exc
    return found.type


define("struct_field",
       [Kernel("struct_field", (of_kind(k, pred),),
               computed("the selected child's type", lambda ts, o: struct_field_type(ts[0], o)))
        for k, pred in (("struct", pat.is_struct),
                        ("dense_union", lambda t: pat.is_union(t) and t.mode == "dense"),
                        ("sparse_union", lambda t: pat.is_union(t) and t.mode == "sparse"))],
       "The child of a struct (or union) that StructFieldOptions.field_ref names.",
       null_handling=NullHandling.COMPUTED, options_class=pc.StructFieldOptions,
       options_required=True)
