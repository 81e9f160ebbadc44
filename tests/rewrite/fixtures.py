"""Reading the per-rule fixture files: input/expected pairs, one rule run alone on each.

Expression passes (tests/fixtures/passes/<pass>.txt), one case per line:

    input -> expected            # optional comment
    input -> expected  given guarantee

The input is parsed and bound to table t's schema; the expected side is the
result as exprscope prints it (`Expression.to_string()`).

Plan rules (tests/fixtures/plan_rules/<rule>.txt), cases separated by a line
starting with `==` (the case's name); a pipeline, a line `--`, then the plan
expected after one run of the rule, as `str(plan)` prints it:

    == two filters become one
    scan t | filter a > 1 | filter b < 2
    --
    Filter: ((t.a > 1) and (t.b < 2))
      TableScan: t

Pipeline steps: `scan t`, `empty` (no rows, the same schema), `filter EXPR`, `project EXPR [AS name]; ...`,
`sort COL [desc]; ...`, `limit N`, `aggregate KEY, ... : FUNC(COL) AS name, ...`,
`join TABLE on LEFT = RIGHT [left|inner]`, `cross TABLE`, `[not_]exists TABLE [where LEFT = RIGHT]`,
`[not_]in TABLE [where LEFT = RIGHT]`,
`scalar FUNC(COL) from TABLE [where OUTER = INNER]` (correlated with `where`). Tables: t(a int64, b int64, s string,
f float64, c bool), u(x int64, y string) and v(z int64, w float64).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

import toolkit as tk
from toolkit import plan
from toolkit.plan.logical_plan import EmptyRelation

FIXTURES = Path(__file__).parent.parent / "fixtures"
SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.int64()), ("s", pa.string()),
                    ("f", pa.float64()), ("c", pa.bool_())])
TABLES = {
    "t": pa.table({"a": [1, 2, None], "b": [4, None, 6], "s": ["x", "y", None],
                   "f": [1.5, None, 3.0], "c": [True, False, None]}),
    "u": pa.table({"x": [1, 2], "y": ["p", "q"]}),
    "v": pa.table({"z": [2, 3], "w": [0.5, None]}),
}


@dataclass
class Case:
    file: str
    line: int
    text: str
    expected: str
    given: str | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def expression_cases(name: str) -> list[Case]:
    path = FIXTURES / "passes" / f"{name}.txt"
    cases = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        given = None
        if " given " in line:
            line, given = (part.strip() for part in line.split(" given ", 1))
        before, after = (part.strip() for part in line.split("->", 1))
        cases.append(Case(path.name, n, before, after, given))
    return cases


def plan_cases(name: str) -> list[Case]:
    path = FIXTURES / "plan_rules" / f"{name}.txt"
    cases, current, start = [], None, 0
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines() + ["=="], 1):
        if raw.startswith("=="):
            if current:
                pipeline, _, expected = "\n".join(current).partition("\n--\n")
                cases.append(Case(path.name, start, pipeline.strip(), expected.rstrip()))
            current, start = [], n
        elif current is not None and (raw.strip() or current):
            current.append(raw)
    return cases


def bound(text: str):
    return tk.parse(text).bind(SCHEMA)


def build_plan(pipeline: str):
    steps = [s.strip() for s in pipeline.split("|")]
    word, _, rest = steps[0].partition(" ")
    assert word == "scan", f"a pipeline starts with scan, not {steps[0]!r}"
    p = plan.scan(rest.strip(), TABLES[rest.strip()])
    for step in steps[1:]:
        word, _, rest = step.partition(" ")
        rest = rest.strip()
        if word == "empty":
            p = EmptyRelation(p.schema, reason="no rows")
        elif word == "filter":
            p = p.filter(rest)
        elif word == "project":
            exprs, names = [], []
            for item in rest.split(";"):
                expr, _, name = item.strip().partition(" AS ")
                exprs.append(expr.strip())
                names.append(name.strip() or None)
            p = p.project(exprs, names=None if not any(names) else
                          [nm or ex for nm, ex in zip(names, exprs)])
        elif word == "sort":
            keys = []
            for item in rest.split(";"):
                col, _, order = item.strip().partition(" ")
                keys.append((col, "descending" if order.strip() == "desc" else "ascending"))
            p = p.sort(keys)
        elif word == "limit":
            p = p.limit(int(rest))
        elif word == "aggregate":
            keys_text, _, aggs_text = rest.partition(":")
            keys = [k.strip() for k in keys_text.split(",") if k.strip()]
            aggs = []
            for item in aggs_text.split(","):
                m = re.fullmatch(r"\s*(\w+)\((\w*|\*)\)\s+AS\s+(\w+)\s*", item)
                assert m, f"an aggregate is FUNC(COL) AS name, not {item!r}"
                aggs.append((m[1], None if m[2] in ("", "*") else m[2], m[3]))
            p = p.aggregate(keys, aggs)
        elif word == "join":
            m = re.fullmatch(r"(\w+) on (\w+) = (\w+)(?: (inner|left))?", rest)
            assert m, f"join TABLE on LEFT = RIGHT [inner|left], not {rest!r}"
            other = plan.scan(m[1], TABLES[m[1]])
            p = p.join(other, [(m[2], m[3])], m[4] or "inner")
        elif word in ("exists", "not_exists", "in", "not_in"):  # a subquery over TABLE
            m = re.fullmatch(r"(\w+)(?: where (\w+) = (\w+))?", rest)
            assert m, f"{word} TABLE [where LEFT = RIGHT], not {rest!r}"
            other = plan.scan(m[1], TABLES[m[1]])
            on = [(m[2], m[3])] if m[2] else []
            p = plan.SubqueryFilter(p, other, word.removeprefix("not_"),
                                    word.startswith("not_"), on)
        elif word == "cross":  # a comma join: FROM ..., TABLE
            p = p.join(plan.scan(rest, TABLES[rest]), how="cross")
        elif word == "scalar":  # (SELECT FUNC(COL) FROM TABLE [WHERE INNER = outer]) as a column
            m = re.fullmatch(r"(\w+)\((\w+|\*)\) from (\w+)(?: where (\w+) = (\w+))?", rest)
            assert m, f"scalar FUNC(COL) from TABLE [where OUTER = INNER], not {rest!r}"
            other = plan.scan(m[3], TABLES[m[3]]).aggregate(
                [], [(m[1], None if m[2] == "*" else m[2], "m")])
            p = plan.ScalarSubquery(p, other, correlation=[(m[4], m[5])] if m[4] else ())
        else:
            raise AssertionError(f"unknown pipeline step {word!r}")
    return p
