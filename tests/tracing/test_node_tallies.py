"""The evaluation's node figures, summed over morsels as lists by position, against a
plain merge: node by node, morsel by morsel, in row order (what the trace showed before
the figures were kept as lists)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk
from toolkit.execution.tallies import SliceTallies, joined, node_label, node_stats
from toolkit.rewrite.positions import TreePositions

NODES = [tk.field("a"), tk.literal(1), tk.call("add", [tk.field("a"), tk.literal(1)]),
         tk.field("b"), tk.literal("x")]
WORDS = ["", "dense", "selected", "all rows", "masked"]

record = st.tuples(st.integers(0, 40), st.integers(0, 1000), st.integers(0, 1000),
                   st.floats(0, 1), st.integers(0, 3), st.sampled_from(WORDS),
                   st.sampled_from(WORDS), st.sampled_from(WORDS))
morsel = st.tuples(st.integers(0, 2), st.lists(record, max_size=30))  # (thread, records)


def reference(morsels):
    """pos -> [node, rows, used, elapsed, calls, how, why, fused, threads], first-recorded order."""
    out: dict[int, list] = {}
    for thread, records in morsels:
        mine: dict[int, list] = {}
        for pos, rows, used, elapsed, calls, how, why, fused in records:
            node = NODES[pos % len(NODES)]
            seen = mine.get(pos)
            if seen is None:
                mine[pos] = [node, rows, used, elapsed, calls, how, why, fused]
            else:
                seen[1] += rows
                seen[2] += used
                seen[3] += elapsed
                seen[4] += calls
                seen[5:8] = [joined(seen[5], how), joined(seen[6], why), joined(seen[7], fused)]
        for pos, figures in mine.items():
            merged = out.get(pos)
            if merged is None:
                out[pos] = [*figures, {thread}]
                continue
            for k in range(1, 5):
                merged[k] += figures[k]
            merged[5:8] = [joined(merged[k], figures[k]) for k in (5, 6, 7)]
            merged[8].add(thread)
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(morsel, max_size=6), st.integers(1, 64))
def test_summed_as_a_plain_merge_would(morsels, room):
    slices = []
    for thread, records in morsels:
        tallies = SliceTallies(room)
        for pos, rows, used, elapsed, calls, how, why, fused in records:
            tallies.add(pos, NODES[pos % len(NODES)], rows, used, elapsed, calls, how, why, fused)
        slices.append((tallies, thread))
    positions = TreePositions()
    for _ in range(41):  # position ids 1..41 under the root
        positions.id(None, (len(positions),))
    stats = node_stats(slices, positions.at, {})
    expected = reference(morsels)
    assert [s.path for s in stats] == [positions.at(p) for p in expected]
    for stat, (pos, (node, rows, used, elapsed, calls, how, why, fused, threads)) in zip(
            stats, expected.items()):
        assert (stat.label, stat.rows, stat.used_rows, stat.calls) == \
            (node_label(node), rows, used, calls)
        assert (stat.how, stat.why, stat.fused) == (how, why, fused)
        assert stat.threads == len(threads)
        assert stat.out_type == node.type
        assert math.isclose(stat.elapsed, elapsed, rel_tol=1e-9, abs_tol=1e-12)
