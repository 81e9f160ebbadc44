"""The magics, run in IPython's test shell as a notebook would run them."""

import pyarrow as pa
import pytest

import toolkit as tk
from widgets import Explorer, SelectionView


def _no_traceback(captured) -> None:
    assert "Traceback" not in captured.err and "Traceback" not in captured.out


def test_expr_returns_the_tree_and_displays_it_as_svg(ip):
    expr = ip.run_line_magic("expr", "a + 1 > 3")
    assert expr.equals(tk.parse("a + 1 > 3"))
    data, _ = ip.display_formatter.format(expr)
    assert "<svg" in data["image/svg+xml"]
    assert "greater" in data["text/plain"] or ">" in data["text/plain"]


def test_expr_binds_to_the_data_named_by_data(ip, penguins):
    ip.user_ns["penguins"] = penguins
    expr = ip.run_line_magic("expr", "--data penguins bill_length_mm / bill_depth_mm > 2.5")
    assert expr.is_bound and expr.type == pa.bool_()
    assert expr.args[0].type == pa.float64()


def test_expr_with_a_pandas_dataframe(ip):
    import pandas as pd

    ip.user_ns["df"] = pd.DataFrame({"s": ["x", None]})
    expr = ip.run_line_magic("expr", "-d df s = 'x'")
    assert expr.is_bound and expr.args[0].type in (pa.string(), pa.large_string())


def test_a_parse_error_prints_one_message_with_a_caret(ip, capsys):
    result = ip.run_cell("%expr a + * 2")
    captured = capsys.readouterr()
    assert result.error_in_exec is None and result.result is None
    _no_traceback(captured)
    lines = captured.err.rstrip("\n").splitlines()
    assert lines[-2].strip() == "a + * 2"
    caret_line = lines[-1]
    assert "^" in caret_line
    # the caret sits under the text the user typed (same column in the snippet)
    assert lines[-2].index("a + * 2") <= caret_line.index("^") < lines[-2].index("a + * 2") + 7


def test_an_unknown_variable_is_one_line(ip, capsys):
    result = ip.run_cell("%expr --data nowhere a > 1")
    captured = capsys.readouterr()
    assert result.result is None
    _no_traceback(captured)
    assert captured.err.strip() == "--data nowhere: no variable named 'nowhere' in the notebook"


def test_a_missing_field_names_the_schema(ip, capsys, penguins):
    ip.user_ns["penguins"] = penguins
    ip.run_cell("%expr --data penguins bill_width > 1")
    captured = capsys.readouterr()
    _no_traceback(captured)
    lines = captured.err.strip().splitlines()
    assert lines[0] == "no field 'bill_width'; did you mean 'bill_depth_mm'?"
    assert lines[1:3] == ["  bill_width > 1", "  ^^^^^^^^^^"]  # under the field, in the text
    assert "bill_length_mm (double)" in lines[3]  # the fields there are, to pick from
    assert len(lines) == 4


def test_explain_opens_the_explorer_on_the_passes(ip, penguins):
    ip.user_ns["penguins"] = penguins
    explorer = ip.run_cell_magic(
        "explain", '--data penguins --guarantee "year == 2008"',
        "year == 2008 and 40 < bill_length_mm\n")
    assert isinstance(explorer, Explorer)
    names = [s.name for s in explorer.steps]
    assert "simplify_with_guarantee" in names and "canonicalize" in names
    guarantee_step = explorer.steps[names.index("simplify_with_guarantee")]
    assert guarantee_step.changed and "year" not in guarantee_step.after.to_string()
    assert "simplify_with_guarantee" in explorer.header.value


def test_explain_without_fields_needs_no_data(ip):
    explorer = ip.run_cell_magic("explain", "", "1 + 2 > 2")
    assert isinstance(explorer, Explorer)
    assert explorer.steps[-1].after.to_string() == "true"


def test_explain_on_fields_without_data_says_what_to_add(ip, capsys):
    assert ip.run_cell_magic("explain", "", "a > 1") is None
    captured = capsys.readouterr()
    _no_traceback(captured)
    assert "--data" in captured.err and "a" in captured.err


def test_a_bad_guarantee_points_into_the_guarantee(ip, capsys, penguins):
    ip.user_ns["penguins"] = penguins
    result = ip.run_cell('%%explain --data penguins --guarantee "year =="\nyear > 1\n')
    captured = capsys.readouterr()
    assert result.result is None
    _no_traceback(captured)
    assert captured.err.startswith("in --guarantee:")
    assert "year ==" in captured.err and "^" in captured.err


def test_trace_opens_the_selection_view(ip, penguins):
    ip.user_ns["penguins"] = penguins
    view = ip.run_cell_magic("trace", "--data penguins",
                             "if(bill_depth_mm > 18, bill_length_mm, 0)")
    assert isinstance(view, SelectionView)
    assert view.rows.num_rows == 344
    assert "lazy evaluation" in view.summary.value
    expected = penguins.column("bill_depth_mm").to_pylist()
    taken = [r["if_else@root"] for r in view.rows.page(0, 344)]
    assert taken == ["null" if d is None else ("then" if d > 18 else "else") for d in expected]


