"""The `exprscope` command: explain an expression's optimization, trace its evaluation.

    exprscope explain "a + 1 > 3" --schema "a:int64" [--guarantee "a > 5"] [--html out.html]
    exprscope trace "if_else(a != 0, b / a, 0)" --data flights.parquet [--mode eager]
    exprscope scan data/flights --filter "month >= 11 AND carrier = 'UA'" [--partitioning hive]
    exprscope explain --substrait filter.pb [--data flights.parquet]    (its expressions or plan)
    exprscope trace --substrait filter.pb --data flights.parquet

The terminal gets the story as text (colored on a terminal); `--html` writes the
standalone report and `--svg-dir` one SVG per step. Every mistake in the input
is one message (a caret under the culprit for text), and a non-zero exit code:
2 for input the command cannot use, 1 when evaluation itself fails.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import sys

import pyarrow as pa

import toolkit as tk

from ..errors import (
    BindError,
    ExprscopeError,
    FieldRefError,
    InputError,
    KernelError,
    NoKernelError,
    ParseError,
    UnknownFunctionNameError,
)
from ..interop.pyarrow_text import parse_pyarrow
from ..model.expression import from_pyarrow
from ..passes import optimize
from ..render import to_svg, to_text, write_report
from ..render.text import DEFAULT_WIDTH, MIN_WIDTH, fit_line
from ..scan import explain_scan
from ..sql.parse import parse
from ..support import late
from ..support.visible_text import visible, visible_lines
from ..tracing.steps import step_title
from . import catalyst
from .folding import fold_message, fold_text
from .inputs import load_data, parse_schema_spec
from .row import add_row_command, run_row

pyarrow_dataset = late.module("pyarrow.dataset")
# the substrait package's classes load only for the commands that read one
cli_substrait = late.module("toolkit.cli.substrait")

__all__ = ["build_parser", "main"]

EXIT_INPUT = 2
EXIT_FAILED = 1
_PREVIEW_ROWS = 10


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage error, with our exit code and no traceback
        self.print_usage(sys.stderr)
        self.exit(EXIT_INPUT, _error_text(f"exprscope: error: {message}") + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="exprscope",
                     description="Explain and debug Arrow-style columnar expressions.")
    sub = parser.add_subparsers(dest="command", required=True,
                                metavar="{explain,trace,scan,row,catalyst}")

    def common(p, data_required: bool):
        p.add_argument("expr", nargs="?",
                       help="the expression, in SQL-like text: \"a + 1 > 3\"")
        p.add_argument("--substrait", metavar="FILE",
                       help="read the expressions (a Substrait ExtendedExpression) or the plan "
                            "(a Substrait Plan) from FILE, binary protobuf or its JSON, instead "
                            "of the expression text")
        p.add_argument("--data", required=data_required, metavar="FILE", action="append",
                       help="a .parquet, .csv, .tsv or .arrow file (for a Substrait plan "
                            "reading several tables: NAME=FILE, once per table)")
        p.add_argument("--schema", metavar="SPEC",
                       help="field types, \"a:int64,b:string\" (or the columns' types in --data)")
        p.add_argument("--html", metavar="OUT", help="write the standalone HTML report here")
        p.add_argument("--svg-dir", metavar="DIR", help="write one SVG per step into DIR")
        p.add_argument("--pyarrow", action="store_true",
                       help="the expression is pyarrow Python text: 'pc.field(\"a\") + 1 > 3'")
        color = p.add_mutually_exclusive_group()
        color.add_argument("--color", dest="color", action="store_true", default=None,
                           help="color the text even when not on a terminal")
        color.add_argument("--no-color", dest="color", action="store_false",
                           help="never color the text")

    explain = sub.add_parser("explain", help="show each optimization pass and what it changed")
    common(explain, data_required=False)
    explain.add_argument("--guarantee", metavar="EXPR",
                         help="a predicate true on every row, e.g. \"a > 5\"")
    trace = sub.add_parser("trace", help="evaluate with tracing: rows per node, selection vectors")
    common(trace, data_required=True)
    trace.add_argument("--mode", choices=("lazy", "eager"), default="lazy",
                       help="lazy special forms (default) or Arrow's eager evaluation")
    scan = sub.add_parser("scan", help="which files and Parquet row groups a filtered scan reads")
    scan.add_argument("path", help="a folder of data files (or one file)")
    scan.add_argument("--filter", required=True, metavar="TEXT",
                      help="the scan's filter in SQL-like text: \"year >= 2022 AND x < 5\"")
    scan.add_argument("--pyarrow", action="store_true",
                      help="the filter is pyarrow Python text: 'pc.field(\"year\") >= 2022'")
    scan.add_argument("--partitioning", metavar="SPEC", default="hive",
                      help="\"hive\" for key=value folders (the default, as %%%%explain_scan "
                           "reads them), the folder levels' field names (\"year,month\"), "
                           "or \"none\"")
    scan.add_argument("--format", default="parquet", choices=("parquet", "csv", "ipc", "feather"),
                      help="the files' format (default parquet)")
    scan.add_argument("--html", metavar="OUT", help="write the standalone HTML report here")
    scan.add_argument("--limit", type=int, default=50, metavar="N",
                      help="files listed in the terminal (default 50; the report lists all)")
    scan.add_argument("--color", dest="color", action="store_true", default=None,
                      help="color the text even when not on a terminal")
    add_row_command(sub)
    catalyst.add_parser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    commands = {"explain": _explain, "trace": _trace, "scan": _scan, "row": run_row,
                "catalyst": catalyst.run}
    try:
        return commands[args.command](args)
    except UnknownFunctionNameError as exc:  # a parse error whose reason needs no prefix
        return _fail(str(exc))
    except ParseError as exc:
        return _fail(f"cannot parse {exc}" if not str(exc).startswith("cannot") else str(exc))
    except FieldRefError as exc:
        text = getattr(args, "expr", None) or getattr(args, "filter", "")
        return _fail(f"cannot bind the expression: {exc.located(text)}")
    except NoKernelError as exc:
        return _fail(f"cannot bind the expression: {exc.located(getattr(args, 'expr', ''))}")
    except BindError as exc:
        return _fail(f"cannot bind the expression: {exc}")
    except ExprscopeError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _fail(message: str, code: int = EXIT_INPUT) -> int:
    """The one message of a failed command, folded between words to the terminal's width."""
    print(_error_text(f"exprscope: error: {visible_lines(message)}"), file=sys.stderr)
    return code


