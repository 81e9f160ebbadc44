"""`%%catalyst`: SQL or a DataFrame expression stepped through Spark's planning, in the
Explorer; bad input is one short message."""

from __future__ import annotations

import pytest

from toolkit.spark import tpch
from toolkit.spark import tpch_queries as Q

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def views(spark):
    Q.register_views(spark, tpch.tables(0.01, names=("nation", "region")))
    return spark


def test_sql_with_an_excluded_rule_steps_without_it(ip, views):
    explorer = ip.run_cell_magic(
        "catalyst", "--exclude PushDownPredicates --out steps",
        "select n_name from nation join region on n_regionkey = r_regionkey "
        "where r_name = 'ASIA'")
    steps = ip.user_ns["steps"]
    assert explorer.steps == list(steps.steps)
    assert "PushDownPredicates" not in {s.rule for s in steps.steps}
    assert steps.comparison.verdict == "equal"
    assert views.conf.get("spark.sql.optimizer.excludedRules", None) is None


def test_a_python_expression_giving_a_dataframe(ip, views):
    ip.user_ns["nation"] = views.table("nation")
    explorer = ip.run_cell_magic("catalyst", "--python",
                                 "nation.where('n_regionkey = 1').select('n_name')")
    assert explorer.trace.comparison.verdict == "equal"
    rules = {s.rule for s in explorer.trace.steps}
    assert "InferFiltersFromConstraints" in rules  # isnotnull(n_regionkey), inferred
    assert "CollapseCodegenStages" in rules  # physical preparation, no exchange to adapt


def test_bad_input_is_one_message(ip, views, capsys):
    assert ip.run_cell_magic("catalyst", "", "   ") is None
    assert "holds no query" in capsys.readouterr().err
    assert ip.run_cell_magic("catalyst", "--python", "1 + 2") is None
    assert "not a Spark DataFrame" in capsys.readouterr().err
    assert ip.run_cell_magic("catalyst", "", "select * from no_such_table") is None
    err = capsys.readouterr().err
    assert "no_such_table" in err and "Traceback" not in err
