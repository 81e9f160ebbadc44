"""FieldRef and FieldPath as Arrow has them: flattening, dot paths, resolution, errors."""

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit import FieldPath, FieldRef

NESTED = pa.schema([
    ("x", pa.int32()),
    ("s", pa.struct([("y", pa.int8()), ("t", pa.struct([("z", pa.string())]))])),
    ("dup", pa.int64()),
    ("dup", pa.float64()),
])


def arrow_error(schema, ref_parts):
    """The message pyarrow itself gives when binding a field ref to `schema`."""
    table = pa.Table.from_arrays([pa.array([], f.type) for f in schema], schema=schema)
    with pytest.raises(pa.ArrowInvalid) as info:
        ds.dataset(table).to_table(filter=pc.field(*ref_parts).is_valid())
    return str(info.value)


# -- construction and flattening ---------------------------------------------------------
def test_the_three_alternatives():
    assert FieldRef("a").is_name and FieldRef("a").name == "a"
    assert FieldRef(2).is_field_path and FieldRef(2).field_path == FieldPath([2])
    nested = FieldRef("a", "b")
    assert nested.is_nested and [r.name for r in nested.nested_refs] == ["a", "b"]


@pytest.mark.parametrize("ref,expected", [
    (FieldRef(1, FieldRef(2, 3)), FieldRef(FieldPath([1, 2, 3]))),  # all paths concatenate
    (FieldRef(FieldRef("a")), FieldRef("a")),  # one child collapses
    (FieldRef("a", FieldPath([])), FieldRef("a")),  # empty parts are dropped
    (FieldRef(FieldRef("a", "b"), "c"), FieldRef("a", "b", "c")),  # nested children flatten
    (FieldRef(FieldPath([]), FieldPath([])), FieldRef.from_dot_path("")),  # nothing left: empty
])
def test_flattening(ref, expected):
    assert ref == expected and hash(ref) == hash(expected)


def test_index_runs_between_names_are_not_merged():
    ref = FieldRef(1, "a", 2, 3)
    assert ref.to_string() == ("FieldRef.Nested(FieldRef.FieldPath(1) FieldRef.Name(a) "
                               "FieldRef.FieldPath(2) FieldRef.FieldPath(3))")


@given(st.lists(st.one_of(st.integers(0, 9), st.text("abc", min_size=1, max_size=3)),
                min_size=1, max_size=5))
def test_flattening_matches_pyarrow(parts):
    assert tk.field(*parts).to_string() == str(pc.field(*parts))


def test_equality_is_by_alternative_not_by_target():
    assert FieldRef("i32") != FieldRef(2)
    assert FieldRef("a") == FieldRef("a") and FieldRef(0, 1) == FieldRef(FieldPath([0, 1]))
    known = {FieldRef("a"): 1, FieldRef(0): 2, FieldRef("a", "b"): 3}
    assert known[FieldRef("a")] == 1 and known[FieldRef(0)] == 2 and known[FieldRef("a", "b")] == 3


def test_bad_parts_are_rejected():
    with pytest.raises(tk.BuildError, match="bool"):
        FieldRef(True)
    with pytest.raises(tk.BuildError, match="float"):
        FieldRef(1.5)


def test_to_string():
    assert FieldRef("a").to_string() == "FieldRef.Name(a)"
    assert FieldRef(0, 1).to_string() == "FieldRef.FieldPath(0 1)"
    assert FieldPath([0, 1]).to_string() == "FieldPath(0 1)"
    assert FieldPath([]).to_string() == "FieldPath(empty)"
    assert FieldRef("a", 0).to_string() == "FieldRef.Nested(FieldRef.Name(a) FieldRef.FieldPath(0))"


# -- dot paths ---------------------------------------------------------------------------
@pytest.mark.parametrize("dot_path,expected", [
    (".alpha", FieldRef("alpha")),
    ("..", FieldRef("", "")),
    ("[2]", FieldRef(FieldPath([2]))),
    ("[1][2]", FieldRef(FieldPath([1, 2]))),
    (".beta[3]", FieldRef("beta", 3)),
    ("[5].gamma.delta[7]", FieldRef(5, "gamma", "delta", 7)),
    (".hello world", FieldRef("hello world")),
    (".\\[y\\]\\\\tho\\.\\", FieldRef("[y]\\tho.\\")),
])
def test_arrow_dot_path_examples(dot_path, expected):
    got = FieldRef.from_dot_path(dot_path)
    assert got == expected, got.to_string()


def test_the_empty_dot_path_is_an_empty_ref():
    empty = FieldRef.from_dot_path("")
    assert empty.is_nested and empty.nested_refs == ()
    assert empty.find_all(NESTED) == [FieldPath([])]


def test_the_escaped_name_is_exactly_the_unescaped_text():
    assert FieldRef.from_dot_path(".\\[y\\]\\\\tho\\.\\").name == "[y]\\tho.\\"