def _error_text(message: str) -> str:
    """`message` folded to the terminal (COLUMNS when set); unfolded into a pipe or a log,
    where a line per sentence is what a reader searches."""
    if "COLUMNS" not in os.environ and not sys.stderr.isatty():
        return message
    return fold_message(message, _width())


def _one_line(exc) -> str:
    return " ".join(str(exc).split())


# -- the two commands -------------------------------------------------------------
def _inputs(args):
    expr = _expression(args.expr, args.pyarrow)
    schema = parse_schema_spec(args.schema) if args.schema else None
    table = load_data(_one_data_file(args), schema) if args.data else None
    if table is not None:
        schema = table.schema
    return expr, schema, table


def _expression(text: str, pyarrow_text: bool):
    """SQL-like text, or pyarrow Python text read without running it (`--pyarrow`)."""
    return from_pyarrow(parse_pyarrow(text)) if pyarrow_text else parse(text)


def _one_data_file(args) -> str:
    if len(args.data) > 1:
        raise InputError("--data is given more than once; an expression reads one file")
    return args.data[0]


def _explain(args) -> int:
    if _substrait_or_text(args):
        return _explain_substrait(args)
    expr, schema, table = _inputs(args)
    if schema is None:
        return _fail("explain needs the field types: give --schema \"a:int64,...\" or --data FILE")
    guarantee = parse(args.guarantee) if args.guarantee else None
    failure = None
    with tk.trace() as recorded:
        optimized = optimize(expr, schema, guarantee=guarantee)
        if table is not None:
            try:
                tk.evaluate(optimized, table)
            except KernelError as exc:
                failure = exc
    _print_story(recorded, args)
    _print_tree_if_unchanged(recorded, optimized, args)
    return _finish_explain(recorded, args, {"": optimized}, args.expr, failure)


