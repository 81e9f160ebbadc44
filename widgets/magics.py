"""`%expr`, `%%explain` and `%%trace`: exprscope at a notebook's fingertips.

    %load_ext widgets
    %expr --data penguins bill_length_mm / bill_depth_mm > 2.5
    %%explain --data penguins --guarantee "year == 2008"
    %%trace --data penguins --mode lazy --out my_trace
    %%explain_scan --data flights_dataset
    %explain_row --data flights --where "flight = 1545 and month = 1" dep_delay > 60
    %%catalyst --exclude PushDownPredicates      (SQL, or --python a DataFrame expression)

Mistakes in what the user typed (a parse error, an unknown variable, a kernel
that fails on a row) print one short message, with a caret under the culprit
for parse errors, never a traceback: a notebook user should not have to read
exprscope's insides to fix a typo.
"""

from __future__ import annotations

import html
import os
import re
import sys

import ipywidgets as w
import pyarrow as pa
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

import toolkit as tk
from toolkit.errors import (
    ExprscopeError,
    FieldRefError,
    MagicInputError,  # defined with every other exprscope error
    NoKernelError,
    ParseError,
)
from toolkit.interop.pyarrow_text import parse_pyarrow
from toolkit.support import late
from toolkit.support.visible_text import visible_lines
from toolkit.tracing.steps import EVAL, step_kind

from .catalyst_magic import catalyst_cell
from .data_source import DataSourceError, resolve_data
from .explorer import Explorer
from .rich_display import tree_html
from .scan_view import ScanView
from .selection_view import SelectionView

pyarrow_dataset = late.module("pyarrow.dataset")

__all__ = ["ExprscopeMagics", "MagicInputError", "split_leading_options"]


_USER_ERRORS = (ExprscopeError, DataSourceError, MagicInputError, pa.ArrowException)


