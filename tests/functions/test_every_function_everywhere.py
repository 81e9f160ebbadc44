"""Every function works wherever an expression goes: SQL text, pyarrow expressions,
constant folding, pictures and traces, with its first signature pyarrow and exprscope run."""

from __future__ import annotations

import itertools

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.errors import ExprscopeError
from toolkit.functions import function_names, get_function

from .options_for import options_for
from .test_every_pyarrow_function import PYARROW_CANNOT_RETURN, sample, type_combos

NAMES = [n for n in function_names() if n not in PYARROW_CANNOT_RETURN and n != "cast"]


def _first_runnable(name: str):
    """Arguments (as fields over a batch) and options of the first call pyarrow runs."""
    for types, flip in itertools.product(type_combos(name), (False, True)):
        columns = [f"a{i}" for i in range(len(types))]
        batch = pa.record_batch([sample(t, second=(i > 0) != flip) for i, t in enumerate(types)],
                                columns)
        options = options_for(name, types)
        values = list(batch.columns)
        if name == "list_element":
            values[1] = values[1][3]
        try:
            pc.call_function(name, values, options)
            args = [tk.field(c) for c in columns]
            if name == "list_element":
                args[1] = tk.literal(values[1])
            tk.evaluate(tk.call(name, args, options).bind(batch.schema), batch)
        except (pa.ArrowException, ExprscopeError, ValueError, KeyError):
            continue
        return batch, args, values, options
    pytest.fail(f"no sampled call of {name} runs")


@pytest.mark.parametrize("name", NAMES)
def test_function_round_trips_and_folds(name):
    batch, args, values, options = _first_runnable(name)
    call = tk.call(name, args, options)
    assert tk.from_pyarrow(call.to_pyarrow()).equals(call)
    try:
        sql = call.to_sql()
    except ExprscopeError as exc:  # options holding arrays or scalars have no SQL keywords
        assert "no SQL text" in str(exc)
    else:
        parsed = tk.parse(sql)  # the same call, or one spelling its default options out
        assert parsed.equals(call) or parsed.to_sql() == sql, sql
    bound = call.bind(batch.schema)
    assert name in tk.to_text(bound) or get_function(name).kind.value in tk.to_text(bound)
    assert tk.to_dot(bound).source

    row = [v[0] if isinstance(v, pa.Array) else v for v in values]
    literals = tk.call(name, [tk.literal(v) for v in row], options).bind(pa.schema([]))
    folded = tk.fold_constants(literals)
    try:
        expected = pc.call_function(name, row, options)
    except pa.ArrowException:
        return  # the row fails in pyarrow: folding must leave the call to fail at run time
    assert folded.is_literal, folded
    assert folded.value.equals(expected) or folded.value.as_py() == expected.as_py() or (
        expected.as_py() != expected.as_py())  # NaN


@pytest.mark.parametrize("name", NAMES)
def test_function_evaluates_under_a_trace_that_draws_it(name):
    batch, args, _, options = _first_runnable(name)
    bound = tk.call(name, args, options).bind(batch.schema)
    with tk.trace() as trace:
        value = tk.evaluate(bound, batch)
    assert str(value.to_pylist()) == str(tk.evaluate(bound, batch, mode="eager").to_pylist())
    event = trace.evaluations[-1]
    root = next(s for s in event.nodes if s.path == ())
    assert root.rows == batch.num_rows
    text = tk.to_text(event)
    assert name in text or get_function(name).kind.value in text, text
    assert tk.to_dot(event).source


def test_explain_scan_takes_filters_with_the_new_functions(tmp_path):
    """Row groups of two rows: all null, all infinite (min = max = inf), finite, with NaN.
    explain_scan keeps exactly the row groups pyarrow's scan reads, skips some, and the
    filter it binds selects pyarrow's rows."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    inf, nan = float("inf"), float("nan")
    table = pa.table({"x": [None, None, inf, inf, 1.0, 2.0, 3.0, 3.0, nan, 1.0],
                      "b": [None, None, b"ab", b"ab", b"abcdefg", b"a", b"xyzxyzxyz",
                            b"xyzxyzxyz", b"q", b"q"]})
    pq.write_table(table, tmp_path / "d.parquet", row_group_size=2)
    dataset = ds.dataset(tmp_path / "d.parquet")
    (fragment,) = dataset.get_fragments()
    for text, arrow in [("is_finite(x)", pc.is_finite(pc.field("x"))),
                        ("not is_inf(x)", ~pc.is_inf(pc.field("x"))),
                        ("binary_length(b) > 5", pc.binary_length(pc.field("b")) > 5),
                        ("octet_length(b) > 5", pc.binary_length(pc.field("b")) > 5)]:
        explanation = tk.explain_scan(dataset, tk.parse(text))
        kept = [g.id for g in explanation.fragments[0].row_groups if g.kept]
        assert kept == [g.id for g in fragment.subset(filter=arrow).row_groups], text
        assert len(kept) < 5, f"{text}: no row group skipped"
        expected = dataset.to_table(filter=arrow)
        got = dataset.to_table(filter=tk.parse(text).bind(dataset.schema).to_pyarrow())
        assert str(got.to_pylist()) == str(expected.to_pylist())  # NaN rows are kept
