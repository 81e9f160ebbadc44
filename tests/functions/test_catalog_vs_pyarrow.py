"""Every catalog function binds, runs through pyarrow, and returns the type it declares.

For each function the test binds calls over a sweep of argument types and checks
two things a user would notice: the bound `call.type` is the type of the array
pyarrow computes when the bound call runs, and it is the type pyarrow's own
dispatch gives for the same inputs (pyarrow fails where binding fails).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.errors import BindError
from toolkit.functions import function_names, get_function
from toolkit.functions.derive import DERIVED

from .options_for import options_for
from .samples import SAMPLE_TYPES, column_name, eager, sample_array, sample_table

ISSUE_CATALOG = ["add", "subtract", "multiply", "divide", "negate", "abs", "power", "sqrt", "add_checked", "subtract_checked", "multiply_checked", "divide_checked", "negate_checked", "abs_checked", "power_checked", "sqrt_checked", "round", "floor", "ceil", "trunc", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "and_kleene", "or_kleene", "and_not_kleene", "invert", "xor", "and", "or", "is_null", "is_valid", "is_nan", "true_unless_null", "coalesce", "is_in", "index_in", "cast", "utf8_upper", "utf8_lower", "utf8_length", "utf8_is_digit", "starts_with", "ends_with", "match_substring", "match_like", "utf8_slice_codeunits", "binary_join_element_wise", "year", "month", "day", "hour", "minute", "second", "day_of_week", "if_else", "case_when", "make_struct", "struct_field"]

# Pairs are swept over representatives of every type family (keeps the sweep at seconds)
PAIR_TYPES = [
    pa.bool_(), pa.int8(), pa.int32(), pa.uint8(), pa.uint64(), pa.float32(), pa.float64(),
    pa.decimal128(5, 2), pa.decimal256(20, 3), pa.utf8(), pa.large_utf8(), pa.binary(),
    pa.date32(), pa.date64(), pa.timestamp("s"), pa.timestamp("us", "UTC"), pa.time32("s"),
    pa.duration("ms"), pa.null(), pa.dictionary(pa.int32(), pa.utf8()),
]

CONDITIONS = pa.struct([("c0", pa.bool_())])
TABLE = sample_table().append_column(
    "conds", pa.StructArray.from_arrays([pa.array([True, False, None, True])], fields=list(CONDITIONS)))


def _arrow_quirk(name: str, types) -> bool:
    """Inputs where pyarrow's dispatch is defective and exprscope deliberately differs."""
    has = lambda pred: any(pred(t) for t in types)
    # Arrow promotes decimals before decoding dictionaries / replacing nulls: it rejects
    # decimal vs dictionary<int> and types decimal / null as decimal(p, 0) or even duration
    if has(pa.types.is_decimal) and (has(pa.types.is_dictionary) or has(pa.types.is_null)):
        return True
    # binary_join_element_wise (SQL `||`) decodes dictionaries and casts to one common string
    # type; Arrow has no implicit casts there, so `large_string || ' '` fails in Arrow (see functions.dispatch.best_join)
    mixed = len(set(map(str, types))) > 1 or has(pa.types.is_dictionary)
    if name == "binary_join_element_wise" and mixed:
        return True
    # choose dispatches on its last value's type without casting the others: with values
    # of different kinds (float and string) pyarrow reads one column's buffers as another
    # type (a 4 EB malloc, or garbage); exprscope refuses to bind such a call
    numeric = lambda t: pa.types.is_integer(t) or pa.types.is_floating(t)
    if name == "choose" and len(set(map(str, types[1:]))) > 1 and not all(
            numeric(t) for t in types[1:]):
        return True
    # coalesce accepts a time zone aware and a naive timestamp together (type-id match)
    return name == "coalesce" and has(lambda t: pa.types.is_timestamp(t) and t.tz) and has(
        lambda t: pa.types.is_timestamp(t) and not t.tz)


def _combos(name: str):
    fn = get_function(name)
    if name == "case_when":
        return [(CONDITIONS, a, b) for a in PAIR_TYPES for b in PAIR_TYPES] + [
            (CONDITIONS, a) for a in SAMPLE_TYPES]
    if name == "choose":  # the uint8 sample holds indices 1, 2, null, 3: four values
        return [(pa.uint8(), a, b, b, b) for a in PAIR_TYPES for b in PAIR_TYPES]
    if fn.arity.max == 3:
        return [(pa.bool_(), a, b) for a in PAIR_TYPES for b in PAIR_TYPES]
    if fn.arity.max == 1:
        return [(a,) for a in SAMPLE_TYPES]
    combos = [(a, b) for a in PAIR_TYPES for b in PAIR_TYPES]
    if fn.arity.max is None:
        combos += [(a,) for a in SAMPLE_TYPES] + [(pa.utf8(),) * 3, (pa.int8(), pa.int8(), pa.int64())]
    return combos


def _column(t):
    return "conds" if t == CONDITIONS else column_name(t)


def test_the_catalog_has_every_function_of_the_issue():
    missing = sorted(set(ISSUE_CATALOG) - set(function_names()))
    assert not missing