@magics_class
class ExprscopeMagics(Magics):
    """The magics `%load_ext widgets` registers."""

    @line_magic
    @magic_arguments()
    @argument("--data", "-d", metavar="VAR",
              help="bind to the schema of this variable (pyarrow Table or RecordBatch, "
                   "pandas or Spark DataFrame)")
    @argument("text", nargs="*", help="the expression, e.g. a + 1 > 3")
    def expr(self, line: str):
        """Show an expression's tree; bound (with types) when --data names some data."""
        options, text = split_leading_options(line, {"--data", "-d"})
        args = parse_argstring(self.expr, options)
        if not text.strip():
            return _report("%expr needs an expression, e.g. %expr a + 1 > 3")
        try:
            expression = tk.parse(text)
            if args.data:
                expression = expression.bind(self._data(args.data).schema)
        except _USER_ERRORS as exc:
            return _report(_message(exc, text))
        return expression

    @cell_magic
    @magic_arguments()
    @argument("--data", "-d", metavar="VAR", help="optimize against this data's schema")
    @argument("--pyarrow", action="store_true",
              help='the cell is pyarrow Python text, e.g. pc.field("a") > 3 (read, never run)')
    @argument("--guarantee", "-g", metavar="EXPR",
              help='what is known to hold for every row, e.g. "year == 2008"')
    def explain(self, line: str, cell: str):
        """Optimize the cell's expression with tracing and open the explorer on the passes."""
        args = parse_argstring(self.explain, line)
        try:
            expression = _parse_cell(cell, args.pyarrow)
            if args.data:
                schema = self._data(args.data).schema
            elif expression.field_refs():
                names = ", ".join(ref.to_string() for ref in expression.field_refs())
                return _report(f"%%explain needs --data VAR to know the types of {names}")
            else:
                schema = pa.schema([])  # constants only: nothing to look up
            guarantee = None
            if args.guarantee:
                try:
                    guarantee = tk.parse(_unquote(args.guarantee))
                except ParseError as exc:
                    return _report(f"in --guarantee: {exc}")
            with tk.trace() as recorded:
                tk.optimize(expression, schema, guarantee=guarantee)
        except _USER_ERRORS as exc:
            return _report(_message(exc, cell))
        return Explorer(recorded)

    @cell_magic
    @magic_arguments()
    @argument("--data", "-d", metavar="VAR", required=True, help="the data to evaluate on")
    @argument("--mode", "-m", choices=("lazy", "eager"), default="lazy",
              help="lazy special forms (the default) or eager, as Arrow does today")
    @argument("--pyarrow", action="store_true",
              help='the cell is pyarrow Python text, e.g. pc.if_else(pc.field("a") > 3, 1, 0) '
                   "(read, never run)")
    @argument("--out", "-o", metavar="NAME", default="_trace",
              help="the variable that keeps the trace, for Explorer(NAME) (default _trace)")
    def trace(self, line: str, cell: str):
        """Evaluate the cell's expression with tracing: its tree with each branch's rows,
        then the selection view; the trace is kept in the variable `--out` names."""
        args = parse_argstring(self.trace, line)
        out = _unquote(args.out)
        if not out.isidentifier():
            return _report(f"--out {out}: give a Python variable name, such as my_trace")
        recorded = None
        try:
            expression = _parse_cell(cell, args.pyarrow)
            data = self._data(args.data)
            with tk.trace() as recorded:
                tk.evaluate(expression, data, mode=args.mode)
        except _USER_ERRORS as exc:
            _report(_message(exc, cell))
            evaluations = [s for s in (recorded.steps if recorded else []) if step_kind(s) == EVAL]
            # a failed evaluation still recorded what ran: show it next to the message
            return self._traced(recorded, evaluations[-1], out) if evaluations else None
        evaluations = [s for s in recorded.steps if step_kind(s) == EVAL]
        return self._traced(recorded, evaluations[-1], out)

    def _traced(self, recorded, evaluation, out: str) -> SelectionView:
        """The selection view under the evaluation's tree; the trace kept as `out`."""
        self.shell.user_ns[out] = recorded
        view = SelectionView(evaluation)
        tree = w.HTML(tree_html(evaluation))
        tree.add_class("exprscope-trace-tree")
        note = w.HTML(f'<div style="color:#6b7280;font-size:12px">the trace is kept as '
                      f"<code>{html.escape(out)}</code>: <code>from widgets import Explorer; "
                      f"Explorer({html.escape(out)})</code> steps through it</div>")
        view.children = (tree, note, *view.children)
        return view

    @line_magic
    @magic_arguments()
    @argument("--data", "-d", metavar="VAR", required=True,
              help="a pyarrow Table, RecordBatch or Dataset (rows in scan order)")
    @argument("--row", "-r", metavar="N", help="the row number (from 0)")
    @argument("--where", "-w", metavar="PRED",
              help='a predicate picking the rows, e.g. "flight = 1545 and month = 1"')
    @argument("--mode", choices=("lazy", "eager"), default="lazy")
    @argument("text", nargs="*", help="the expression, e.g. a + 1 > 3")
    def explain_row(self, line: str):
        """One row's story: each node's value for it, the branch it took, and why."""
        options, text = split_leading_options(
            line, {"--data", "-d", "--row", "-r", "--where", "-w", "--mode"})
        args = parse_argstring(self.explain_row, options)
        if not text.strip():
            return _report("%explain_row needs an expression, e.g. "
                           "%explain_row --data t --row 5 a + 1 > 3")
        if (args.row is None) == (args.where is None):
            return _report("%explain_row needs --row N or --where PREDICATE (one of them)")
        try:
            which = _unquote(args.where) if args.where is not None else int(args.row)
        except ValueError:
            return _report(f"--row takes a row number, not {args.row!r}")
        name = _unquote(args.data)
        data = self.shell.user_ns.get(name)
        if data is None:
            return _report(f"--data {name}: no variable of that name")
        try:
            return tk.explain_row(text, data, which, mode=args.mode)
        except _USER_ERRORS as exc:
            return _report(str(exc))

    @cell_magic
    @magic_arguments()
    @argument("--data", "-d", metavar="VAR", required=True,
              help="a pyarrow.dataset.Dataset, or a folder path (Parquet, hive partitions)")
    @argument("--pyarrow", action="store_true",
              help='the cell is pyarrow Python text, e.g. pc.field("a") > 3 (read, never run)')
    def explain_scan(self, line: str, cell: str):
        """Which files and row groups a scan of the dataset with the cell's filter reads."""
        args = parse_argstring(self.explain_scan, line)
        name = _unquote(args.data)
        dataset = self.shell.user_ns.get(name, name)
        ds = pyarrow_dataset
        try:
            if isinstance(dataset, str):
                if not os.path.exists(dataset):
                    return _report(f"--data {name}: no variable or folder of that name")
                dataset = ds.dataset(dataset, format="parquet", partitioning="hive")
            if not isinstance(dataset, ds.Dataset):
                return _report(f"--data {name} is a {type(dataset).__name__}; %%explain_scan "
                               "needs a pyarrow.dataset.Dataset (ds.dataset(path, ...))")
            scan = tk.explain_scan(dataset, _parse_cell(cell, args.pyarrow))
        except _USER_ERRORS as exc:
            return _report(_message(exc, cell))
        return ScanView(scan)

    @cell_magic
    @magic_arguments()
    @argument("--python", action="store_true",
              help="the cell is a Python expression giving a Spark DataFrame (else Spark SQL "
                   "over the session's views)")
    @argument("--exclude", "-x", metavar="RULES", default="",
              help="optimizer rules to leave out, comma-separated (PushDownPredicates, or "
                   "Spark's full class name)")
    @argument("--spark", metavar="VAR", default="",
              help="the SparkSession to use (default: the active one, else an embedded one)")
    @argument("--out", "-o", metavar="NAME", default="_catalyst",
              help="the variable that keeps the steps (default _catalyst)")
    def catalyst(self, line: str, cell: str):
        """Spark's own analyzer, optimizer and physical preparation on the cell's query, one
        step per rule that changed the plan, in the Explorer."""
        args = parse_argstring(self.catalyst, line)
        try:
            steps = catalyst_cell(self.shell, cell, args.python, _unquote(args.exclude),
                                  _unquote(args.out), _unquote(args.spark))
        except _USER_ERRORS as exc:
            return _report(_message(exc))
        except Exception as exc:  # Spark's own error about the query (a missing table ...)
            if type(exc).__module__.startswith(("pyspark", "py4j")):
                return _report(str(exc).split("\n\nJVM stacktrace:")[0])
            raise
        if steps.note:
            _report(steps.note)
        return Explorer(steps)

    def _data(self, name: str):
        return resolve_data(_unquote(name), self.shell.user_ns)


