"""`exprscope row FILE EXPR --row N | --where PRED`: one row's story in the terminal.

The story of a row of a data file (Parquet, CSV/TSV, Arrow) through an
expression: each node's value for the row, the branch it took and why; `--where`
picks rows by a predicate (the first 10 are told, all are counted). `--html`
writes the standalone report, `--json` the story as JSON.
"""

from __future__ import annotations

import shutil
import sys

import toolkit as tk

from ..errors import ExprscopeError
from ..support.visible_text import visible_lines
from .inputs import load_data

__all__ = ["add_row_command", "run_row"]


def add_row_command(sub) -> None:
    row = sub.add_parser("row", help="one row's value at every node, the branch it took, and why")
    row.add_argument("file", help="a .parquet, .csv, .tsv or .arrow file")
    row.add_argument("expr", help="the expression, in SQL-like text: \"a + 1 > 3\"")
    which = row.add_mutually_exclusive_group(required=True)
    which.add_argument("--row", type=int, metavar="N", help="the row number (from 0)")
    which.add_argument("--where", metavar="PRED",
                       help="a predicate picking the rows: \"flight = 1545 and month = 1\"")
    row.add_argument("--mode", choices=("lazy", "eager"), default="lazy",
                     help="lazy special forms (default) or Arrow's eager evaluation")
    row.add_argument("--html", metavar="OUT", help="write the standalone HTML report here")
    row.add_argument("--json", metavar="OUT", help="write the story as JSON here")
    row.add_argument("--color", dest="color", action="store_true", default=None,
                     help="color the text even when not on a terminal")


def run_row(args) -> int:
    try:
        table = load_data(args.file)
        which = args.row if args.row is not None else args.where
        story = tk.explain_row(args.expr, table, which, mode=args.mode)
        width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 160))
        print(tk.to_text(story, color=args.color, stream=sys.stdout, width=width))
        if args.html:
            tk.write_report(story, args.html, title="exprscope: one row")
        if args.json:
            first = story if isinstance(story, tk.RowStory) else story[0]
            with open(args.json, "w", encoding="utf-8") as out:
                out.write(first.to_json())
    except ExprscopeError as exc:
        print(f"exprscope: error: {visible_lines(str(exc))}", file=sys.stderr)
        return 2
    return 0
