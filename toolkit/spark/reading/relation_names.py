"""Names for the scans of an imported Spark query: one per relation, never repeated."""

from __future__ import annotations

__all__ = ["unique_name"]


def unique_name(base: str, used: set[str]) -> str:
    """`base`, or `base2`, `base3` ... the first not in `used` (which it joins)."""
    name, i = base, 1
    while name in used:
        i += 1
        name = f"{base}{i}"
    used.add(name)
    return name
