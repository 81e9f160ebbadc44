"""The lazy special forms: the rows they evaluate, their results, their errors."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.errors import KernelError
from toolkit.observe import Observer

a, b, s = tk.field("a"), tk.field("b"), tk.field("s")


class Recorder(Observer):
    def __init__(self):
        self.events = []

    def on_eval(self, event):
        self.events.append(event)

    def rows(self, label):
        (event,) = self.events
        return [n.rows for n in event.nodes if n.label == label]

    def branch(self, name):
        (event,) = self.events
        return [br.rows.to_pylist() for br in event.branches if br.branch == name]


@pytest.fixture
def zeros_batch():
    """1,000 rows, a == 0 on exactly 100 of them."""
    av = [0 if i % 10 == 3 else (i % 7) + 1 for i in range(1000)]
    return pa.record_batch({"a": pa.array(av, pa.int64()),
                            "b": pa.array(range(1000), pa.int64())})


def test_if_else_divides_only_where_the_divisor_is_not_zero(zeros_batch):
    expr = tk.if_else(a != 0, b / a, 0)
    with pytest.raises(KernelError, match="divide by zero"):
        tk.evaluate(expr, zeros_batch, mode="eager")  # Arrow's behaviour today
    rec = Recorder()
    out = tk.evaluate(expr, zeros_batch, observer=rec)
    av, bv = zeros_batch.column("a").to_pylist(), zeros_batch.column("b").to_pylist()
    assert out.to_pylist() == [0 if x == 0 else int(y / x) for x, y in zip(av, bv)]
    assert rec.rows("divide_checked") == [900]
    (then_rows,) = rec.branch("then")
    (else_rows,) = rec.branch("else")
    assert len(then_rows) == 900 and len(else_rows) == 100
    assert else_rows == [i for i in range(1000) if i % 10 == 3]


def test_an_error_on_a_selected_row_is_still_raised_with_its_row():
    batch = pa.record_batch({"a": pa.array([5, 0, 3, 0], pa.int64()),
                             "b": pa.array([1, 1, 1, 1], pa.int64())})
    expr = tk.if_else(b > 0, b / a, 0)  # every row selected: row 1 divides by zero
    with pytest.raises(KernelError) as info:
        tk.evaluate(expr, batch)
    assert info.value.row == 1
    assert "divide_checked(b, a)" in str(info.value) and "at row 1" in str(info.value)
    assert info.value.path == (1,)


def test_if_else_null_condition_gives_null():
    batch = pa.record_batch({"a": pa.array([1, None, 0], pa.int64()),
                             "b": pa.array([10, 20, 30], pa.int64())})
    out = tk.evaluate(tk.if_else(a > 0, b, -b), batch)
    assert out.to_pylist() == [10, None, -30]


def test_case_when_first_match_wins_and_conditions_see_only_undecided_rows():
    batch = pa.record_batch({"a": pa.array([0, 1, 2, 0, None, 5], pa.int64()),
                             "b": pa.array([10, 20, 30, 40, 50, 60], pa.int64())})
    # the second condition divides by a: it must never see the rows the first case took
    expr = tk.case_when([(a == 0, b), ((b / a) > 12, b * 2), (a > 0, b * 3)], else_=tk.literal(-1))
    rec = Recorder()
    out = tk.evaluate(expr, batch, observer=rec)
    assert out.to_pylist() == [10, 40, 60, 40, -1, 180]
    assert rec.rows("divide_checked") == [4]  # rows 1, 2, 4, 5 (row 4 has a null a)
    assert rec.branch("when 1") == [[1, 2, 4, 5]]
    assert rec.branch("when 2") == [[4, 5]]
    assert rec.branch("else") == [[4]]
    with pytest.raises(KernelError, match="divide by zero"):
        tk.evaluate(expr, batch, mode="eager")


def test_case_when_without_else_gives_null_and_equals_eager():
    batch = pa.record_batch({"a": pa.array([3, 1, None, -2], pa.int64())})
    expr = tk.case_when([(a > 2, tk.literal("big")), (a > 0, tk.literal("small"))])
    assert tk.evaluate(expr, batch).to_pylist() == ["big", "small", None, None]
    assert tk.evaluate(expr, batch).equals(tk.evaluate(expr, batch, mode="eager"))


def test_coalesce_evaluates_later_arguments_only_where_earlier_ones_are_null():
    batch = pa.record_batch({"a": pa.array([2, None, 4, None], pa.int64()),
                             "b": pa.array([0, 5, 0, 0], pa.int64())})
    # 100 / b fails on rows 0, 2 (where a is not null) and 3 (where it is)
    expr = tk.coalesce(a, tk.literal(100) / b, 7)
    with pytest.raises(KernelError) as info:
        tk.evaluate(expr, batch)
    assert info.value.row == 3  # the first null-a row whose b is zero
    ok = pa.record_batch({"a": batch.column("a"), "b": pa.array([0, 5, 0, 4], pa.int64())})
    rec = Recorder()
    assert tk.evaluate(expr, ok, observer=rec).to_pylist() == [2, 20, 4, 25]
    assert rec.rows("divide_checked") == [2]
    assert rec.branch("arg 1") == [[1, 3]]
    assert rec.branch("arg 2") == [[]]


def test_and_or_skip_the_right_side_where_the_left_decides():
    batch = pa.record_batch({"a": pa.array([0, 2, None, 0, 4], pa.int64()),
                             "b": pa.array([1, 4, 6, 8, 2], pa.int64())})
    and_expr = (a != 0) & ((b / a) > 1)
    or_expr = (a == 0) | ((b / a) > 1)
    assert tk.evaluate(and_expr, batch).to_pylist() == [False, True, None, False, False]
    assert tk.evaluate(or_expr, batch).to_pylist() == [True, True, None, True, False]
    rec = Recorder()
    tk.evaluate(and_expr, batch, observer=rec)
    assert rec.branch("right") == [[1, 2, 4]]  # left true or null: the right side matters
    for expr in (and_expr, or_expr):
        with pytest.raises(KernelError):
            tk.evaluate(expr, batch, mode="eager")


def test_kleene_null_on_the_left_still_evaluates_the_right():
    batch = pa.record_batch({"x": pa.array([None, None, True, False]),
                             "y": pa.array([False, True, None, None])})
    x, y = tk.field("x"), tk.field("y")
    assert tk.evaluate(x & y, batch).to_pylist() == [False, None, None, False]
    assert tk.evaluate(x | y, batch).to_pylist() == [None, True, True, None]


def test_nested_forms_compose_their_selections():
    batch = pa.record_batch({"a": pa.array([0, 1, 2, 3, 0, 5, 6, 0], pa.int64()),
                             "b": pa.array([1, 2, 3, 4, 5, 6, 7, 8], pa.int64())})
    inner = tk.if_else(b > 4, b / a, b * 10)          # divides only where b > 4 (and a != 0)
    expr = tk.if_else(a != 0, inner, tk.literal(-1))
    rec = Recorder()
    out = tk.evaluate(expr, batch, observer=rec)
    assert out.to_pylist() == [-1, 20, 30, 40, -1, 1, 1, -1]
    assert rec.rows("divide_checked") == [2]
    then_rows = {tuple(br.path): br.rows.to_pylist() for br in rec.events[0].branches
                 if br.branch == "then"}
    assert then_rows == {(): [1, 2, 3, 5, 6], (1,): [5, 6]}


def test_a_scalar_condition_picks_one_branch_without_evaluating_the_other():
    batch = pa.record_batch({"a": pa.array([0, 0], pa.int64())})
    out = tk.evaluate(tk.if_else(tk.literal(False), tk.literal(1) / a, a + 5), batch)
    assert out.to_pylist() == [5, 5]
    nulls = tk.evaluate(tk.if_else(tk.literal(None, pa.bool_()), a, a), batch)
    assert nulls.to_pylist() == [None, None]


def test_string_branches_equal_eager():
    batch = pa.record_batch({"s": pa.array(["ab", None, "Cd", "", "ef"]),
                             "a": pa.array([1, 2, 3, 4, None], pa.int64())})
    expr = tk.case_when([(a > 2, tk.call("utf8_upper", [s])),
                         (a > 1, tk.call("utf8_length", [s]).cast(pa.string()))],
                        else_=tk.coalesce(s, "none"))
    lazy = tk.evaluate(expr, batch)
    assert lazy.to_pylist() == ["ab", None, "CD", "", "ef"]
    assert lazy.equals(tk.evaluate(expr, batch, mode="eager"))


def test_checked_overflow_and_failing_casts_only_on_selected_rows():
    big = 2**62
    batch = pa.record_batch({"a": pa.array([1, big, 3], pa.int64()),
                             "t": pa.array(["1", "x", "3"])})
    add = tk.call("add_checked", [a, tk.literal(big)])
    assert tk.evaluate(tk.if_else(a < 100, add, 0), batch).to_pylist() == [big + 1, 0, big + 3]
    cast = tk.field("t").cast(pa.int32())
    assert tk.evaluate(tk.if_else(tk.field("t") != "x", cast, -1), batch).to_pylist() == [1, -1, 3]
    with pytest.raises(KernelError) as info:
        tk.evaluate(tk.if_else(a > 0, cast, -1), batch)
    assert info.value.row == 1 and "cast" in str(info.value)
