"""The one bounded memo: it stays bounded and never answers for a different object."""

import gc

import pyarrow.compute as pc
from hypothesis import given
from hypothesis import strategies as st

from toolkit.support.bounded_cache import BoundedCache, ObjectCache


@given(st.lists(st.integers(0, 50), max_size=300), st.integers(1, 20))
def test_a_cache_never_holds_more_than_its_size_and_keeps_the_newest(keys, size):
    cache = BoundedCache(size)
    for k in keys:
        cache.put(k, k * 2)
        assert len(cache) <= size
        assert cache.get(k) == k * 2  # what was just put is there
    for k in cache._data:
        assert cache.get(k) == k * 2


def test_an_object_cache_does_not_mistake_a_new_object_for_a_dead_one():
    cache = ObjectCache(8)
    options = pc.CastOptions.safe("int64")
    cache.put(options, "int64", tag="x")
    assert cache.get(options, "x") == "int64" and cache.get(options, "y") is None
    dead_id = id(options)
    del options
    gc.collect()
    # the entry keeps the options alive, so no new object can take its id meanwhile
    fresh = [pc.CastOptions.safe("int32") for _ in range(1000)]
    assert all(id(f) != dead_id or cache.get(f, "x") is None for f in fresh)
    assert all(cache.get(f, "x") is None for f in fresh)


def test_many_objects_keep_the_object_cache_bounded():
    cache = ObjectCache(16)
    for i in range(1000):
        cache.put(object(), i)
    assert len(cache) == 16
