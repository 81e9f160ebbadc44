"""is_in of an integer column against a few integers, by compares, equals Arrow's hash
lookup: every integer width of column and set (set values the column cannot hold), every
null matching behaviour, nulls in the column, sliced columns; a set holding a null, more
than MAX_VALUES values, non-integers or a set of the other signedness goes to Arrow's
kernel."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.functions import integer_set_lookup as isl
from toolkit.functions.registry import get_function
from toolkit.passes.set_lookup import set_lookup_options

INTS = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(),
        pa.uint64()]
BEHAVIOURS = ["match", "skip", "emit_null", "inconclusive"]


def _edge_values(type_) -> list[int]:
    info = np.iinfo(np.dtype(type_.to_pandas_dtype()))
    return [int(info.min), int(info.max), 0, 1, -1 if info.min < 0 else 2, 7]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(INTS), st.sampled_from(INTS), st.integers(1, 400), st.integers(0, 9),
       st.sampled_from([0.0, 0.2, 0.9]), st.sampled_from(BEHAVIOURS),
       st.integers(0, isl.MAX_VALUES + 2), st.integers(0, 2**32 - 1))
def test_compares_are_arrows_hash_lookup(column_type, set_type, n, offset, null_share,
                                         behaviour, set_size, seed):
    rng = np.random.default_rng(seed)
    edges = _edge_values(column_type)
    pool = edges + [int(v) for v in rng.integers(0, 12, 6)]
    values = [pool[i] for i in rng.integers(0, len(pool), n + offset)]
    nulls = rng.random(n + offset) < null_share
    column = pa.array(values, column_type, mask=nulls).slice(offset)
    set_pool = _edge_values(set_type) + _edge_values(column_type) + list(range(12))
    set_pool = [v for v in set_pool if _fits(v, set_type)]  # some the column cannot hold
    chosen = [set_pool[i] for i in rng.integers(0, len(set_pool), set_size)]
    value_set = pa.array(chosen, set_type)
    options = set_lookup_options(value_set, behaviour)
    took = isl.integer_is_in(column, options) is not None
    same_sign = pa.types.is_signed_integer(column_type) == pa.types.is_signed_integer(set_type)
    assert took == (len(value_set) <= isl.MAX_VALUES and same_sign)
    try:
        want = pc.is_in(column, options=options).to_pylist()
    except pa.ArrowInvalid:  # across signedness Arrow casts, and some values fail
        assert not same_sign
        return
    ours = get_function("is_in")([column], options)
    ours.validate(full=True)
    assert ours.to_pylist() == want


def _fits(v: int, type_) -> bool:
    info = np.iinfo(np.dtype(type_.to_pandas_dtype()))
    return info.min <= v <= info.max


def test_a_set_with_a_null_or_of_floats_goes_to_arrows_kernel():
    column = pa.array([1, None, 3] * 10, pa.int32())
    for value_set in (pa.array([1, None], pa.int64()), pa.array([1.0, 3.0])):
        options = pc.SetLookupOptions(value_set)
        assert isl.integer_is_in(column, options) is None
        assert get_function("is_in")([column], options).equals(
            pc.is_in(column, options=options))
