"""Function attributes say what pyarrow's kernels really do: nulls, failures, kinds, options."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.errors import BindError
from toolkit.functions import FunctionKind, NullHandling, function_names, get_function
from toolkit.functions.derive import DERIVED

from .options_for import options_for
from .samples import SAMPLE_TYPES, column_name, eager, sample_table

TABLE = sample_table()
SPECIAL_FORMS = {"if_else", "case_when", "coalesce", "choose", "and_kleene", "or_kleene"}


def _bound_calls(name):
    """Bound calls of `name` on the sample columns (one or two of the same type)."""
    fn = get_function(name)
    n = fn.arity.min if fn.arity.min else 1
    if fn.arity.max is None or fn.arity.max >= 2:
        n = max(n, 2 if name != "case_when" else 1)
    for t in SAMPLE_TYPES:
        if name in ("if_else", "case_when"):
            continue
        args = [tk.field(column_name(t))] * n
        try:
            yield tk.call(name, args, options_for(name, [t] * n)).bind(TABLE.schema)
        except BindError:
            continue


# derived functions: test_every_pyarrow_function checks their null handling on its samples
@pytest.mark.parametrize("name", [n for n in function_names() if n not in DERIVED])
def test_declared_null_handling_holds_on_data_with_nulls(name):
    fn = get_function(name)
    checked = 0
    for bound in _bound_calls(name):
        try:
            out = eager(bound, TABLE)
        except (pa.ArrowInvalid, pa.ArrowIndexError):
            continue
        out = out.combine_chunks() if isinstance(out, pa.ChunkedArray) else out
        in_nulls = pc.is_null(eager(bound.args[0], TABLE)).combine_chunks()
        out_nulls = pc.is_null(out)
        if fn.null_handling is NullHandling.OUTPUT_NOT_NULL:
            assert out.null_count == 0, bound
        elif fn.null_handling is NullHandling.INTERSECTION:
            assert pc.all(pc.or_(pc.invert(in_nulls), out_nulls)).as_py(), bound
        checked += 1
    if fn.null_handling is not NullHandling.COMPUTED and name not in ("make_struct",):
        assert checked > 0


def test_is_in_never_returns_null_and_index_in_does():
    t = pa.table({"x": pa.array([None, 1, 2], pa.int64())})
    value_set = pc.SetLookupOptions(pa.array([1, None]))
    is_in = tk.call("is_in", [tk.field("x")], value_set).bind(t.schema)
    assert eager(is_in, t).to_pylist() == [True, True, False]
    index_in = tk.call("index_in", [tk.field("x")], pc.SetLookupOptions(pa.array([1]))).bind(t.schema)
    assert eager(index_in, t).to_pylist() == [None, 0, None]


def test_kleene_functions_decide_nulls_themselves():
    t = pa.table({"x": [False, True, None], "y": [None, None, None]}, schema=pa.schema(
        [("x", pa.bool_()), ("y", pa.bool_())]))
    assert eager((tk.field("x") & tk.field("y")).bind(t.schema), t).to_pylist() == [False, None, None]
    assert eager((tk.field("x") | tk.field("y")).bind(t.schema), t).to_pylist() == [None, True, None]
    assert eager(tk.call("and", [tk.field("x"), tk.field("y")]).bind(t.schema), t).null_count == 3
    assert get_function("and_kleene").null_handling is NullHandling.COMPUTED
    assert get_function("and").null_handling is NullHandling.INTERSECTION


def test_special_forms_are_exactly_the_lazy_conditionals():
    kinds = {n for n in function_names() if get_function(n).kind is FunctionKind.SPECIAL_FORM}
    assert kinds == SPECIAL_FORMS
    for name in SPECIAL_FORMS:
        assert get_function(name).null_handling is NullHandling.COMPUTED


@pytest.mark.parametrize("expr, bad_row", [
    (tk.field("i") / tk.field("z"), "divide by zero"),
    (tk.call("divide_checked", [tk.field("i"), tk.field("z")]), "divide by zero"),
    (tk.call("add_checked", [tk.field("i"), 127]), "overflow"),
    (tk.call("multiply_checked", [tk.field("i"), 100]), "overflow"),
    (tk.call("subtract_checked", [tk.field("i"), -127]), "overflow"),
    (tk.call("negate_checked", [tk.literal(pa.scalar(-128, pa.int8()))]), "overflow"),
    (tk.call("abs_checked", [tk.literal(pa.scalar(-128, pa.int8()))]), "overflow"),
    (tk.call("power_checked", [tk.field("i"), 100]), "overflow"),
    (tk.call("power", [tk.field("i"), -1]), "negative"),
    (tk.call("sqrt_checked", [tk.literal(-1.0)]), "negative"),
    (tk.field("s").cast("int32"), "Failed to parse"),
    (tk.call("round", [tk.field("d")], pc.RoundOptions(-1)), "precision"),
])
def test_functions_that_can_fail_do_fail_per_row(expr, bad_row):
    t = pa.table({"i": pa.array([1, 100], pa.int8()), "z": pa.array([1, 0], pa.int8()),
                  "s": ["1", "x"], "d": pa.array([1, 99], pa.decimal128(2, 0))})
    bound = expr.bind(t.schema)
    assert bound.function.can_fail
    with pytest.raises(pa.ArrowInvalid, match=bad_row):
        eager(bound, t)


def test_float_division_does_not_fail():
    t = pa.table({"x": [1.0], "y": [0.0]})
    bound = tk.call("divide", [tk.field("x"), tk.field("y")]).bind(t.schema)
    assert eager(bound, t).to_pylist() == [float("inf")]


def test_default_options_are_pyarrows():
    assert get_function("is_null").default_options == pc.NullOptions(nan_is_null=False)
    assert get_function("round").default_options == pc.RoundOptions()
    assert get_function("cast").default_options is None
    for name, cls in [("is_in", pc.SetLookupOptions), ("index_in", pc.SetLookupOptions),
                      ("cast", pc.CastOptions), ("match_like", pc.MatchSubstringOptions),
                      ("starts_with", pc.MatchSubstringOptions), ("utf8_slice_codeunits", pc.SliceOptions),
                      ("struct_field", pc.StructFieldOptions), ("make_struct", pc.MakeStructOptions),
                      ("round", pc.RoundOptions), ("is_null", pc.NullOptions)]:
        assert get_function(name).options_class is cls


def test_all_functions_are_pure_and_run_through_pyarrow():
    for name in function_names():
        fn = get_function(name)
        assert fn.pure
        assert fn.doc and fn.doc.endswith(".")


def test_describe_shows_doc_arity_null_handling_options_and_signatures():
    text = tk.describe("add")
    assert text.startswith("add: Add the arguments element-wise")
    assert "arity:         2" in text
    assert "null handling: intersection" in text
    assert "options:       none" in text
    assert "add(int32, int32) -> int32" in text
    assert "add(timestamp(ms), duration[ms]) -> timestamp of arg 0" in text
    assert len([ln for ln in text.splitlines() if ln.startswith("    add(")]) == len(
        get_function("add").kernels)
    text = tk.describe("is_in")
    assert "options:       SetLookupOptions (required)" in text
    assert "null handling: output_not_null" in text
    assert "null handling: computed" in tk.describe("index_in")
    for name in tk.function_names():
        assert tk.describe(name).startswith(f"{name}: ")
    with pytest.raises(tk.UnknownFunctionError):
        tk.describe("nope")
    text = tk.describe("coalesce")
    assert "special form" in text and "arity:         at least 1" in text
    assert "options:       NullOptions (default: {nan_is_null=false})" in tk.describe("is_null")
    assert "can fail per row" in tk.describe("divide")
