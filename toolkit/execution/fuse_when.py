"""When fused groups run: asked for, never, or the default's choice.

Compiling a group's loop takes 0.1-0.5 s (numba), more than fusing saves on one
evaluation of a few million rows; so the default never waits for a compilation. An
evaluation of AUTO_FUSE_ROWS rows or more hands its groups' missing loops to a thread
of their own and runs unfused; from then on every evaluation of the same prepared tree,
of any size, runs fused where its loop is compiled. Without numba nothing fuses.
"""

from __future__ import annotations

import enum

from .fused_kernels import available

__all__ = ["AUTO_FUSE_ROWS", "FuseWhen", "fuse_when"]

AUTO_FUSE_ROWS = 1_000_000


class FuseWhen(enum.Enum):
    """Which groups of an evaluation run fused."""

    NEVER = "never"  # fuse=False, eager mode, or numba missing
    ALWAYS = "always"  # fuse=True: every group, its loop compiled at once when missing
    COMPILED = "compiled"  # the default: the groups whose loop is compiled already
    LEARNING = "learning"  # the default on a large input: those, compiling the others


def fuse_when(fuse: bool | None, fusion, rows: int) -> FuseWhen:
    """What `evaluate(fuse=...)` means for the tree whose groups `fusion` holds, over
    `rows` rows (`fuse` None: the default); `fusion` is a `fusion.Fusion`."""
    if fuse is not None:
        return FuseWhen.ALWAYS if fuse else FuseWhen.NEVER
    if not available():
        return FuseWhen.NEVER
    if rows >= AUTO_FUSE_ROWS:
        fusion.learning = True
        return FuseWhen.LEARNING
    return FuseWhen.COMPILED if fusion.learning else FuseWhen.NEVER
