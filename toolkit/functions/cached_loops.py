"""numba's compiled function with its machine code cached on disk: every loop module of
`functions` compiles through it, so a later process loads the code instead of compiling."""

from __future__ import annotations

import numba

__all__ = ["compiled"]


def compiled(function):
    """numba's compiled function, its machine code cached on disk; compiled in memory only
    where numba finds no writable place for that cache (a read-only install, no home)."""
    try:
        return numba.njit(nogil=True, cache=True)(function)
    except RuntimeError:
        return numba.njit(nogil=True)(function)
