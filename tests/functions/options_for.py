"""Options that make each catalog function callable on the sample columns."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .samples import sample_array


def options_for(name: str, types):
    if name in ("is_in", "index_in"):
        t = types[0].value_type if pa.types.is_dictionary(types[0]) else types[0]
        return pc.SetLookupOptions(sample_array(t).slice(0, 2))
    if name in ("starts_with", "ends_with", "match_substring"):
        return pc.MatchSubstringOptions("a")
    if name == "match_like":
        return pc.MatchSubstringOptions("a%")
    if name == "utf8_slice_codeunits":
        return pc.SliceOptions(0, 2)
    if name == "struct_field":
        return pc.StructFieldOptions([0])
    if name == "make_struct":
        return pc.MakeStructOptions([f"f{i}" for i in range(len(types))])
    if name == "cast":
        return pc.CastOptions.unsafe(pa.utf8())
    if name == "round":
        return pc.RoundOptions(1)
    return None
