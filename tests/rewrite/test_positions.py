"""TreePath stands for the tuple of its indices, and deep traces keep their paths in one table."""

import threading

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

import toolkit as tk
from toolkit.rewrite.positions import TreePath, TreePositions

paths = st.lists(st.integers(0, 6), max_size=30).map(tuple)


@given(st.lists(paths, min_size=1, max_size=20))
def test_a_tree_path_is_its_tuple(samples):
    table = TreePositions()
    for path in samples:
        tp = table.of(path)
        assert tp == path and path == tp
        assert hash(tp) == hash(path)
        assert len(tp) == len(path) and bool(tp) == bool(path)
        assert tuple(tp) == path and list(tp) == list(path) and repr(tp) == repr(path)
        assert tp[:2] == path[:2] and tp + (9,) == path + (9,)
        assert {tp: 1}[path] == 1 and {path: 1}[tp] == 1
        assert table.of(path) is not tp and table.of(path) == tp  # one position per path
        assert tp.child(3) == path + (3,)
        assert (tp.parent == path[:-1]) if path else tp.parent is None
    # the same path from another table is equal too, and hashes alike
    other = TreePositions()
    for path in samples:
        assert other.of(path) == table.of(path) and hash(other.of(path)) == hash(path)
    distinct = {table.of(p) for p in samples}
    assert len(distinct) == len(set(samples))


@given(paths, paths)
def test_prefix_and_order_agree_with_tuples(a, b):
    table = TreePositions()
    ta, tb = table.of(a), table.of(b)
    assert ta.is_prefix_of(tb) == (b[:len(a)] == a)
    assert (ta < tb) == (a < b) and (ta <= tb) == (a <= b)
    assert [tuple(p) for p in ta.ancestors()] == [a[:k] for k in range(len(a), -1, -1)]


def test_positions_added_from_many_threads_are_one_per_path():
    table = TreePositions()
    found = []

    def add():
        found.append([table.of((i % 3, i % 5, 1)).pos for i in range(2000)])

    threads = [threading.Thread(target=add) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(f == found[0] for f in found)
    assert len({table.of((i % 3, i % 5, 1)).pos for i in range(15)}) == 15


def test_a_deep_trace_keeps_its_paths_in_one_table_of_one_row_per_position():
    depth = 3_000
    a = tk.field("a")
    expr = tk.literal(-1)
    for k in range(depth):
        expr = tk.if_else(a != k, expr, k)
    table = pa.table({"a": pa.array(range(0, 4_000, 2))})
    with tk.trace() as trace:
        tk.evaluate(expr.bind(table.schema), table)
    event = trace.evaluations[0]
    tables = {id(s.path.table) for s in event.nodes} | {id(b.path.table) for b in event.branches}
    assert len(tables) == 1 and all(isinstance(s.path, TreePath) for s in event.nodes)
    deepest = max(event.nodes, key=lambda s: len(s.path))
    assert len(deepest.path) >= depth
    # one row per position reached, not one entry per step of every path
    assert len(event.root_path().table) <= 2 * len(event.nodes) + len(event.branches)
    # its text has a line per node (five per level and the innermost literal); the
    # innermost if_else, thousands of levels down, shows the rows that reached it
    folded = tk.to_text(trace, width=400).splitlines()  # by default, as its picture
    assert len(folded) < 80 and "levels deep: its top 8 levels printed" in folded[-1]
    lines = tk.to_text(trace, width=400, depth=None).splitlines()
    tree = lines[lines.index(next(x for x in lines if x.startswith("evaluate"))) + 1:]
    # a reason a node ran densely may wrap onto lines of its own under the node
    tree = tree[:1] + [x for x in tree[1:] if "├── " in x or "└── " in x]
    assert len(tree) == 5 * depth + 1
    forms = [x for x in tree if "if_else" in x]
    assert len(forms) == depth and "501 of 2,000 rows" in forms[-1]
