"""A branch's selection vector as cells: one per row for small batches, density for large.

Up to `ROW_CELLS` rows every row is a cell (selected or not); above that the
rows are cut into `DENSITY_CELLS` equal buckets and each cell holds the share
of its bucket that was selected. DOT, text and HTML draw these same cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .labels import share_text

__all__ = ["DENSITY_CELLS", "ROW_CELLS", "Strip", "row_indices", "strip_of"]

ROW_CELLS = 64
DENSITY_CELLS = 64


@dataclass(frozen=True)
class Strip:
    per_row: bool  # True: cells are rows (0 or 1); False: cells are densities in [0, 1]
    cells: tuple[float, ...]
    selected: int
    total: int

    @property
    def caption(self) -> str:
        share = f" ({share_text(self.selected, self.total)})" if self.total else ""
        return f"{self.selected:,} of {self.total:,} rows{share}"


def row_indices(rows) -> np.ndarray:
    if rows is None:
        return np.zeros(0, dtype=np.int64)
    if hasattr(rows, "to_numpy"):
        return np.asarray(rows.to_numpy(zero_copy_only=False), dtype=np.int64)
    return np.asarray(rows, dtype=np.int64)


def strip_of(rows, total: int, cells: int = DENSITY_CELLS) -> Strip:
    """The strip of `rows` among `total`: a cell per row up to `cells` rows, else `cells`
    density cells (a narrow terminal asks for fewer)."""
    indices = row_indices(rows)
    if indices.size > 1 and not bool(np.all(indices[1:] >= indices[:-1])):
        indices = np.sort(indices)
    # sorted: the rows inside the batch, and each cell's count, by binary search (a
    # branch of millions of rows costs a few passes less than dividing every index)
    inside = np.searchsorted(indices, [0, total]) if total else np.zeros(2, dtype=np.int64)
    indices = indices[inside[0]:inside[1]]
    if total <= min(ROW_CELLS, cells):
        per_row = np.zeros(total)
        per_row[indices] = 1.0
        return Strip(True, tuple(per_row.tolist()), int(indices.size), total)
    edges = -(-np.arange(cells + 1) * total // cells)  # ceil(i * total / n)
    counts = np.diff(np.searchsorted(indices, edges))
    sizes = np.diff(edges)
    density = np.divide(counts, sizes, out=np.zeros(cells), where=sizes > 0)
    return Strip(False, tuple(np.clip(density, 0.0, 1.0).tolist()), int(indices.size), total)
