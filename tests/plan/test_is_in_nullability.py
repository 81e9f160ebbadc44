"""A plan declares `is_in` nullable exactly when its null-matching behaviour can emit a null
there: Arrow's own evaluation on data holding every case is the oracle (a filter over an
or-chain of string equalities becomes such an `is_in` when optimized)."""

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan
from toolkit.passes.set_lookup import set_lookup_options
from toolkit.plan.logical_fields import nullable

SCHEMA = pa.schema([pa.field("required", pa.string(), nullable=False),
                    pa.field("optional", pa.string())])
# every case at once: a match, a miss and (where the column allows) a null
DATA = pa.table({"required": ["a", "b", "c"], "optional": ["a", "b", None]}, schema=SCHEMA)


@pytest.mark.parametrize("column", ["required", "optional"])
@pytest.mark.parametrize("values", [["a"], ["a", None]], ids=["no null", "a null"])
@pytest.mark.parametrize("behavior", ["match", "skip", "emit_null", "inconclusive"])
def test_declared_nullable_exactly_when_arrow_returns_a_null(column, values, behavior):
    expr = tk.call("is_in", [tk.field(column)],
                   set_lookup_options(pa.array(values, pa.string()), behavior)).bind(SCHEMA)
    assert nullable(expr) == (tk.evaluate(expr, DATA).null_count > 0)


def test_an_optimized_or_chain_of_equalities_filters_without_breaking_an_invariant():
    table = pa.table({"k": [1, None, 3, None, 5, 6],
                      "s": ["JFK", None, "EWR", "LGA", None, "x"]})
    query = plan.scan("t", table).filter(tk.parse("is_null(k) or s = 'JFK' or s = 'EWR'"))
    got = plan.create_physical_plan(plan.optimize(query)).collect()
    assert got.column("k").to_pylist() == [1, None, 3, None]