def _trace(args) -> int:
    if _substrait_or_text(args):
        return _trace_substrait(args)
    expr, _schema, table = _inputs(args)
    failure = None
    result = None
    with tk.trace() as recorded:
        try:
            result = tk.evaluate(expr, table, mode=args.mode)
        except KernelError as exc:
            failure = exc
    _print_story(recorded, args)
    _print_outcome(result, failure, table)
    _write_outputs(recorded, args, f"exprscope trace ({args.mode}): {args.expr}")
    if failure is not None:
        hint = " (lazy evaluation runs each branch only on its rows: try --mode lazy)" \
            if args.mode == "eager" else ""
        return _fail(f"evaluation failed: {_one_line(failure)}{hint}", EXIT_FAILED)
    return 0


# -- the two commands on a Substrait file -----------------------------------------
def _substrait_or_text(args) -> bool:
    """True for `--substrait FILE`; refuses both or neither, and options that do not apply."""
    if args.substrait is None:
        if args.expr is None:
            raise InputError(f"{args.command} needs an expression (\"a + 1 > 3\") or "
                             "--substrait FILE")
        return False
    clashing = [name for name, given in (("the expression text", args.expr is not None),
                                         ("--pyarrow", args.pyarrow),
                                         ("--schema", args.schema is not None)) if given]
    if clashing:
        raise InputError(f"--substrait reads the expressions and their schema from the file; "
                         f"leave out {' and '.join(clashing)}")
    return True


def _substrait_input(args):
    return cli_substrait, cli_substrait.SubstraitInput(args.substrait)


def _explain_substrait(args) -> int:
    helpers, source = _substrait_input(args)
    if source.is_plan:
        if args.guarantee:
            raise InputError("--guarantee applies to expressions; a plan's filters are "
                             "simplified by its own rules")
        return _run_plan(args, helpers, source, traced=False)
    found = source.expressions
    table = helpers.conform(load_data(_one_data_file(args)), found.schema, args.data[0]) \
        if args.data else None
    guarantee = parse(args.guarantee) if args.guarantee else None
    failure = None
    optimized = {}
    with tk.trace() as recorded:
        for name, expr in found.expressions.items():
            with tk.trace() as one:
                optimized[name] = optimize(expr, found.schema, guarantee=guarantee)
                if table is not None:
                    try:
                        tk.evaluate(optimized[name], table)
                    except KernelError as exc:
                        failure = failure or exc
            _print_heading(name, found.expressions)
            _print_story(one, args)
            _print_tree_if_unchanged(one, optimized[name], args)
    return _finish_explain(recorded, args, optimized, args.substrait, failure)


def _finish_explain(recorded, args, optimized: dict, source: str, failure) -> int:
    """The optimized result (one line each, named when there are several), the outputs
    asked for, and the exit code: what both kinds of input end `explain` with."""
    print()
    for name, expr in optimized.items():
        label = f"optimized {visible(name)!r}" if len(optimized) > 1 else "optimized"
        for line in fit_line(f"{label}: {visible(expr.to_string())}", _width()):
            print(line)
    _write_outputs(recorded, args, f"exprscope explain: {source}")
    if failure is not None:
        return _fail(f"evaluation failed: {_one_line(failure)}", EXIT_FAILED)
    return 0


def _trace_substrait(args) -> int:
    helpers, source = _substrait_input(args)
    if source.is_plan:
        return _run_plan(args, helpers, source, traced=True)
    found = source.expressions
    table = helpers.conform(load_data(_one_data_file(args)), found.schema, args.data[0])
    failure = None
    with tk.trace() as recorded:
        for name, expr in found.expressions.items():
            result = None
            with tk.trace() as one:
                try:
                    result = tk.evaluate(expr, table, mode=args.mode)
                except KernelError as exc:
                    failure = failure or exc
            _print_heading(name, found.expressions)
            _print_story(one, args)
            _print_outcome(result, failure, table)
    _write_outputs(recorded, args, f"exprscope trace ({args.mode}): {args.substrait}")
    if failure is not None:
        return _fail(f"evaluation failed: {_one_line(failure)}", EXIT_FAILED)
    return 0


