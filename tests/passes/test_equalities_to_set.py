"""`x = 'A' or x = 'B'` becomes one `is_in` in simplify_identities, and `x <> 'A' and
x <> 'B'` one inverted `is_in`, with Arrow's values.

The oracle is the original or-chain run by pyarrow.compute (Kleene or plain), over
string and binary columns with nulls and literals on either side; the rewrite must
fire where two equalities share an operand, and show as a rule in the trace.
"""

from __future__ import annotations

import functools

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as tk

MODES = ["MAIL", "SHIP", "AIR", "REG AIR", "", "é"]
TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]


def _scalar(value, t):
    return pa.scalar(value.encode() if pa.types.is_binary(t) or pa.types.is_large_binary(t)
                     else value, t)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(TYPES), st.lists(st.sampled_from(MODES + [None]), min_size=1, max_size=40),
       st.lists(st.tuples(st.sampled_from(["m", "n"]), st.sampled_from(MODES), st.booleans()),
                min_size=1, max_size=6),
       st.sampled_from(["or", "or_kleene", "and", "and_kleene"]))
def test_or_of_equalities_keeps_arrows_values(t, rows, terms, name):
    m = pa.array([None if v is None else _scalar(v, t).as_py() for v in rows], t)
    n = pa.array(list(reversed(m.to_pylist())), t)
    table = pa.table({"m": m, "n": n})
    calls, oracle = [], []
    comparison = "equal" if name.startswith("or") else "not_equal"
    for column, value, literal_first in terms:
        lit = _scalar(value, t)
        args = [tk.literal(lit), tk.field(column)] if literal_first else [tk.field(column),
                                                                          tk.literal(lit)]
        calls.append(tk.call(comparison, args))
        oracle.append(getattr(pc, comparison)(table[column], lit))
    expr = functools.reduce(lambda a, b: tk.call(name, [a, b]), calls)
    want = functools.reduce(lambda a, b: getattr(pc, name)(a, b), oracle)
    with tk.trace() as trace:
        optimized = tk.optimize(expr, table.schema)
    got = tk.evaluate(optimized, table)
    assert got.combine_chunks().to_pylist() == want.combine_chunks().to_pylist()
    shared = len({(c, v) for c, v, _ in terms if c == "m"}) > 1 or \
        len({(c, v) for c, v, _ in terms if c == "n"}) > 1
    rule = "equalities" if comparison == "equal" else "inequalities"
    fired = f"identities/{rule}-to-set-lookup" in tk.to_text(trace)
    assert fired == shared
    assert ("is_in" in str(optimized)) == shared


def test_other_types_stay_equalities():
    """is_in matches NaN to NaN where equal does not: floats are left alone."""
    table = pa.table({"x": pa.array([float("nan"), 1.0, None])})
    expr = tk.parse("x = 1.0 or x = 2.0")
    assert "is_in" not in str(tk.optimize(expr, table.schema))
