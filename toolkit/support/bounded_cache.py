"""Bounded memo tables: one helper for every cache in the engine.

Binding and dispatch repeat the same few lookups thousands of times on a deep
tree, so they memoize; a long session must not grow them without end. A
`BoundedCache` forgets its oldest entries past `max_size` (a dict keeps
insertion order, so that is the first key). An `ObjectCache` is keyed by an
object's identity where no value equality exists (pyarrow options objects): it
keeps the object in the entry, so its id cannot be reused by a new object while
the entry lives, and a lookup answers only for that very object.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

__all__ = ["BoundedCache", "ObjectCache"]

_MISSING = object()


class BoundedCache:
    """A dict of at most `max_size` entries; the oldest go first."""

    __slots__ = ("_data", "max_size")

    def __init__(self, max_size: int):
        self.max_size = max(1, int(max_size))  # a cache holds at least one entry
        self._data: dict = {}

    def get(self, key: Hashable, default: Any = None) -> Any:
        return self._data.get(key, default)

    def put(self, key: Hashable, value: Any) -> Any:
        data = self._data
        if key not in data and len(data) >= self.max_size:
            data.pop(next(iter(data)), None)  # another thread may have taken it first
        data[key] = value
        return value

    def __contains__(self, key) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)


class ObjectCache:
    """Values per object identity (plus an optional hashable tag), at most `max_size`."""

    __slots__ = ("_cache",)

    def __init__(self, max_size: int):
        self._cache = BoundedCache(max_size)

    def get(self, obj, tag: Hashable = (), default: Any = None) -> Any:
        entry = self._cache.get((id(obj), tag), _MISSING)
        if entry is _MISSING or entry[0] is not obj:
            return default
        return entry[1]

    def put(self, obj, value: Any, tag: Hashable = ()) -> Any:
        self._cache.put((id(obj), tag), (obj, value))  # holding obj keeps its id taken
        return value

    def __len__(self) -> int:
        return len(self._cache)
