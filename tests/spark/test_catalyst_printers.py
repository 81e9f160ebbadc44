"""Every printer of Catalyst's steps on TPC-H Q21 and a 22-relation join: the text fits 80
columns, the pictures mark what each rule did, the report and the Explorer hold every step,
the CLI prints them, and text from the query is escaped wherever it goes."""

from __future__ import annotations

import re

import pytest

import toolkit as tk
from toolkit import cli
from toolkit.render.text import display_width
from toolkit.spark import catalyst_steps, tpch
from toolkit.spark import tpch_queries as Q
from toolkit.tracing.spark_plan_diff import plan_diff
from toolkit.tracing.spark_plan_text import plan_tree

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def traces(spark):
    Q.register_views(spark, tpch.tables(0.01, names=Q.TABLES))
    return {"q21": catalyst_steps(Q.sql(21)), "join22": catalyst_steps(Q.chain_join(22))}


def _step(trace, rule):
    return next(s for s in trace.steps if s.rule == rule)


@pytest.mark.parametrize("name", ["q21", "join22"])
def test_the_text_fits_80_columns_and_lists_every_step_in_order(traces, name):
    trace = traces[name]
    text = tk.to_text(trace, width=80, color=False)
    lines = text.splitlines()
    assert max(display_width(line) for line in lines) <= 80
    assert lines[0].endswith(trace.summary)
    numbered = [ln for ln in lines if re.match(r"^\s*\d+\. ", ln)]
    assert [re.match(r"^\s*\d+\. (\S+)", ln).group(1) for ln in numbered] == \
        [s.rule for s in trace.steps]
    for step in trace.steps:
        assert max(display_width(ln) for ln in
                   tk.to_text(step, width=80, color=False).splitlines()) <= 80


def test_the_diff_shows_what_each_rule_did(traces):
    q21 = traces["q21"]
    finish = plan_diff(*_tree_pair(_step(q21, "FinishAnalysis")))
    assert any(t.startswith("SubqueryAlias") for t in finish.removed)
    assert {s for _, s, in [(p, finish.status[p]) for p in finish.status]} <= {"same", "moved"}
    inferred = plan_diff(*_tree_pair(_step(q21, "InferFiltersFromConstraints")))
    added = [t for s, t in inferred.touched if s == "added"]
    assert added and all(t.startswith("Filter") and "isnotnull" in t for t in added)
    pruned = plan_diff(*_tree_pair(_step(q21, "ColumnPruning")))
    assert {t.split(" ")[0] for s, t in pruned.touched if s == "added"} == {"Project"}


def _tree_pair(step):
    return step.before, step.after


def test_each_step_picture_draws_every_node_with_the_rule_and_checks(traces):
    trace = traces["join22"]
    for step in trace.steps:
        svg = tk.to_svg(step)
        nodes = len(re.findall(r'<g id="node\d+" class="node"', svg))
        diff = plan_diff(step.before, step.after)
        assert nodes == sum(1 for _ in plan_tree(step.after).walk()) + len(diff.removed)
        assert step.rule in svg and f"iteration {step.iteration}" in svg
        if step.phase == "optimizer":
            assert "✓ resolved" in svg
    pushed = _step(traces["q21"], "PushDownPredicates")
    assert "moved" in tk.to_svg(pushed)


def test_the_report_holds_every_step_and_the_comparison(traces, tmp_path):
    trace = traces["q21"]
    page = tk.write_report(trace, tmp_path / "q21.html").read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page and "<script" not in page
    assert page.count('<h2 id="step') == len(trace.steps)
    assert trace.comparison.statement.replace("'", "&#x27;") in page
    assert page.count("<svg") >= len(trace.steps)


def test_query_text_is_escaped_in_every_printer(spark, tmp_path):
    hostile = "<script>alert(1)</script>\x1b[31m"
    trace = catalyst_steps(f"select n_name from nation where n_comment = '{hostile}'")
    page = tk.write_report(trace, tmp_path / "h.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert "\x1b" not in tk.to_text(trace, width=80, color=False)
    for step in trace.steps:
        assert "<script>alert" not in tk.to_svg(step)


def test_the_explorer_steps_through_them(traces):
    from widgets import Explorer

    trace = traces["q21"]
    explorer = Explorer(trace)
    seen = []
    for i in range(len(trace.steps)):
        explorer.go(i)
        seen.append(explorer.header.value)
        assert "<svg" in explorer.tree.value
    assert all(s.rule in h for s, h in zip(trace.steps, seen))
    explorer.go([s.rule for s in trace.steps].index("PushDownPredicates"))
    assert "same output schema" in explorer.rules.value


def test_the_cli_prints_a_sql_file_over_parquet_tables(spark, tmp_path, capsys):
    query = tmp_path / "q3.sql"
    query.write_text(Q.sql(3) + ";\n", encoding="utf-8")
    paths = tpch.tables(0.01, names=Q.TABLES)
    tables = [a for n in ("customer", "orders", "lineitem") for a in ("--table", f"{n}={paths[n]}")]
    code = cli.main(["catalyst", str(query), *tables, "--exclude", "PushDownPredicates",
                     "--html", str(tmp_path / "q3.html")])
    spark.conf.unset("spark.sql.optimizer.excludedRules")
    out = capsys.readouterr().out
    assert code == 0
    assert "changed the plan" in out and "equals Spark's optimizedPlan" in out
    assert "excluded: PushDownPredicates" in out
    assert (tmp_path / "q3.html").exists()
    assert cli.main(["catalyst", str(tmp_path / "missing.sql")]) == 2
    assert "no such file" in capsys.readouterr().err