@pytest.mark.parametrize("dot_path,message", [
    ("alpha", "Dot path must begin with '[' or '.'"),
    ("[134234", "unterminated index"),
    ("[1stuf]", "unterminated index"),
])
def test_invalid_dot_paths(dot_path, message):
    with pytest.raises(tk.FieldRefError, match=message.replace("[", "\\[").replace(".", "\\.")) as info:
        FieldRef.from_dot_path(dot_path)
    assert dot_path in str(info.value)
    assert isinstance(info.value, tk.ExprscopeError)


@pytest.mark.parametrize("dot_path", [".alpha", "[1][2]", ".beta[3]", "[5].gamma.delta[7]", ".a.b.c"])
def test_to_dot_path_reads_back(dot_path):
    assert FieldRef.from_dot_path(dot_path).to_dot_path() == dot_path


def test_to_dot_path_does_not_escape():
    assert FieldRef("a.b").to_dot_path() == ".a.b"  # as Arrow: it reads back as two names


# -- resolution ----------------------------------------------------------------------------
@pytest.mark.parametrize("ref,path,typ", [
    (FieldRef("x"), [0], pa.int32()),
    (FieldRef("s", "y"), [1, 0], pa.int8()),
    (FieldRef("s", "t", "z"), [1, 1, 0], pa.string()),
    (FieldRef(1, 1, 0), [1, 1, 0], pa.string()),
    (FieldRef("s", 1, "z"), [1, 1, 0], pa.string()),
    (FieldRef.from_dot_path(".s[1].z"), [1, 1, 0], pa.string()),
])
def test_resolution_in_nested_schemas(ref, path, typ):
    found, field = ref.resolve(NESTED)
    assert found == FieldPath(path)
    assert field.type == typ


def test_resolution_against_a_struct_type():
    struct = NESTED.field("s").type
    assert FieldRef("t", "z").find_one(struct) == FieldPath([1, 0])


def test_find_all_lists_every_match():
    assert FieldRef("dup").find_all(NESTED) == [FieldPath([2]), FieldPath([3])]
    assert FieldRef("nope").find_all(NESTED) == []
    assert FieldRef(9).find_all(NESTED) == []


@pytest.mark.parametrize("parts", [("nope",), ("s", "nope"), ("x", "y")])
def test_no_match_keeps_arrows_error_and_says_it_briefly(parts):
    with pytest.raises(tk.FieldRefError) as info:
        FieldRef(*parts).find_one(NESTED)
    message = info.value.arrow_message
    assert message.startswith(f"No match for {FieldRef(*parts).to_string()} in ")
    assert "x: int32" in message and "s: struct<y: int8" in message
    assert message == arrow_error(NESTED, parts)
    first, schema_line = str(info.value).splitlines()
    assert first.startswith(f"no field {'.'.join(parts)!r}")
    assert schema_line.startswith("the data has ") and "x (int32)" in schema_line


def test_no_match_suggests_a_close_name_and_points_into_the_text():
    schema = pa.schema([("bill_length_mm", pa.float64()), ("species", pa.utf8())])
    with pytest.raises(tk.FieldRefError) as info:
        tk.parse("bill_lenght_mm > 3").bind(schema)
    assert str(info.value).splitlines()[0] == (
        "no field 'bill_lenght_mm'; did you mean 'bill_length_mm'?")
    assert info.value.located("bill_lenght_mm > 3").splitlines()[1:3] == [
        "  bill_lenght_mm > 3", "  ^^^^^^^^^^^^^^"]
    # a name inside a string literal is not the field
    text = "'bill_lenght_mm' = species OR bill_lenght_mm > 3"
    assert info.value.located(text).splitlines()[2].index("^") == 2 + text.index("bill_lenght_mm >")


def test_multiple_matches_error_is_arrows():
    with pytest.raises(tk.FieldRefError) as info:
        FieldRef("dup").find_one(NESTED)
    assert info.value.arrow_message.startswith("Multiple matches for FieldRef.Name(dup) in ")
    assert info.value.arrow_message == arrow_error(NESTED, ("dup",))
    assert str(info.value).startswith("'dup' names 2 fields; the data has ")
    assert info.value.ref == FieldRef("dup") and info.value.schema is NESTED


def test_binding_uses_the_same_resolution():
    bound = tk.field("s", "t", "z").bind(NESTED)
    assert bound.type == pa.string() and bound.path == FieldPath([1, 1, 0])
    with pytest.raises(tk.FieldRefError, match="no field 'missing'"):
        tk.field("missing").bind(NESTED)


def test_errors_show_nullability_as_arrow_does():
    schema = pa.schema([pa.field("x", pa.int32(), nullable=False),
                        pa.field("s", pa.struct([pa.field("y", pa.int8(), nullable=False)]))])
    with pytest.raises(tk.FieldRefError) as info:
        FieldRef("nope").find_one(schema)
    assert info.value.arrow_message == arrow_error(schema, ("nope",))
    assert "x: int32 not null" in info.value.arrow_message
