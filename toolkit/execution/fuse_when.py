"""When fused groups run: asked for, never, or the default's choice.

Compiling a group's loop (numba) costs more than fusing saves on one evaluation of a
few million rows (docs/benchmarks.md); so the default never waits for a compilation. Once
a prepared tree has been evaluated over AUTO_FUSE_ROWS rows in all (one large table,
or a thousand batches of a thousand rows), the evaluation that crosses the line hands
its groups' loops to a thread of their own and runs unfused; from then on every
evaluation of the tree of AUTO_MIN_ROWS rows or more runs fused where its loop is
compiled (a morsel whose loop is not compiled yet runs unfused). Without numba
nothing fuses.
"""

from __future__ import annotations

import enum

from .fused_kernels import available

__all__ = ["AUTO_FUSE_ROWS", "AUTO_MIN_ROWS", "FuseWhen", "fuse_when"]

AUTO_FUSE_ROWS = 1_000_000
# the default fuses no evaluation of fewer rows: on a 1,000-row batch a loop's fixed
# costs (its arguments' views, unpacked validity, packed bitmaps) can eat what it
# saves (docs/benchmarks.md, "Fused cheap subtrees")
AUTO_MIN_ROWS = 4096


class FuseWhen(enum.Enum):
    """Which groups of an evaluation run fused."""

    NEVER = "never"  # fuse=False, eager mode, or numba missing
    ALWAYS = "always"  # fuse=True: every group, its loop compiled at once when missing
    # the default, once the tree has seen AUTO_FUSE_ROWS rows: the groups whose loop is
    # compiled; the others' loops are handed to the compiling thread
    WHEN_COMPILED = "when compiled"


def fuse_when(fuse: bool | None, fusion, rows: int) -> FuseWhen:
    """What `evaluate(fuse=...)` means for the tree whose groups `fusion` holds, over
    `rows` rows (`fuse` None: the default); `fusion` is a `fusion.Fusion`."""
    if fuse is not None:
        return FuseWhen.ALWAYS if fuse else FuseWhen.NEVER
    if not available():
        return FuseWhen.NEVER
    if not fusion.learning:
        fusion.rows_seen += rows  # unlocked: a count a few short of the truth is fine here
        if fusion.rows_seen < AUTO_FUSE_ROWS:
            return FuseWhen.NEVER
        fusion.learning = True
    return FuseWhen.WHEN_COMPILED if rows >= AUTO_MIN_ROWS else FuseWhen.NEVER
