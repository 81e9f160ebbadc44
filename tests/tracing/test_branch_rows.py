"""A branch's rows as a trace keeps them: plain arrays per slice, read as batch rows on demand.

The first rows of a branch (what a sample of a big evaluation keeps) come from a
prefix of those arrays; they must be exactly the first of all its rows.
"""

import numpy as np
import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from toolkit.observe import BranchSelection, RowPiece


@st.composite
def pieces(draw, offset=0):
    length = draw(st.integers(0, 40_000))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    density = draw(st.sampled_from([0.0, 0.001, 0.3, 1.0]))
    in_domain = rng.random(length) < density
    domain_kind = draw(st.sampled_from(["all", "mask", "indices"]))
    domain = {"all": None, "mask": pa.array(in_domain),
              "indices": pa.array(np.flatnonzero(in_domain), pa.int64())}[domain_kind]
    domain_rows = length if domain is None else int(in_domain.sum())
    picked_mask = rng.random(domain_rows) < draw(st.sampled_from([0.0, 0.01, 0.5, 1.0]))
    picked = draw(st.sampled_from([None, pa.array(picked_mask),
                                   pa.array(np.flatnonzero(picked_mask), pa.int64())]))
    return RowPiece(offset, length, domain, picked)


@given(pieces(offset=7), st.integers(0, 300))
def test_the_first_rows_of_a_piece_are_the_first_of_all_its_rows(piece, n):
    assert piece.first(n).to_pylist() == piece.indices().to_pylist()[:n]


@given(st.lists(pieces(), min_size=1, max_size=4), st.integers(0, 300))
def test_the_first_rows_of_a_branch_over_slices_are_its_first_rows(parts, n):
    offset, shifted = 0, []
    for p in parts:  # slices of one batch, one after another
        shifted.append(RowPiece(offset, p.length, p.domain, p.picked))
        offset += p.length
    count = sum(len(p.indices()) for p in shifted)
    lazy = BranchSelection((0,), "then", 1, tuple(reversed(shifted)), offset, count)
    read = BranchSelection((0,), "then", 1, tuple(shifted), offset, count)
    assert lazy.first(n).to_pylist() == read.rows.to_pylist()[:n]
    assert lazy.pieces is not None  # asking for the first rows built nothing else
