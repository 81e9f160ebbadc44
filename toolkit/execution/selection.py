"""SelectionVector: a set of rows of a batch (or of a special form's domain).

The one representation of a set of rows in the engine: the rows a lazily
evaluated branch runs on, and inside a form which of its domain's rows each
branch gets. It is held as sorted int64 row indices within `[0, length)` (what
`take` gathers with and what the tracer shows), as the equivalent boolean mask,
or both; whichever is missing is built on first use with one pyarrow kernel,
never a Python loop. Inside a form the mask is what is cheap (and, and_not over
bitmaps are nearly free), so a selection made from a mask keeps only the mask
and its count until someone asks for indices: `filter(arange, mask)`, several
times faster than `indices_nonzero`. `length` is the length of the batch the
indices point into, as in Arrow's fork (#47377).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import (
    SelectionError,  # defined with every other exprscope error
)
from ..observe import MaskOnRead

__all__ = ["SelectionError", "SelectionVector", "filled", "row_numbers"]


def filled(mask: pa.Array, fill: bool) -> pa.Array:
    """A boolean array with its nulls replaced by `fill`, as bitmap kernels.

    Arrow's `fill_null` on a boolean array goes value by value (about 1 ms for a
    million rows, some 40 times a bitmap `and`): the values bitmap and the validity
    bitmap, each read as an array of its own, give the same answer in one or two
    bitmap kernels. A value under a null slot is unspecified, hence the `and`.
    """
    if not mask.null_count:
        return mask
    if isinstance(mask, pa.ChunkedArray):
        return pa.chunked_array([filled(chunk, fill) for chunk in mask.chunks], pa.bool_())
    if mask.type != pa.bool_():  # a null-typed array: every row is `fill`
        return pc.fill_null(mask, fill)
    validity, values = mask.buffers()
    valid = pa.Array.from_buffers(pa.bool_(), len(mask), [None, validity], offset=mask.offset)
    value = pa.Array.from_buffers(pa.bool_(), len(mask), [None, values], offset=mask.offset)
    return pc.or_(value, pc.invert(valid)) if fill else pc.and_(value, valid)


def row_numbers(length: int) -> pa.Int64Array:
    """0, 1, ..., length - 1: shared, since arrays are immutable and a form building the
    indices of each of 100 branches of a 256K-row morsel would otherwise spend as long
    writing the numbers (about 60 us) as filtering them."""
    found = _ROW_NUMBERS.get(length)
    if found is None:
        if len(_ROW_NUMBERS) >= _ROW_NUMBERS_SIZE:
            _ROW_NUMBERS.pop(next(iter(_ROW_NUMBERS)), None)  # the oldest entry
        found = _ROW_NUMBERS[length] = pa.arange(0, length)
    return found


_ROW_NUMBERS: dict[int, pa.Int64Array] = {}
_ROW_NUMBERS_SIZE = 8  # morsel lengths in use at once: a few (the last morsel of each chunk)


class SelectionVector:
    """Sorted, distinct row indices into a batch of `length` rows."""

    __slots__ = ("_indices", "_later", "_mask", "count", "length")

    def __init__(self, indices, length: int, *, check: bool = True):
        if not isinstance(indices, pa.Array):
            indices = pa.array(indices, type=pa.int64())
        if not pa.types.is_integer(indices.type):
            raise SelectionError(f"selection indices must be integers, got {indices.type}")
        if indices.type != pa.int64():
            indices = indices.cast(pa.int64())
        length = int(length)
        if length < 0:
            raise SelectionError(f"a selection's batch length must be >= 0, got {length}")
        if check:
            _check_indices(indices, length)
        self.length = length
        self._indices = indices
        self._mask = None
        self._later = None
        self.count = len(indices)

    # -- construction ------------------------------------------------------------
    @classmethod
    def from_mask(cls, mask, length: int | None = None) -> SelectionVector:
        """The rows where `mask` is true; a null counts as not selected (Arrow's filter)."""
        if isinstance(mask, pa.ChunkedArray):
            mask = mask.combine_chunks()
        if not isinstance(mask, pa.Array):
            mask = pa.array(mask, type=pa.bool_())
        if mask.type != pa.bool_():
            raise SelectionError(f"a selection mask must be boolean, got {mask.type}")
        if length is not None and length != len(mask):
            raise SelectionError(f"mask has {len(mask)} rows but the batch has {length}")
        mask = filled(mask, False)
        return cls._of(len(mask), mask.true_count, mask=mask)

    @classmethod
    def _of(cls, length: int, count: int, mask=None, indices=None) -> SelectionVector:
        """A selection from what the engine already has (unchecked): a mask, indices, or both."""
        out = cls.__new__(cls)
        out.length, out.count, out._mask, out._indices = length, count, mask, indices
        out._later = None
        return out

    @classmethod
    def made_on_read(cls, length: int, count: int, later: MaskOnRead) -> SelectionVector:
        """`count` rows of `length` whose mask `later` makes when first asked for: a traced
        form records rows that untraced evaluation never builds, and the trace builds them
        only if read (`as_recorded` hands `later` itself over)."""
        out = cls._of(int(length), int(count))
        out._later = later
        return out

    @classmethod
    def all(cls, length: int) -> SelectionVector:
        return cls._of(int(length), int(length))

    @classmethod
    def none(cls, length: int) -> SelectionVector:
        return cls._of(int(length), 0, indices=pa.array([], pa.int64()))

    # -- views -------------------------------------------------------------------
    @property
    def indices(self) -> pa.Int64Array:
        """Sorted int64 row indices."""
        if self._indices is None:
            everything = row_numbers(self.length)
            self._indices = everything if self.is_all else pc.filter(everything, self.mask)
        return self._indices

    @property
    def mask(self) -> pa.BooleanArray:
        """A boolean array of `length` rows, true where selected (no nulls)."""
        if self._mask is None:
            if self._later is not None:
                self._mask = self._later.array()
            elif self.is_all:
                self._mask = pa.repeat(pa.scalar(True), self.length)
            elif self.count == 0:
                self._mask = pa.repeat(pa.scalar(False), self.length)
            else:
                # out[indices[i]] = i, null elsewhere: valid exactly at the selected rows
                positions = pc.inverse_permutation(self._indices, max_index=self.length - 1)
                self._mask = pc.is_valid(positions)
        return self._mask

    def as_recorded(self) -> pa.Array:
        """The rows as held now, converting nothing: the mask if there is one, the
        MaskOnRead that will make it, else indices."""
        if self._mask is not None:
            return self._mask
        return self._later if self._later is not None else self.indices

    def __len__(self) -> int:
        return self.count

    @property
    def density(self) -> float:
        return self.count / self.length if self.length else 1.0

    @property
    def is_all(self) -> bool:
        return self.count == self.length

    # -- algebra -----------------------------------------------------------------
    def _same_batch(self, other: SelectionVector) -> None:
        if not isinstance(other, SelectionVector):
            raise SelectionError(f"expected a SelectionVector, got {type(other).__name__}")
        if other.length != self.length:
            raise SelectionError(
                f"selections of different batches: {self.length} rows and {other.length} rows")

    def intersect(self, other: SelectionVector) -> SelectionVector:
        """The rows both select (the teaching notebook combines selections this way)."""
        self._same_batch(other)
        return SelectionVector.from_mask(pc.and_(self.mask, other.mask))

    def union(self, other: SelectionVector) -> SelectionVector:
        self._same_batch(other)
        return SelectionVector.from_mask(pc.or_(self.mask, other.mask))

    def complement(self) -> SelectionVector:
        """The rows this selection leaves out."""
        return SelectionVector.from_mask(pc.invert(self.mask))

    def and_mask(self, mask: pa.Array) -> SelectionVector:
        """The rows of self where `mask` (over all `length` rows, no nulls) is true."""
        return SelectionVector.from_mask(mask if self.is_all else pc.and_(self.mask, mask))

    def minus(self, other: SelectionVector) -> SelectionVector:
        """The rows of self that `other` does not select (same batch)."""
        if other.count == 0:
            return self
        if self.is_all:  # the complement: counted now, its mask made only if read (a
            # funnel's last rows are often used as one value, never as a mask)
            self._same_batch(other)
            return SelectionVector.made_on_read(self.length, self.length - other.count,
                                                MaskOnRead(pc.invert, (other.mask,),
                                                           self.length))
        return SelectionVector.from_mask(pc.and_not(self.mask, other.mask))

    def scatter_local(self, local_mask: pa.Array) -> SelectionVector:
        """The rows of self picked by a mask over self's own rows, in order (compact)."""
        local_mask = filled(local_mask, False)
        if self.is_all:
            return SelectionVector.from_mask(local_mask)
        picked = pc.filter(self.indices, local_mask)
        return SelectionVector._of(self.length, len(picked), indices=picked)

    def compose(self, inner) -> SelectionVector:
        """A sub-selection: `inner` (a SelectionVector over *this selection's* rows, or
        sorted distinct positions into them) picked out of this selection's rows."""
        if isinstance(inner, SelectionVector):
            if inner.is_all:
                return self
            if inner._indices is None:  # a mask over our rows: one filter, no positions made
                return self.scatter_local(inner.mask)
            inner = inner._indices
        picked = pc.take(self.indices, inner)
        return SelectionVector._of(self.length, len(picked), indices=picked)

    def gather(self, values):
        """The selected rows of an array (a scalar stays as it is)."""
        if isinstance(values, pa.Scalar):
            return values
        if len(values) != self.length:
            raise SelectionError(
                f"cannot gather a {len(values)}-row array with a selection of a {self.length}-row batch")
        return pc.take(values, self.indices)

    def shifted(self, offset: int, length: int) -> SelectionVector:
        """The same rows seen from a batch that starts `offset` rows earlier."""
        return SelectionVector(pc.add(self.indices, offset), length, check=False)

    def equals(self, other: object) -> bool:
        return (isinstance(other, SelectionVector) and other.length == self.length
                and other.count == self.count and other.indices.equals(self.indices))

    def to_pylist(self) -> list[int]:
        return self.indices.to_pylist()

    def __repr__(self) -> str:
        shown = self.indices.slice(0, 8).to_pylist()
        more = ", ..." if self.count > 8 else ""
        return (f"SelectionVector({self.count} of {self.length} rows, "
                f"density {self.density:.1%}: {shown}{more})")


def _check_indices(indices: pa.Array, length: int) -> None:
    if indices.null_count:
        raise SelectionError("selection indices must not contain nulls")
    if len(indices) == 0:
        return
    lo, hi = pc.min_max(indices).values()
    if lo.as_py() < 0 or hi.as_py() >= length:
        raise SelectionError(
            f"selection indices must lie within [0, {length}), got values from {lo} to {hi}")
    if len(indices) > 1:
        increasing = pc.all(pc.greater(indices.slice(1), indices.slice(0, len(indices) - 1)))
        if not increasing.as_py():
            raise SelectionError("selection indices must be sorted and distinct")
