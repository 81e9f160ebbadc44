"""The registry: lookup, names, and registration rules."""

from __future__ import annotations

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.functions import (
    Arity,
    Function,
    FunctionKind,
    Kernel,
    NullHandling,
    has_function,
    register,
)
from toolkit.functions.types import exact, fixed


def test_names_are_sorted_and_lookups_return_the_same_function():
    names = tk.function_names()
    assert names == sorted(names) and len(names) == len(set(names))
    assert tk.get_function("add") is tk.get_function("add")
    assert has_function("add") and not has_function("nope")


def test_kernels_are_shared_so_bound_calls_compare_equal():
    schema = pa.schema([("a", pa.int32())])
    one, two = (tk.field("a") + 1).bind(schema), (tk.field("a") + 1).bind(schema)
    assert one.kernel is two.kernel and one.equals(two)
    unbound = tk.field("a") + 1
    assert not unbound.equals(one)  # Arrow: a bound call never equals an unbound one


def test_registering_a_name_twice_is_refused():
    fn = Function("add", FunctionKind.SCALAR, Arity(1, 1),
                  [Kernel("add", (exact(pa.int8()),), fixed(pa.int8()))],
                  NullHandling.INTERSECTION, "A second add.")
    with pytest.raises(ValueError, match="already registered"):
        register(fn)


def test_unknown_names_get_suggestions_or_none():
    with pytest.raises(tk.UnknownFunctionError) as info:
        tk.get_function("eqaul")
    assert info.value.suggestions[0] == "equal"
    with pytest.raises(tk.UnknownFunctionError) as info:
        tk.get_function("zzzzzz")
    assert info.value.suggestions == ()
    assert str(info.value) == "No function registered with name: zzzzzz"
