"""Options that make each catalog function callable on the sample columns.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .samples import sample_array

_BY_NAME = {
    "ascii_center": pc.PadOptions(5, "*"), "utf8_center": pc.PadOptions(5, "*"),
    "ascii_lpad": pc.PadOptions(4, "-"), "utf8_lpad": pc.PadOptions(4, "é"),
    "ascii_rpad": pc.PadOptions(4, "-"), "utf8_rpad": pc.PadOptions(4, "-"),
    "ascii_trim": pc.TrimOptions("a1"), "utf8_trim": pc.TrimOptions("ab "),
    "ascii_ltrim": pc.TrimOptions("aB"), "utf8_ltrim": pc.TrimOptions("aÄ"),
    "ascii_rtrim": pc.TrimOptions("1c"), "utf8_rtrim": pc.TrimOptions("9x "),
    "count_substring": pc.MatchSubstringOptions("a"),
    "count_substring_regex": pc.MatchSubstringOptions("[a-c]"),
    "find_substring": pc.MatchSubstringOptions("c"),
    "find_substring_regex": pc.MatchSubstringOptions("[0-9]"),
    "match_substring_regex": pc.MatchSubstringOptions("^[A-Z]", ignore_case=True),
    "replace_substring": pc.ReplaceSubstringOptions("a", "zz"),
    "replace_substring_regex": pc.ReplaceSubstringOptions("[0-9]+", "#", max_replacements=1),
    "extract_regex": pc.ExtractRegexOptions(r"(?P<letter>[a-zA-Z])(?P<digit>\d?)"),
    "extract_regex_span": pc.ExtractRegexSpanOptions(r"(?P<letter>[a-zA-Z])(?P<digit>\d?)"),
    "split_pattern": pc.SplitPatternOptions(" ", max_splits=1),
    "split_pattern_regex": pc.SplitPatternOptions("[ -]"),
    "utf8_normalize": pc.Utf8NormalizeOptions("NFD"),
    "utf8_replace_slice": pc.ReplaceSliceOptions(1, 2, "XY"),
    "binary_replace_slice": pc.ReplaceSliceOptions(0, 1, "Z"),
    "binary_slice": pc.SliceOptions(1, 3), "utf8_zero_fill": pc.ZeroFillOptions(4),
    "strptime": pc.StrptimeOptions("%Y-%m-%d", "s", error_is_null=True),
    "assume_timezone": pc.AssumeTimezoneOptions("America/New_York", ambiguous="earliest",
                                                nonexistent="latest"),
    "list_slice": pc.ListSliceOptions(0, 2), "round_to_multiple": pc.RoundToMultipleOptions(2),
    "strftime": pc.StrftimeOptions("%Y-%m-%dT%H:%M"),
    "round_temporal": pc.RoundTemporalOptions(2, "hour"),
    "floor_temporal": pc.RoundTemporalOptions(1, "week", week_starts_monday=False),
    "ceil_temporal": pc.RoundTemporalOptions(3, "day"),
    "map_lookup": pc.MapLookupOptions(pa.scalar("a"), "all"),
}


def options_for(name: str, types):
    if name in _BY_NAME:
        return _BY_NAME[name]
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