def _print_heading(name: str, expressions: dict) -> None:
    if len(expressions) > 1:
        position = list(expressions).index(name) + 1
        gap = "\n" if position > 1 else ""
        _print_folded(f"{gap}== expression {visible(name)!r} ({position} of "
                      f"{len(expressions)}) ==")


def _run_plan(args, helpers, source, traced: bool) -> int:
    """A Substrait plan: explained rule by rule with its invariant checks (`explain`), or
    run under a trace (`trace`); run on --data when given, else on empty tables."""
    tables = helpers.plan_tables(source.message, args.data)
    result = failure = None
    with tk.trace() as recorded:
        logical = helpers.from_plan(source.message, tables)
        if not traced:
            _print_folded(logical.explain(verbose=True))
        if traced or args.data:
            try:
                result = tk.plan.create_physical_plan(tk.plan.optimize(logical)).collect()
            except KernelError as exc:
                failure = exc
    if traced:
        _print_story(recorded, args)
    if result is not None:
        _print_folded(f"\nresult ({result.num_rows:,} rows):")
        _print_folded(_preview_rows(result))
    _write_outputs(recorded, args, f"exprscope {args.command}: {args.substrait}")
    if failure is not None:
        return _fail(f"evaluation failed: {_one_line(failure)}", EXIT_FAILED)
    return 0


def _scan(args) -> int:
    if not os.path.exists(args.path):
        return _fail(f"no such file or folder: {args.path}")
    ds = pyarrow_dataset
    partitioning = args.partitioning
    if partitioning in ("", "none"):
        partitioning = None
    elif partitioning != "hive":
        partitioning = ds.partitioning(field_names=[n.strip() for n in partitioning.split(",")])
    try:
        dataset = ds.dataset(args.path, format=args.format, partitioning=partitioning)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
        return _fail(f"cannot open {args.path} as a {args.format} dataset: {_one_line(exc)}")
    try:
        scan = explain_scan(dataset, _expression(args.filter, args.pyarrow))
    except FieldRefError as exc:
        return _fail(f"cannot bind the filter: {exc.located(args.filter)}"
                     f"{_partition_hint(exc, dataset, args.path, args.partitioning)}")
    print(to_text(scan, color=args.color, stream=sys.stdout, limit=max(args.limit, 0),
                  width=_width()))
    if args.html:
        path = write_report(scan, args.html, title=f"exprscope scan: {args.filter}")
        _print_folded(f"report: {visible(os.path.abspath(path))}")
    return 0


def _partition_hint(exc, dataset, root: str, partitioning: str) -> str:
    """A hint when the missing field could come from the folders' names, and only then:
    never for a near miss of a field the data has, nor advice to give what was given."""
    names = set(dataset.schema.names)
    missing = [ref.to_string() for ref in getattr(exc, "refs", ())] or \
        re.findall(r"no field '([^']+)'", str(exc))
    if not missing or any(m in names for m in missing):
        return ""
    levels = _folder_levels(dataset, root)
    keys = {part.partition("=")[0] for parts in levels for part in parts if "=" in part}
    as_keys = [m for m in missing if m in keys]
    if as_keys and partitioning != "hive":
        return (f"\n  hint: the folders name {', '.join(repr(m) for m in as_keys)} as key=value; "
                "give --partitioning hive to read them as partition fields")
    depth = max((len(parts) for parts in levels), default=0)
    typo = any(difflib.get_close_matches(m, list(names), n=1, cutoff=0.6) for m in missing)
    if depth == 0 or typo or (partitioning == "hive" and keys) \
            or partitioning not in ("hive", "", "none"):
        return ""
    where = "no key=value folders were found" if partitioning == "hive" \
        else "the folders are not read as partitions"
    return (f"\n  hint: {', '.join(repr(m) for m in missing)} may be a partition field "
            f"({where}, and the files sit {depth} folder level{'s' if depth > 1 else ''} "
            f"deep): name the levels, one name each: --partitioning "
            f"{','.join([missing[0]] + [f'level{k}' for k in range(2, depth + 1)])}")