def test_trace_in_eager_mode(ip, penguins):
    ip.user_ns["penguins"] = penguins
    view = ip.run_cell_magic("trace", "--data penguins --mode eager", "coalesce(sex, 'unknown')")
    assert "eager evaluation" in view.summary.value


def test_a_failing_row_is_reported_once_and_still_shown(ip, capsys):
    ip.user_ns["t"] = pa.table({"a": [4, 2, 0, 1], "b": [8, 8, 8, 8]})
    result = ip.run_cell("%%trace --data t\nb / a\n")
    captured = capsys.readouterr()
    _no_traceback(captured)
    assert "row 2" in captured.err and len(captured.err.strip().splitlines()) == 1
    view = result.result
    assert isinstance(view, SelectionView) and "row 2" in view.summary.value


def test_the_lazy_form_protects_the_division_that_eager_mode_runs(ip, capsys):
    ip.user_ns["t"] = pa.table({"a": [4, 0], "b": [8, 8]})
    view = ip.run_cell_magic("trace", "--data t", "if(a != 0, b / a, 0)")
    assert [r["value"] for r in view.visible_rows()] == [2, 0]
    ip.run_cell_magic("trace", "--data t --mode eager", "if(a != 0, b / a, 0)")
    assert "divide" in capsys.readouterr().err


@pytest.mark.parametrize("cell, message", [
    ("%%trace\na\n", "--data"),
    ("%%trace --data t --mode fast\na\n", "fast"),
])
def test_bad_options_are_a_usage_error_not_a_traceback(ip, capsys, cell, message):
    ip.user_ns["t"] = pa.table({"a": [1]})
    ip.run_cell(cell)
    captured = capsys.readouterr()
    _no_traceback(captured)
    assert "UsageError" in captured.err and message in captured.err


def test_single_steps_display_as_svg_after_load_ext(ip, penguins):
    with tk.trace() as t:
        tk.optimize(tk.parse("3 < year"), penguins.schema)
    data, _ = ip.display_formatter.format(t.steps[0])
    assert "<svg" in data["image/svg+xml"] and data["text/plain"]


@pytest.mark.parametrize("cell", ["%%explain\n\n", "%%trace --data t\n   \n"])
def test_an_empty_cell_says_what_is_missing(ip, capsys, cell):
    ip.user_ns["t"] = pa.table({"a": [1]})
    assert ip.run_cell(cell).result is None
    captured = capsys.readouterr()
    _no_traceback(captured)
    assert captured.err.strip() == "the cell holds no expression: write one below the magic's line"


@pytest.mark.parametrize("magic", ["%%trace --data penguins\n", "%%explain --data penguins\n",
                                   "%expr --data penguins "])
def test_no_kernel_is_one_short_message_in_every_magic(ip, capsys, penguins, magic):
    ip.user_ns["penguins"] = penguins
    result = ip.run_cell(magic + "species + 1")
    captured = capsys.readouterr()
    assert result.error_in_exec is None and result.result is None
    _no_traceback(captured)
    lines = captured.err.strip().splitlines()
    assert len(lines) <= 8
    kind = penguins.schema.field("species").type
    assert lines[0] == f"add(species: {kind}, 1) has no kernel"
    assert lines[1:3] == ["  species + 1", "  ^^^^^^^^^^^"]  # the caret under the call
    assert "narrowed" in captured.err and "add takes integers, floats" in captured.err


def test_trace_draws_the_tree_and_keeps_the_trace_for_the_explorer(ip, penguins):
    ip.user_ns["penguins"] = penguins
    view = ip.run_cell_magic("trace", "--data penguins",
                             "if(bill_depth_mm > 18, bill_length_mm, 0)")
    kept = ip.user_ns["_trace"]
    assert isinstance(kept, tk.Trace) and kept.evaluations
    tree = view.children[0]
    assert "exprscope-trace-tree" in tree._dom_classes and "if_else" in tree.value
    assert "_trace" in view.children[1].value
    Explorer(kept)  # opens on what the magic kept
    ip.run_cell_magic("trace", "--data penguins --out mine", "bill_length_mm + 1")
    assert isinstance(ip.user_ns["mine"], tk.Trace)


def test_trace_reads_pyarrow_compute_calls(ip, penguins):
    ip.user_ns["penguins"] = penguins
    view = ip.run_cell_magic(
        "trace", "--data penguins --pyarrow",
        'pc.if_else(pc.field("bill_depth_mm") > 18, pc.field("bill_length_mm"), 0.0)')
    assert isinstance(view, SelectionView) and view.rows.num_rows == 344
