"""What `story.why` and the node notes say, one shape at a time, and bad input."""

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

import toolkit as tk
from toolkit.errors import ExprscopeError, FieldRefError
from toolkit.explain import RowNotFoundError


@pytest.fixture
def table():
    return pa.table({"a": pa.array([0, 2, None, 1, 5], pa.int64()),
                     "b": pa.array([5, 6, 7, None, 1], pa.int64()),
                     "s": ["x", "y", "z", None, "w"]})


def test_a_false_and_names_its_first_false_term_and_the_operands(table):
    story = tk.explain_row("a > 1 and b > 5", table, 4)
    assert story.value.as_py() is False
    assert "(b > 5)" in story.why and "`b` = 1" in story.why
    assert "(a > 1)" not in story.why  # a true term decided nothing
    assert story.node("1").decided and not story.node("0").decided


def test_a_false_term_other_than_a_comparison_names_the_values_it_read(table):
    """A `like` or a set test has no operands to quote: the columns it reads are named with
    the row's values (TPC-H's ship mode and part name tests said only "is false")."""
    story = tk.explain_row("s in ('q', 'r') or s like 'a%'", table, 4)
    assert "`is_in(s, {value_set=[\"q\", \"r\"]})` is false (with `s` = 'w')" in story.why
    assert "`match_like(s, {pattern=\"a%\"})` is false (with `s` = 'w')" in story.why
    assert tk.explain_row("s = 'q'", table, 4).why.count("(with ") == 1  # its operands only


def test_a_null_and_names_its_null_terms_and_the_column(table):
    story = tk.explain_row("a > 1 and b > 0", table, 3)  # a = 1 > 1 false: not null
    assert story.value.as_py() is False
    story = tk.explain_row("b > 1 and a > 0", table, 3)  # b null, a = 1
    assert story.value.is_valid is False
    assert "(b > 1)" in story.why and "column b" in story.why
    assert story.node("0/0").note == "null: column b is null in this row"


def test_an_or_names_every_term(table):
    story = tk.explain_row("a > 5 or b > 100 or s = 'q'", table, 3)
    assert story.value.is_valid is False
    for term in ("(a > 5)", "(b > 100)", '(s == "q")'):
        assert term in story.why
    assert "column b" in story.why


def test_a_null_from_a_condition_is_traced_to_its_column(table):
    story = tk.explain_row("if_else(a != 0, b, 0) + 1", table, 2)
    assert story.value.is_valid is False
    assert "column a" in story.why
    assert story.node("0").note == "null: the condition is null, so if_else gives null"
    assert story.node("0").branch.startswith("none")


def test_an_untaken_branch_is_not_evaluated_and_its_error_is_named_as_spared(table):
    story = tk.explain_row("if_else(a != 0, b / a, 0)", table, 0)
    assert story.value.as_py() == 0
    divide = story.node("1")
    assert not divide.evaluated and divide.value is None
    assert "divide by zero" in divide.note and "if_else did not run it" in divide.note
    assert story.node("root").branch == "else"
    assert story.spared and "divide by zero" in story.why


def test_a_short_circuited_term_and_a_coalesce_argument_are_not_evaluated(table):
    story = tk.explain_row("a > 1 and b / a > 1", table, 0)
    assert story.value.as_py() is False
    assert not story.node("1").evaluated
    assert "left term is false" in story.node("1").note
    story = tk.explain_row("coalesce(a, b + 1)", table, 1)
    assert story.value.as_py() == 2 and story.node("root").branch == "arg 0"
    assert story.node("0").evaluated and not story.node("1").evaluated
    assert "coalesce took arg 0, the first non-null" in story.node("1").note
    story = tk.explain_row("coalesce(a, b / 0)", table, 1)
    assert "would raise divide failed: divide by zero in divide(b, 0) at row 1 here; " \
        "coalesce did not run it" in story.node("1").note


def test_a_failing_row_names_the_node_its_inputs_and_the_error(table):
    story = tk.explain_row("b / a", table, 0)
    assert story.value is None and "divide by zero" in story.error
    assert "`b` = 5" in story.why and "`a` = 0" in story.why
    eager = tk.explain_row("if_else(a != 0, b / a, 0)", table, 0, mode="eager")
    assert eager.value is None and "divide by zero" in eager.why
    divide = eager.node("1")
    assert divide.evaluated and "divide by zero" in divide.error  # eager runs every argument
    assert "argument at 1 failed" in eager.node("root").note


def test_a_pass_that_changed_the_tree_is_named(table):
    story = tk.explain_row("1 + 2 < a", table, 4)
    assert story.evaluated_expression != story.expression
    assert story.changes and {c.pass_name for c in story.changes} == {
        "simplify_before_evaluation"}
    assert any("add(1, 2)" in c.written or "(1 + 2)" in c.written for c in story.changes) or \
        any("3" in c.evaluated for c in story.changes)


def test_inputs_hold_the_referenced_columns(table):
    story = tk.explain_row("a + b", table, 1)
    assert {k: v.as_py() for k, v in story.inputs.items()} == {"a": 2, "b": 6}


def test_a_predicate_picks_rows_and_counts_them(table):
    stories = tk.explain_row("a + b", table, "b > 4")
    assert stories.matched == 3 and stories.rows == (0, 1, 2)
    assert stories.value.as_py() == 5
    for predicate in (tk.field("b") > 4, pc.field("b") > 4):
        assert tk.explain_row("a + b", table, predicate).rows == (0, 1, 2)


def test_a_predicate_matching_many_rows_explains_the_first_ten():
    big = pa.table({"x": pa.array(range(2_000_000), pa.int64())})
    stories = tk.explain_row("x * 2", big, "x >= 1000")
    assert stories.matched == 1_999_000 and len(stories) == 10
    assert stories.rows == tuple(range(1000, 1010))
    assert "1,999,000 rows match" in str(stories)


def test_a_dataset_numbers_rows_in_scan_order(tmp_path, table):
    import pyarrow.parquet as pq
    pq.write_table(table.slice(0, 2), tmp_path / "part-0.parquet")
    pq.write_table(table.slice(2), tmp_path / "part-1.parquet")
    dataset = ds.dataset(tmp_path)
    story = tk.explain_row("a + b", dataset, 4)
    assert story.value.as_py() == 6 and "scan order" in story.source
    assert tk.explain_row("a + b", dataset, "s = 'w'").rows == (4,)


def test_bad_rows_say_what_is_wrong(table):
    with pytest.raises(RowNotFoundError, match="5 rows"):
        tk.explain_row("a", table, 5)
    with pytest.raises(RowNotFoundError, match=r"no row has \(b > 100\)"):
        tk.explain_row("a", table, "b > 100 and a > 0")
    with pytest.raises(RowNotFoundError, match=r"\(a > 1\) leaves 2 rows and \(b > 6\) \(1 rows alone\) holds on none"):
        tk.explain_row("a", table, "a > 1 and b > 6")
    with pytest.raises(FieldRefError, match=r"did you mean 'b'\?\n  bb > 1\n  \^\^"):
        tk.explain_row("a", table, "bb > 1")
    with pytest.raises(FieldRefError, match=r"did you mean 's'"):
        tk.explain_row("ss + 1", table, 0)
    with pytest.raises(ExprscopeError, match="Table, RecordBatch or Dataset"):
        tk.explain_row("a", table.to_pydict(), 0)
