"""Which of a case_when's conditions a row's story says the row reached.

The trace names a case_when's condition k `when k`, numbered from 0 as Arrow's
ToString numbers the conditions: condition k is argument k of the conditions'
make_struct. The story must mark exactly the conditions the row reached as
evaluated, and everything inside a condition it did not reach as not evaluated.
"""

import pyarrow as pa

import toolkit as tk


def _choose_in_second_condition():
    # condition 1 is a choose with a null option: the case the property test found
    chosen = tk.call("choose", [tk.field("k"), tk.literal(None, pa.bool_()), tk.field("p"),
                                tk.field("p")])
    return tk.case_when([(tk.is_null(tk.field("i")), tk.field("i")),
                         (chosen, tk.field("j"))], else_=tk.literal(-1))


def _table():
    return pa.table({"i": pa.array([None, 4, 7], pa.int64()),
                     "j": pa.array([10, 20, 30], pa.int64()),
                     "k": pa.array([1, 1, 0], pa.int8()),
                     "p": pa.array([True, True, False])})


def test_a_row_an_earlier_condition_took_never_reaches_the_later_condition():
    # the story's paths are those of the case_when as evaluated: its root is the case_when
    story = tk.explain_row(_choose_in_second_condition(), _table(), 0)  # i is null
    assert story.value.as_py() is None  # then 0: i, which is null
    first, second = story.node("0/0"), story.node("0/1")
    assert first.label == "is_null" and first.evaluated
    assert second.label == "choose" and not second.evaluated
    assert "an earlier condition was true" in second.note
    for index in range(4):  # the choose's index and options: inside a condition not reached
        inner = story.node(f"0/1/{index}")
        assert not inner.evaluated and inner.value is None
        assert "did not reach" in inner.note


def test_a_row_no_earlier_condition_took_reaches_the_later_condition():
    table = _table()
    # row 1: choose picks p (true); row 2: it picks its null option, so no case holds
    for row, value, chosen in ((1, 20, True), (2, -1, None)):
        story = tk.explain_row(_choose_in_second_condition(), table, row)
        assert story.value.as_py() == value
        assert story.node("0/0").evaluated and story.node("0/1").evaluated
        assert story.node("0/1").value.as_py() is chosen


def test_the_story_agrees_with_the_trace_of_the_whole_table():
    """Every row: a condition is evaluated exactly when the traced run's `when k`
    selection of the whole table holds the row."""
    expr = _choose_in_second_condition()
    table = _table()
    with tk.trace() as trace:
        tk.evaluate(expr, table)
    (event,) = trace.evaluations
    whens = {b.branch: set(b.rows.to_pylist()) for b in event.branches
             if b.branch.startswith("when ")}
    assert set(whens) == {"when 0", "when 1"}
    for row in range(table.num_rows):
        story = tk.explain_row(expr, table, row)
        for k in range(2):
            assert story.node(f"0/{k}").evaluated == (row in whens[f"when {k}"]), (row, k)


def test_conditions_of_one_computed_struct_are_read_on_every_row():
    """A case_when over a struct column reads its fields: the struct is evaluated for
    every row, even where an earlier field decided the row."""
    conds = pa.StructArray.from_arrays([pa.array([True, False]), pa.array([False, True])],
                                       names=["0", "1"])
    table = pa.table({"c": conds, "x": pa.array([1, 2], pa.int64())})
    expr = tk.call("case_when", [tk.field("c"), tk.field("x"), tk.literal(7)])
    for row, value in ((0, 1), (1, 7)):
        story = tk.explain_row(expr, table, row)
        assert story.value.as_py() == value
        assert story.node("0").label == "c" and story.node("0").evaluated
        assert story.node("1").evaluated == (row == 0)  # then 0: only where field 0 held


def test_no_condition_shown_skipped_by_a_later_one():
    """Three conditions, the row taken by the second: the first two evaluated, the
    third not (a numbering off by one would skip the second and run the third)."""
    table = pa.table({"a": pa.array([5], pa.int64())})
    expr = tk.case_when([(tk.field("a") > 10, tk.literal(1)),
                         (tk.field("a") > 3, tk.literal(2)),
                         (tk.call("greater", [tk.field("a"), tk.literal(0)]),
                          tk.literal(3))])
    story = tk.explain_row(expr, table, 0)
    assert story.value.as_py() == 2
    reached = [story.node(f"0/{k}").evaluated for k in range(3)]
    assert reached == [True, True, False]