_LEVELS_READ = 10_000  # files whose folders are read for the hint


def _folder_levels(dataset, root: str) -> list[tuple[str, ...]]:
    """The folder names between `root` and each file (of the first files)."""
    base = os.path.abspath(root)
    levels = []
    for path in getattr(dataset, "files", [])[:_LEVELS_READ]:
        relative = os.path.relpath(os.path.abspath(path), base)
        levels.append(tuple(relative.split(os.sep)[:-1]))
    return levels


# -- output -----------------------------------------------------------------------
def _print_story(recorded, args) -> None:
    print(to_text(recorded, color=args.color, stream=sys.stdout, width=_width()))


def _print_folded(text: str) -> None:
    """Text whose lines may run past the terminal (a plan's lines, a row of values),
    folded to the width between words, continuations indented deeper than the line."""
    print(fold_text(text, _width()))


def _print_tree_if_unchanged(recorded, optimized, args) -> None:
    """The expression's tree, bound, when no pass changed it: the passes' lines alone
    ("no change") would leave the expression itself undrawn."""
    if any(getattr(step, "changed", False) for step in recorded.steps):
        return
    print("\nno pass changed the expression; as bound:")
    print(to_text(optimized, color=args.color, stream=sys.stdout, width=_width()))


def _width() -> int:
    """The terminal's columns (COLUMNS when set), 100 when not a terminal; 40 at least."""
    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def _length(result) -> int:
    return 1 if isinstance(result, pa.Scalar) else len(result)


def _preview(result) -> str:
    if isinstance(result, pa.Scalar):
        return "  " + visible(str(result))
    values = result.slice(0, _PREVIEW_ROWS).to_pylist()
    lines = [f"  {i}: {visible(repr(v) if isinstance(v, str) else str(v))}"
             for i, v in enumerate(values)]
    if len(result) > _PREVIEW_ROWS:
        lines.append(f"  ... {len(result) - _PREVIEW_ROWS:,} more")
    return "\n".join(lines)


def _preview_rows(table: pa.Table) -> str:
    rows = table.slice(0, _PREVIEW_ROWS).to_pylist()
    lines = [f"  {i}: " + ", ".join(f"{visible(str(k))}={visible(repr(v))}" for k, v in row.items())
             for i, row in enumerate(rows)]
    if table.num_rows > _PREVIEW_ROWS:
        lines.append(f"  ... {table.num_rows - _PREVIEW_ROWS:,} more")
    return "\n".join(lines) if lines else "  (no rows)"


def _print_outcome(result, failure, table) -> None:
    """The result's first values, or the row the evaluation failed on."""
    if result is not None:
        _print_folded(f"\nresult ({_length(result):,} values of {visible(str(result.type))}):")
        _print_folded(_preview(result))
    else:
        _print_failing_row(failure, table)


def _print_failing_row(failure, table) -> None:
    row = getattr(failure, "row", None)
    if row is None or table is None or not 0 <= row < table.num_rows:
        return
    values = table.slice(row, 1).to_pylist()[0]
    shown = ", ".join(f"{visible(str(k))}={visible(repr(v))}" for k, v in values.items())
    _print_folded(f"\nrow {row:,} of the data: {shown}")


def _write_outputs(recorded, args, title: str) -> None:
    if args.html:
        path = write_report(recorded, args.html, title=title)
        _print_folded(f"report: {visible(os.path.abspath(path))}")
    if args.svg_dir:
        os.makedirs(args.svg_dir, exist_ok=True)
        written = 0
        for i, step in enumerate(recorded.steps):
            slug = re.sub(r"[^a-z0-9]+", "-", step_title(step).lower()).strip("-")[:60]
            with open(os.path.join(args.svg_dir, f"{i + 1:02d}-{slug}.svg"), "w",
                      encoding="utf-8") as out:
                out.write(to_svg(step))
            written += 1
        folder = visible(os.path.abspath(args.svg_dir))
        _print_folded(f"{written} SVG file{'s' if written != 1 else ''} in {folder}")


if __name__ == "__main__":
    sys.exit(main())