_END_OF_OPTIONS = re.compile(r"\s*--(?:\s+|$)")
_OPTION = re.compile(r"\s*(--?[A-Za-z][\w-]*)(?:=|\s+|$)")
_VALUE = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\S+")


def split_leading_options(line: str, takes_value: set[str]) -> tuple[str, str]:
    """Split `--opt VALUE ... expression` into the options and the expression, verbatim.

    The expression keeps its exact text (quotes, spacing), so a parse error's caret
    points where the user typed. `--` ends the options explicitly.
    """
    position = 0
    options: list[str] = []
    while True:
        end = _END_OF_OPTIONS.match(line, position)
        if end is not None:
            position = end.end()
            break
        match = _OPTION.match(line, position)
        if match is None or match.group(1) not in takes_value:
            break
        options.append(match.group(1))
        value = _VALUE.match(line, match.end())
        if value is None:  # the option lacks its value: argparse will say so
            position = len(line)
            break
        options.append(value.group(0))
        position = value.end()
    return " ".join(options), line[position:].strip()


def _unquote(value: str) -> str:
    """An option's value without the quotes IPython's argument splitter leaves on it."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        quote = value[0]
        return value[1:-1].replace("\\" + quote, quote)
    return value


def _parse_cell(cell: str, pyarrow_text: bool = False):
    text = cell.strip()
    if not text:
        raise MagicInputError("the cell holds no expression: write one below the magic's line")
    return tk.from_pyarrow(parse_pyarrow(text)) if pyarrow_text else tk.parse(text)


def _message(exc: Exception, text: str | None = None) -> str:
    """The error in one message; a field error points at the field in the user's text."""
    if text and isinstance(exc, (FieldRefError, NoKernelError)):
        return exc.located(text.strip())
    return str(exc) or type(exc).__name__


def _report(message: str) -> None:
    """One message on stderr: what the user typed wrong, with no traceback; a name in it
    that hides characters shows them spelled out, as everywhere else."""
    print(visible_lines(message), file=sys.stderr)
