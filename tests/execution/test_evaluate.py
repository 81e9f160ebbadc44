"""evaluate(): inputs, outputs, chunking, binding, errors, depth, observability."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.errors import ExprscopeError, KernelError
from toolkit.execution import EvaluationError, parallel
from toolkit.execution.morsel_size import morsel_rows

from .eval_recorder import Recorder

a, b = tk.field("a"), tk.field("b")


def test_record_batch_gives_an_array_and_table_a_chunked_array_with_its_chunks():
    t = pa.table({"a": pa.chunked_array([[1, 2], [3], [4, 5, 6]], pa.int64())})
    out = tk.evaluate(a * 2, t)
    assert isinstance(out, pa.ChunkedArray)
    assert [len(c) for c in out.chunks] == [2, 1, 3]
    assert out.to_pylist() == [2, 4, 6, 8, 10, 12]
    arr = tk.evaluate(a * 2, t.to_batches()[2])
    assert isinstance(arr, pa.Array) and arr.to_pylist() == [8, 10, 12]


def test_all_literal_expression_gives_a_scalar():
    batch = pa.record_batch({"a": pa.array([1, 2], pa.int64())})
    out = tk.evaluate(tk.literal(2) * 3 + 1, batch)
    assert isinstance(out, pa.Scalar) and out.as_py() == 7


def test_scalar_subtrees_broadcast_to_the_batch():
    batch = pa.record_batch({"a": pa.array([1, None, 3], pa.int64())})
    assert tk.evaluate(tk.coalesce(tk.literal(9), a), batch).to_pylist() == [9, 9, 9]
    assert tk.evaluate(a + (tk.literal(1) + 1), batch).to_pylist() == [3, None, 5]
    t = pa.Table.from_batches([batch, batch])
    out = tk.evaluate(tk.if_else(tk.literal(True), tk.literal(4), a), t)
    assert [len(c) for c in out.chunks] == [3, 3] and out.to_pylist() == [4] * 6


def test_unbound_expressions_are_bound_and_bound_ones_must_fit_the_data():
    batch = pa.record_batch({"a": pa.array([1, 2], pa.int64()), "b": pa.array([0.5, 1.5])})
    bound = tk.bind(a + b, batch.schema)
    assert tk.evaluate(bound, batch).to_pylist() == [1.5, 3.5]
    other = pa.record_batch({"a": pa.array(["x", "y"]), "b": pa.array([1, 2])})
    with pytest.raises(EvaluationError, match="bind the expression to this data's schema"):
        tk.evaluate(bound, other)


def test_bad_mode_and_bad_data_are_refused_clearly():
    batch = pa.record_batch({"a": pa.array([1], pa.int64())})
    with pytest.raises(EvaluationError, match="mode must be one of .*'sloppy'"):
        tk.evaluate(a, batch, mode="sloppy")
    with pytest.raises(EvaluationError, match="RecordBatch or Table, got dict"):
        tk.evaluate(a, {"a": [1]})
    with pytest.raises(ExprscopeError):
        tk.evaluate(tk.field("nope"), batch)


def test_nested_struct_fields_are_read_by_path():
    inner = pa.array([{"x": 1, "y": "p"}, None, {"x": 3, "y": "q"}])
    batch = pa.record_batch({"s": inner, "a": pa.array([1, 1, 1], pa.int64())})
    out = tk.evaluate(tk.field("s", "x") + a, batch)
    assert out.to_pylist() == [2, None, 4]
    lazy = tk.evaluate(tk.if_else(a > 0, tk.field("s", "y"), "none"), batch)
    assert lazy.to_pylist() == ["p", None, "q"]


def test_ten_thousand_deep_chain_evaluates():
    batch = pa.record_batch({"a": pa.array([1, 2, 3], pa.int64())})
    expr = a
    for _ in range(10_000):
        expr = expr + 1
    expr = tk.bind(expr, batch.schema)
    assert tk.evaluate(expr, batch).to_pylist() == [10_001, 10_002, 10_003]
    assert tk.evaluate(expr, batch, mode="eager").to_pylist() == [10_001, 10_002, 10_003]


def test_ten_thousand_deep_nested_if_else_evaluates():
    batch = pa.record_batch({"a": pa.array([0, 1, 2, 3], pa.int64())})
    expr = a
    for i in range(10_000):
        expr = tk.if_else(a > (i % 3), expr + 1, tk.literal(-1))
    expected = []
    for x in range(4):  # the same, row by row, in Python
        value = x
        for i in range(10_000):
            value = value + 1 if x > i % 3 else -1
        expected.append(value)
    assert tk.evaluate(expr, batch).to_pylist() == expected


@pytest.mark.parametrize("piece_rows, morsel_rows", [(1000, 64), (128, 64), (64, 1000)])
def test_kernel_error_in_a_later_chunk_names_the_row_of_the_whole_table(
        monkeypatch, piece_rows, morsel_rows):
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 1)  # run the pieces on the pool
    monkeypatch.setattr(parallel, "PIECE_ROWS", piece_rows)
    monkeypatch.setattr(parallel, "MORSEL_ROWS", morsel_rows)
    values = [1] * 1000
    values[777] = 0
    values[901] = 0
    t = pa.Table.from_batches(pa.table({"a": pa.array(values, pa.int64())}).to_batches(300))
    with pytest.raises(KernelError) as info:
        tk.evaluate(tk.literal(10) / a, t)
    assert info.value.row == 777
    assert "divide_checked(10, a)" in str(info.value)


@pytest.mark.parametrize("piece_rows, morsel_rows", [(1000, 333), (700, 64), (333, 1000)])
def test_pieces_and_morsels_equal_the_one_piece_result(monkeypatch, piece_rows, morsel_rows):
    chunks = [list(range(2000)), list(range(2000, 2100)), list(range(2100, 5000))]
    t = pa.table({"a": pa.chunked_array(chunks, pa.int64())})
    expr = tk.if_else(a > 2500, a * 2, tk.coalesce(tk.literal(None, pa.int64()), a))
    expected = tk.evaluate(expr, t)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 1)
    monkeypatch.setattr(parallel, "PIECE_ROWS", piece_rows)
    monkeypatch.setattr(parallel, "MORSEL_ROWS", morsel_rows)
    out = tk.evaluate(expr, t)
    assert [len(c) for c in out.chunks] == [2000, 100, 2900]  # the caller's chunks, kept
    assert out.equals(expected)
    batch_out = tk.evaluate(expr, t.combine_chunks().to_batches()[0])
    assert isinstance(batch_out, pa.Array) and batch_out.equals(expected.combine_chunks())


def test_a_field_free_branch_fills_every_row_of_every_morsel(monkeypatch):
    """A morsel whose value is a scalar (no field read) stands for all its rows."""
    monkeypatch.setattr(parallel, "MORSEL_ROWS", 64)
    t = pa.table({"a": pa.array(range(200), pa.int64())})
    out = tk.evaluate(tk.coalesce(tk.literal(7), a), t)
    assert out.type == pa.int64() and out.to_pylist() == [7] * 200


def test_morsels_split_the_work_inside_one_piece():
    expr = tk.bind((a + 1) * 2, pa.schema([("a", pa.int64())]))  # an int64 intermediate
    rows = morsel_rows(expr)
    t = pa.table({"a": pa.array(range(3 * rows + 5), pa.int64())})
    rec = Recorder()
    out = tk.evaluate(expr, t, observer=rec)
    assert out.num_chunks == 1 and out[-1].as_py() == (3 * rows + 5) * 2
    add = next(n for n in rec.events[0].nodes if n.label == "add_checked")
    assert add.calls == 4 and add.rows == len(t)


def test_observer_gets_node_stats_branches_and_small_data():
    batch = pa.record_batch({"a": pa.array([0, 1, 2, 0], pa.int64())})
    rec = Recorder()
    out = tk.evaluate(tk.if_else(a != 0, tk.literal(6) / a, 0), batch, observer=rec)
    (event,) = rec.events
    assert event.mode == "lazy" and event.num_rows == 4 and event.error is None
    assert event.result.equals(out) and event.data is batch
    by_path = {n.path: n for n in event.nodes}
    assert by_path[()].label == "if_else" and by_path[()].rows == 4
    assert by_path[(1,)].label == "divide_checked" and by_path[(1,)].rows == 2
    assert by_path[(1,)].out_type == pa.int64() and by_path[(1,)].calls == 1
    then = next(br for br in event.branches if br.branch == "then")
    assert then.rows.type == pa.int64() and then.rows.to_pylist() == [1, 2]
    assert then.total_rows == 4 and then.path == ()


def test_observer_sees_the_error_before_it_is_raised():
    batch = pa.record_batch({"a": pa.array([1, 0], pa.int64())})
    rec = Recorder()
    with tk.observing(rec), pytest.raises(KernelError):
        tk.evaluate(tk.literal(1) / a, batch)
    (event,) = rec.events
    # the event keeps what the KernelError said, as plain values (not the exception)
    assert event.error.kind == "KernelError" and event.error.row == 1
    assert "divide by zero" in str(event.error)


def test_observer_stats_add_up_over_chunks(monkeypatch):
    monkeypatch.setattr(parallel, "MORSEL_ROWS", 100)
    t = pa.table({"a": pa.array([i % 4 for i in range(1000)], pa.int64())})
    rec = Recorder()
    tk.evaluate(tk.if_else(a != 0, tk.literal(12) / a, 0), t, observer=rec)
    (event,) = rec.events
    divide = next(n for n in event.nodes if n.label == "divide_checked")
    assert divide.rows == 750 and divide.calls == 10
    then = next(br for br in event.branches if br.branch == "then")
    assert then.rows.to_pylist() == [i for i in range(1000) if i % 4]


def test_large_data_is_kept_on_the_event_only_as_a_bounded_sample():
    from toolkit.execution.evaluation import SAMPLE_FIRST

    t = pa.table({"a": pa.array(range(20_000), pa.int64())})
    rec = Recorder()
    tk.evaluate(a + 1, t, observer=rec)
    event = rec.events[0]
    assert event.sample.to_pylist() == list(range(SAMPLE_FIRST))  # no branches: the first rows
    assert event.data.num_rows == len(event.result) == SAMPLE_FIRST
    assert event.result.to_pylist() == [r + 1 for r in range(SAMPLE_FIRST)]


def test_empty_table():
    t = pa.table({"a": pa.array([], pa.int64())})
    out = tk.evaluate(tk.if_else(a > 0, a, -a), t)
    assert isinstance(out, pa.ChunkedArray) and len(out) == 0 and out.type == pa.int64()


def test_no_rows_means_nothing_is_computed_and_nothing_fails():
    t = pa.table({"a": pa.array([], pa.int64())})
    one_over_zero = tk.call("divide", [tk.literal(1), tk.literal(0)])
    for expr in (one_over_zero, a + one_over_zero):
        out = tk.evaluate(expr, t)
        assert isinstance(out, pa.ChunkedArray) and len(out) == 0 and out.type == pa.int64()
    out = tk.evaluate(one_over_zero, pa.record_batch({"a": pa.array([], pa.int64())}))
    assert isinstance(out, pa.Array) and len(out) == 0
    with pytest.raises(tk.KernelError):
        tk.evaluate(a + one_over_zero, pa.table({"a": [1]}))


def test_all_literal_forms_take_their_else_branch():
    batch = pa.record_batch({"a": pa.array([1], pa.int64())})
    expr = tk.case_when([(tk.literal(None, pa.bool_()), tk.literal(False))], else_=tk.literal(True))
    out = tk.evaluate(tk.not_(expr), batch)
    assert isinstance(out, pa.Scalar) and out.as_py() is False


def test_traced_deep_chain_reports_every_node_with_its_path():
    batch = pa.record_batch({"a": pa.array([1, 2], pa.int64())})
    expr = a
    for _ in range(2000):
        expr = expr + 1
    rec = Recorder()
    tk.evaluate(tk.bind(expr, batch.schema), batch, observer=rec, simplify=False)
    nodes = {n.path: n for n in rec.events[0].nodes}
    assert len(nodes) == 4001
    assert nodes[()].label == "add_checked" and nodes[(0,) * 2000].label == "a"
    assert nodes[(0,) * 1999 + (1,)].label == "1"
