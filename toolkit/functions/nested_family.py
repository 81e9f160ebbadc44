"""Lists and maps: list_value_length, list_element, list_slice, map_lookup.

Signatures come from pyarrow's registry (`derive`); Arrow gives these no
implicit casts. `list_element` fails on an index outside a list; a map lookup
of a missing key gives null rather than failing, so its nulls are computed.
"""

from __future__ import annotations

from . import structs  # noqa: F401  (the hand-written functions register first)
from .derive import Family, define_family
from .function import NullHandling

__all__ = ["NESTED_NAMES"]

_NAMES = ["list_value_length", "list_element", "list_slice", "map_lookup"]


def _null_handling(name: str) -> NullHandling:
    return NullHandling.COMPUTED if name == "map_lookup" else NullHandling.INTERSECTION


NESTED_NAMES = define_family(
    Family("nested", None, _null_handling, lambda name, inputs: name == "list_element"), _NAMES)
