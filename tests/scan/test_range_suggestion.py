"""Beyond Arrow: a row group is suggested for skipping only if no row in it passes the filter.

The oracle is the data itself: every row group exprscope says Arrow could have
skipped is read and filtered by pyarrow, and must have no matching row.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk


def _write(tmp_path, table, rows_per_group):
    path = tmp_path / "data.parquet"
    pq.write_table(table, path, row_group_size=rows_per_group)
    return ds.dataset(path, format="parquet")


def _assert_suggestions_hold(dataset, flt):
    scan = tk.explain_scan(dataset, flt)
    fragment = next(iter(dataset.get_fragments()))
    suggested = 0
    for group in scan.fragments[0].row_groups:
        if group.beyond_arrow:
            suggested += 1
            rows = fragment.subset(row_group_ids=[group.id]).to_table(schema=dataset.schema)
            matches = rows.filter(flt) if isinstance(flt, pc.Expression) else None
            assert matches is not None and matches.num_rows == 0, (group.id, group.beyond_arrow)
    return suggested


def test_arithmetic_arrow_cannot_invert(tmp_path):
    table = pa.table({"x": np.arange(10_000, dtype=np.int64)})
    dataset = _write(tmp_path, table, 1_000)
    scan = tk.explain_scan(dataset, pc.field("x") * 2 < 4_000)
    groups = scan.fragments[0].row_groups
    assert all(g.kept for g in groups)  # Arrow reads every group
    assert [g.id for g in groups if g.beyond_arrow] == list(range(2, 10))
    assert groups[2].beyond_arrow.startswith("multiply_checked(2, x) lies in [4,000, 5,998]")
    text = tk.to_text(scan, color=False, width=200)
    assert "beyond Arrow (not what Arrow does): exprscope could also skip 0 files and 8 row groups" in text


def test_possible_overflow_suggests_nothing(tmp_path):
    table = pa.table({"x": pa.array([2**62, 2**62 + 5], pa.int64())})
    dataset = _write(tmp_path, table, 1)
    assert _assert_suggestions_hold(dataset, pc.field("x") * 4 < 0) == 0


def test_nulls_and_nan_keep_groups_that_can_match(tmp_path):
    table = pa.table({"f": pa.array([1.0, float("nan"), None, 2.0]),
                      "x": pa.array([1, None, 3, 4], pa.int64())})
    dataset = _write(tmp_path, table, 2)
    assert _assert_suggestions_hold(dataset, ~(pc.field("f") * 2 < 100)) == 0
    # the group [1, null] can match; the group [3, 4] has no null, so it is suggested
    assert _assert_suggestions_hold(dataset, (pc.field("x") + 1).is_null()) == 1


_OPS = st.sampled_from(["+", "-", "*"])


def _arith(column, op, k):
    x = pc.field(column)
    return {"+": x + k, "-": x - k, "*": x * k}[op]


@settings(deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.integers(-1_000, 1_000)), min_size=1, max_size=60),
       rows_per_group=st.integers(1, 12), op=_OPS, k=st.integers(-5, 5),
       cmp=st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), c=st.integers(-3_000, 3_000),
       negate=st.booleans(), other=st.integers(-1_000, 1_000))
def test_a_suggested_group_never_holds_a_matching_row(tmp_path_factory, values, rows_per_group,
                                                      op, k, cmp, c, negate, other):
    table = pa.table({"x": pa.array(values, pa.int64()),
                      "y": pa.array(sorted(v or 0 for v in values), pa.int64())})
    dataset = _write(tmp_path_factory.mktemp("ranges"), table, rows_per_group)
    left = _arith("x", op, k)
    flt = {"<": left < c, "<=": left <= c, ">": left > c, ">=": left >= c,
           "==": left == c, "!=": left != c}[cmp]
    flt = ~flt if negate else flt
    flt = flt | (pc.field("y") - 1 > other) if other % 3 == 0 else flt
    _assert_suggestions_hold(dataset, flt)
