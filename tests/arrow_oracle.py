"""pyarrow's own kernel as the oracle for one call, in every layout a user's data comes in.

`check_like_arrow(name, args, options)` runs `name(args...)` through exprscope
(lazy and eager) and through `pc.call_function`, and asserts the two agree on
value and type. Each case runs over four layouts, because each exercises other
code in a columnar engine:

- "plain": every argument a column of one RecordBatch;
- "sliced": the same columns cut out of longer arrays (non-zero offsets, other
  values around them, as a user's slice of a bigger batch has);
- "chunked": a Table whose columns are split into several chunks, one of them empty;
- "scalar": each argument in turn a literal (its first row) instead of a column,
  and all of them literals at once. Arrow's answer is then Acero's projection of
  the same expression, since binding gives a literal the type exprscope gives it.

Types are compared exactly and values logically: `.equals`, or else the Python
values with each float by its repr (NaN equals NaN, -0.0 is not 0.0); a
dictionary-typed result by its values (which dictionary encodes them is not a value).

When Arrow raises, exprscope must raise an `ExprscopeError` in eager mode; in
lazy mode it may instead return a value (a branch that no row takes is never
run), but never another kind of exception.

A call that a fused group may hold (`FUSABLE`) also runs as `coalesce(call, call)`,
unsimplified: the same value, as a tree of two cheap calls, so every case runs
through the fused pass too wherever its types and semantics let it fuse.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

import toolkit as tk
from toolkit.errors import ExprscopeError

LAYOUTS = ("plain", "sliced", "chunked", "scalar")
FUSABLE = {"add", "subtract", "multiply", "divide", "negate", "equal", "not_equal", "less",
           "less_equal", "greater", "greater_equal", "and", "or", "invert", "and_kleene",
           "or_kleene", "if_else", "coalesce", "cast"}
MODES = ("lazy", "eager")


def check_like_arrow(name: str, args, options=None, *, layouts=LAYOUTS, modes=MODES):
    """Assert exprscope's `name(args)` equals pyarrow's in every layout and mode.

    `args` are pa.Arrays of one length and pa.Scalars (a scalar stays a literal
    in every layout). Returns the number of (layout, mode) runs compared.
    """
    args = list(args)
    arrays = [a for a in args if isinstance(a, pa.Array)]
    if len({len(a) for a in arrays}) > 1:
        raise AssertionError(f"{name}: array arguments differ in length")
    runs = 0
    for layout in layouts:
        for data, inputs in _layouts(layout, args):
            expected, arrow_error = _arrow(name, inputs, options, data)
            expr = tk.call(name, [_operand(i, x) for i, x in enumerate(inputs)], options)
            for mode in modes:
                where = f"{name} [{layout}, {mode}] on {_describe(inputs)}"
                try:
                    got = tk.evaluate(expr, data, mode=mode)
                except ExprscopeError as err:
                    if arrow_error is None:
                        raise AssertionError(f"{where}: exprscope raised {err!r}, Arrow gave "
                                             f"{expected!r}") from err
                    runs += 1
                    continue
                if arrow_error is not None:
                    if mode == "eager":
                        raise AssertionError(
                            f"{where}: Arrow raised {arrow_error!r}, exprscope gave {got!r}")
                    runs += 1
                    continue
                _assert_same(where, got, expected)
                runs += 1
            if name in FUSABLE:
                _check_fused(f"{name} [{layout}, fused] on {_describe(inputs)}", expr, data,
                             expected, arrow_error)
    return runs


def _check_fused(where, expr, data, expected, arrow_error):
    """`coalesce(expr, expr)` is `expr`'s value: run as a group of cheap calls, fused."""
    twice = tk.call("coalesce", [expr, expr])
    try:
        got = tk.evaluate(twice, data, simplify=False, fuse=True)
    except ExprscopeError as err:
        if arrow_error is None:
            raise AssertionError(f"{where}: exprscope raised {err!r}, Arrow gave "
                                 f"{expected!r}") from err
        return
    if arrow_error is None:
        _assert_same(where, got, expected)


def _arrow(name, inputs, options, data):
    """Arrow's answer: the kernel itself, or Acero's projection when an argument is a
    literal (binding an expression gives literals types the kernel alone would not)."""
    try:
        if not any(isinstance(x, pa.Scalar) for x in inputs):
            return pc.call_function(name, inputs, options), None
        expr = pc.Expression._call(name, [pc.scalar(x) if isinstance(x, pa.Scalar)
                                          else pc.field(f"c{i}") for i, x in enumerate(inputs)],
                                   options)
        table = data if isinstance(data, pa.Table) else pa.Table.from_batches([data])
        return ds.dataset(table).to_table(columns={"r": expr}).column("r"), None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError,
            pa.ArrowIndexError) as err:
        return None, err


