"""Rows: a subset of a special form's domain, as a mask and/or positions.

Inside a form, which rows a branch gets is computed with bitmap operations
(and, and_not on boolean masks are nearly free); positions (int64 indices into
the domain) are derived only when a branch is evaluated compactly or the tracer
asks, with `filter(arange, mask)` (several times faster than indices_nonzero).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["Rows"]


class Rows:
    __slots__ = ("_mask", "_positions", "count", "domain")

    def __init__(self, domain: int, count: int, mask=None, positions=None):
        self.domain = domain
        self.count = count
        self._mask = mask
        self._positions = positions

    @classmethod
    def all(cls, domain: int) -> Rows:
        return cls(domain, domain)

    @classmethod
    def none(cls, domain: int) -> Rows:
        return cls(domain, 0, positions=pa.array([], pa.int64()))

    @classmethod
    def from_mask(cls, mask: pa.Array) -> Rows:
        """The true rows of a boolean array (nulls count as false)."""
        if mask.null_count:
            mask = pc.fill_null(mask, False)
        return cls(len(mask), mask.true_count, mask=mask)

    @classmethod
    def from_positions(cls, positions: pa.Array, domain: int) -> Rows:
        return cls(domain, len(positions), positions=positions)

    @property
    def is_all(self) -> bool:
        return self.count == self.domain

    @property
    def mask(self) -> pa.Array:
        """Boolean, no nulls, `domain` rows."""
        if self._mask is None:
            if self.is_all:
                self._mask = pa.repeat(pa.scalar(True), self.domain)
            elif self.count == 0:
                self._mask = pa.repeat(pa.scalar(False), self.domain)
            else:
                inverse = pc.inverse_permutation(self._positions, max_index=self.domain - 1)
                self._mask = pc.is_valid(inverse)
        return self._mask

    @property
    def positions(self) -> pa.Array:
        """Sorted int64 indices into the domain."""
        if self._positions is None:
            everything = pa.arange(0, self.domain)
            self._positions = everything if self.is_all else pc.filter(everything, self._mask)
        return self._positions

    def as_recorded(self) -> pa.Array:
        """The rows as they are held now: the boolean mask if there is one, else positions."""
        return self._mask if self._mask is not None else self.positions

    def and_mask(self, mask: pa.Array) -> Rows:
        """The rows of self where `mask` (over the domain, no nulls) is true."""
        return Rows.from_mask(mask if self.is_all else pc.and_(self.mask, mask))

    def minus(self, other: Rows) -> Rows:
        if other.count == 0:
            return self
        return Rows.from_mask(pc.and_not(self.mask, other.mask))

    def scatter_local(self, local_mask: pa.Array) -> Rows:
        """Rows of self picked by a mask aligned with self's own rows (compact)."""
        if local_mask.null_count:
            local_mask = pc.fill_null(local_mask, False)
        if self.is_all:
            return Rows.from_mask(local_mask)
        picked = pc.filter(self.positions, local_mask)
        return Rows.from_positions(picked, self.domain)