@pytest.mark.parametrize("name", function_names())
def test_arity_and_options_class_agree_with_pyarrow(name):
    fn = get_function(name)
    pyfn = pc.get_function(fn.pc_name or name)
    doc_class = pyfn._doc.options_class or None
    assert (fn.options_class.__name__ if fn.options_class else None) == doc_class
    if name != "cast":  # pyarrow's cast takes its target as a Python argument; an expression can't
        assert fn.options_required == pyfn._doc.options_required
    if pyfn.arity is Ellipsis:
        assert fn.arity.max is None
    else:
        assert fn.arity.min == fn.arity.max == pyfn.arity


# the functions derived from pyarrow's registry are swept by test_every_pyarrow_function
HAND_WRITTEN = [n for n in function_names() if n not in DERIVED]


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_bound_type_is_the_type_pyarrow_computes(name):
    fn = get_function(name)
    bound_count = 0
    problems = []
    for types in _combos(name):
        args = [tk.field(_column(t)) for t in types]
        options = options_for(name, types)
        try:
            bound = tk.call(name, args, options).bind(TABLE.schema)
        except BindError as exc:
            bound, bind_error = None, exc
        arrays = [TABLE.column(_column(t)) for t in types]
        if _arrow_quirk(name, types):
            continue
        try:
            direct = pc.call_function(fn.pc_name or name, arrays, options)
            direct_error = None
        except (pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
            direct, direct_error = None, exc
        except (pa.ArrowInvalid, pa.ArrowIndexError):
            continue  # the data, not the types, made pyarrow fail (divide by zero, ...)
        if _arrow_quirk(name, types):
            continue
        if bound is None:
            if direct is not None:
                problems.append(f"{types}: bind failed ({bind_error}) but pyarrow gives {direct.type}")
            continue
        bound_count += 1
        assert bound.is_bound
        if direct is None:
            problems.append(f"{types}: bound to {bound.type} but pyarrow fails: {direct_error}")
        elif direct.type != bound.type:
            problems.append(f"{types}: bound {bound.type}, pyarrow's dispatch {direct.type}")
        try:
            computed = eager(bound, TABLE)
        except (pa.ArrowInvalid, pa.ArrowIndexError):
            continue
        if computed.type != bound.type:
            problems.append(f"{types}: bound {bound.type}, the bound call computes {computed.type}")
    assert not problems, "\n".join(problems[:20])
    assert bound_count > 0, f"no signature of {name} was exercised"


def test_every_kernel_signature_is_exercised_by_some_binding():
    """Each kernel (signature) is picked for at least one input the sweep can build."""
    extra = [pa.time32("ms"), pa.time64("ns"), pa.duration("us"), pa.timestamp("us"),
             pa.large_binary(), pa.float16(), pa.month_day_nano_interval(), pa.string_view(),
             pa.binary_view(), pa.decimal256(5, 2), pa.decimal32(5, 2), pa.decimal64(12, 2),
             pa.large_list(pa.int8()),
             pa.list_view(pa.int8()), pa.large_list_view(pa.int8()), pa.list_(pa.int8(), 2),
             pa.map_(pa.utf8(), pa.int8()), pa.dense_union([pa.field("a", pa.int8())]),
             pa.sparse_union([pa.field("a", pa.int8())]), pa.binary(3),
             *[pa.dictionary(pa.int32(), t) for t in (pa.binary(), pa.utf8(), pa.large_binary(),
                                                      pa.large_utf8())]]
    types = SAMPLE_TYPES + extra + [CONDITIONS, pa.struct([("c0", pa.bool_()), ("c1", pa.bool_())])]
    unused = []
    for name in HAND_WRITTEN:  # a derived kernel is one of pyarrow's by construction
        fn = get_function(name)
        for kernel in fn.kernels:
            n = len(kernel.inputs) + (1 if kernel.varargs else 0)
            found = any(kernel.matches([a] * n) for a in types) or any(
                kernel.matches([a, b] + [b] * (n - 2)) for a in types for b in types)
            if not found:
                unused.append(repr(kernel))
    assert not unused, unused


def test_literal_arguments_compute_the_declared_type():
    """Scalars run through the same kernels (folding relies on it)."""
    for name, args in [("add", [1, 2]), ("divide", [7.0, 2]), ("equal", ["a", "a"]),
                       ("utf8_upper", ["x"]), ("coalesce", [pa.scalar(None, pa.int8()), 3])]:
        bound = tk.call(name, args).bind(pa.schema([]))
        value = eager(bound, pa.table({"x": [1]}))
        assert isinstance(value, pa.Scalar)
        assert value.type == bound.type


def test_sample_arrays_hold_real_data_and_nulls():
    for t in SAMPLE_TYPES:
        arr = sample_array(t)
        assert len(arr) == 4 and arr.type == t


@pytest.mark.parametrize("options", [
    None, pc.MakeStructOptions(),
    pc.MakeStructOptions(["x", "y"], field_nullability=[False, True], field_metadata=[{"k": "v"}, None]),
])
def test_make_struct_names_and_nullability_follow_the_options(options):
    schema = pa.schema([("a", pa.int8()), ("b", pa.utf8())])
    bound = tk.call("make_struct", [tk.field("a"), tk.field("b")], options).bind(schema)
    direct = pc.call_function("make_struct", [pa.array([1], pa.int8()), pa.array(["x"])], options)
    assert bound.type == direct.type
    assert [f.nullable for f in bound.type] == [f.nullable for f in direct.type]