def _operand(i, x):
    return tk.literal(x) if isinstance(x, pa.Scalar) else tk.field(f"c{i}")


def _layouts(layout, args):
    """(data, inputs) pairs: the data to evaluate on and Arrow's inputs in the same layout."""
    length = next((len(a) for a in args if isinstance(a, pa.Array)), 1)
    if layout == "plain":
        yield _batch(args, length), args
    elif layout == "sliced":
        cut = [_sliced(a) if isinstance(a, pa.Array) else a for a in args]
        yield _batch(cut, length), cut
    elif layout == "chunked":
        chunked = [_chunked(a) if isinstance(a, pa.Array) else a for a in args]
        columns = {f"c{i}": a for i, a in enumerate(chunked) if isinstance(a, pa.ChunkedArray)}
        table = pa.table(columns) if columns else pa.table({"_": pa.nulls(length)})
        yield table, chunked
    elif layout == "scalar" and length > 0:
        positions = [i for i, a in enumerate(args) if isinstance(a, pa.Array)]
        choices = [[i] for i in positions] + ([positions] if len(positions) > 1 else [])
        for as_scalar in choices:
            mixed = [a[0] if i in as_scalar else a for i, a in enumerate(args)]
            yield _batch(mixed, length), mixed


def _batch(inputs, length):
    columns = {f"c{i}": a for i, a in enumerate(inputs) if isinstance(a, pa.Array)}
    if not columns:
        return pa.record_batch({"_": pa.nulls(length)})
    return pa.record_batch(columns)


def _sliced(a: pa.Array) -> pa.Array:
    """`a` with a non-zero offset: the middle of [reversed a, a, a]."""
    if len(a) == 0:
        return a
    around = a.take(pa.array(range(len(a) - 1, -1, -1)))
    return pa.concat_arrays([around, a, a]).slice(len(a), len(a))


def _chunked(a: pa.Array) -> pa.ChunkedArray:
    """`a` as three chunks: the first half, an empty chunk, the rest."""
    half = len(a) // 2
    return pa.chunked_array([a.slice(0, half), a.slice(0, 0), a.slice(half)], type=a.type)


def _assert_same(where, got, expected):
    if isinstance(got, pa.Scalar) and not isinstance(expected, pa.Scalar):
        if len(expected) and any(not expected[0].equals(v) for v in expected):
            raise AssertionError(f"{where}: exprscope gave one value, Arrow several")
        expected = expected[0] if len(expected) else expected
    if isinstance(expected, pa.ChunkedArray):
        got = got if isinstance(got, pa.ChunkedArray) else pa.chunked_array([got], got.type)
    if got.type != expected.type:
        raise AssertionError(f"{where}: type {got.type}, Arrow's is {expected.type}")
    if pa.types.is_dictionary(got.type):  # the values, not which dictionary encodes them
        got, expected = _decoded(got), _decoded(expected)
    if not got.equals(expected) and _logical(got) != _logical(expected):
        raise AssertionError(f"{where}:\n  exprscope {_show(got)}\n  Arrow     {_show(expected)}")


def _logical(value):
    """The values as Python sees them, each float by its repr (NaN equal to NaN, -0.0 not
    0.0): `.equals` also compares what no one can read, such as a sparse union's
    unselected children, and finds NaN unequal to itself."""
    py = value.as_py() if isinstance(value, pa.Scalar) else value.to_pylist()
    return _exact(py)


def _exact(py):
    if isinstance(py, float):
        return ("float", repr(py))
    if isinstance(py, (list, tuple)):
        return [_exact(x) for x in py]
    if isinstance(py, dict):
        return {k: _exact(v) for k, v in py.items()}
    return py


def _decoded(value):
    if isinstance(value, pa.Scalar):
        return value.value if value.is_valid else pa.scalar(None, value.type.value_type)
    if isinstance(value, pa.ChunkedArray):
        return pa.chunked_array([c.dictionary_decode() for c in value.chunks],
                                value.type.value_type)
    return value.dictionary_decode()


def _show(value) -> str:
    try:
        return str(value.to_pylist() if hasattr(value, "to_pylist") else value.as_py())
    except (pa.ArrowException, ValueError, TypeError):
        return repr(value)


def _describe(inputs) -> str:
    return ", ".join(f"{'scalar' if isinstance(x, pa.Scalar) else 'array'}<{x.type}>"
                     for x in inputs)
