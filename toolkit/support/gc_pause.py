"""Pause Python's cyclic garbage collector while a pass rewrites a tree.

A pass over a 100k-node tree allocates hundreds of thousands of small objects
(new nodes, closures' frames, tuples). Each allocation burst triggers a
generation-0 collection, and older generations get rescanned as the live heap
grows, so the pass slows down super-linearly with tree size although its own
work is linear. Expression trees are acyclic and a pass creates no reference
cycles, so nothing needs the cyclic collector during a pass; reference
counting still frees everything as usual. The previous state is restored on
every exit, exceptions included, and a pass that runs inside another (or in a
program that disabled the collector itself) leaves the state alone.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_paused"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block if it was enabled; restore it after."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
