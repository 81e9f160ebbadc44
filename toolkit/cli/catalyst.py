"""`exprscope catalyst QUERY.sql --table name=path.parquet ...`: Spark's own planning of a SQL
file, rule by rule, in the terminal (and as a report or SVGs).

The tables become temporary views of an embedded local Spark; the query is
read as Spark SQL. pyspark loads when the command runs, not with the command line.
"""

from __future__ import annotations

import os
import re
import shutil
import sys

from ..errors import InputError
from ..render import to_text, write_report
from ..render.svg import to_svgs
from ..render.text import DEFAULT_WIDTH, MIN_WIDTH
from ..support import late
from ..support.visible_text import visible

__all__ = ["add_parser", "run"]

tks = late.module("toolkit.spark")  # pyspark, loaded when the command runs

MAX_SQL_BYTES = 1_000_000
EXCLUDED_RULES = "spark.sql.optimizer.excludedRules"
_OPTIMIZER_PACKAGE = "org.apache.spark.sql.catalyst.optimizer."
_TABLE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.+)$")


def add_parser(sub) -> None:
    p = sub.add_parser("catalyst", help="Spark's own analyzer and optimizer on a SQL file, "
                                        "one step per rule that changed the plan")
    p.add_argument("query", metavar="QUERY.sql", help="a file holding one Spark SQL query")
    p.add_argument("--table", metavar="NAME=FILE", action="append", default=[],
                   help="a Parquet file (or folder) the query reads as NAME; once per table")
    p.add_argument("--exclude", metavar="RULES", default="",
                   help="optimizer rules to leave out, comma-separated (PushDownPredicates, "
                        "or Spark's full class name)")
    p.add_argument("--html", metavar="OUT", help="write the standalone HTML report here")
    p.add_argument("--svg-dir", metavar="DIR", help="write one SVG per step into DIR")
    p.add_argument("--color", dest="color", action="store_true", default=None,
                   help="color the text even when not on a terminal")


def _query_text(path: str) -> str:
    if not os.path.isfile(path):
        raise InputError(f"QUERY.sql {visible(path)}: no such file")
    size = os.path.getsize(path)
    if size > MAX_SQL_BYTES:
        raise InputError(f"QUERY.sql {visible(path)} has {size:,} bytes, more than "
                         f"{MAX_SQL_BYTES:,}: give one query")
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except UnicodeDecodeError as exc:
        raise InputError(f"QUERY.sql {visible(path)} is not UTF-8 text (byte {exc.start:,})") \
            from None
    if not text.strip():
        raise InputError(f"QUERY.sql {visible(path)} is empty")
    return text.strip().rstrip(";")


def _tables(specs: list[str]) -> dict[str, str]:
    tables = {}
    for spec in specs:
        m = _TABLE.match(spec)
        if m is None:
            raise InputError(f"--table {visible(spec)}: write NAME=FILE, e.g. "
                             "lineitem=lineitem.parquet")
        name, path = m.groups()
        if not os.path.exists(path):
            raise InputError(f"--table {name}: no file or folder {visible(path)}")
        if name in tables:
            raise InputError(f"--table {name} is given twice")
        tables[name] = path
    return tables


def run(args) -> int:
    text = _query_text(args.query)
    tables = _tables(args.table)
    rules = [r.strip() if "." in r else _OPTIMIZER_PACKAGE + r.strip()
             for r in args.exclude.split(",") if r.strip()]
    spark = tks.session("local[2]")
    for name, path in tables.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    if rules:
        spark.conf.set(EXCLUDED_RULES, ",".join(rules))
    steps = tks.catalyst_steps(text, spark)
    width = max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
    print(to_text(steps, color=args.color, stream=sys.stdout, width=width))
    if args.html:
        path = write_report(steps, args.html, title=f"Catalyst: {os.path.basename(args.query)}")
        print(f"report: {visible(os.path.abspath(path))}")
    if args.svg_dir:
        os.makedirs(args.svg_dir, exist_ok=True)
        for i, (step, svg) in enumerate(zip(steps.steps, to_svgs(steps.steps)), 1):
            slug = re.sub(r"[^a-z0-9]+", "-", f"{step.phase} {step.rule}".lower()).strip("-")
            with open(os.path.join(args.svg_dir, f"{i:02d}-{slug[:60]}.svg"), "w",
                      encoding="utf-8") as out:
                out.write(svg)
        print(f"{len(steps.steps)} SVG files in {visible(os.path.abspath(args.svg_dir))}")
    failed = [s for s in steps.steps if s.failed]
    return 1 if failed else 0
