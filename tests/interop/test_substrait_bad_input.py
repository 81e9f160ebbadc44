"""Bad Substrait input: every case raises `tk.SubstraitError` saying what and where.

Empty, truncated and random bytes; a function the message does not declare or no
extension defines; a field reference past the base schema; arguments of the wrong
types; and the two that could take the process down, a 10,000-deep expression
and a 100 MB message, which run in a child Python with a memory cap and a time
limit (a crash or a hang there is a failure here, not the end of the suite).
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import resource
import signal
import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.substrait as pa_substrait
import pytest
from hypothesis import given
from hypothesis import strategies as st
from substrait import algebra_pb2, plan_pb2
from substrait.extended_expression_pb2 import ExtendedExpression

import toolkit as tk
from tests.interop import substrait_messages as sm
from tests.interop import substrait_mutations as sm_mutations
from toolkit import plan as tk_plan

CHECKOUT = pathlib.Path(tk.__file__).resolve().parent.parent
SCHEMA = pa.schema([("x", pa.int32()), ("s", pa.string())])
GOOD = bytes(pa_substrait.serialize_expressions([pc.field("x") > 3], ["e"], SCHEMA))


def _base_schema():
    return sm.named_struct(pa.schema([("x", pa.int32())]))


def test_empty_bytes():
    with pytest.raises(tk.SubstraitError, match="(?i)no expression|empty"):
        tk.from_substrait(b"")


@pytest.mark.parametrize("keep", [1, 5, len(GOOD) // 3, len(GOOD) // 2, len(GOOD) - 1])
def test_truncated_message(keep):
    with pytest.raises(tk.SubstraitError):
        tk.from_substrait(GOOD[:keep])


@given(st.binary(max_size=300))
def test_random_bytes_are_read_or_refused(data):
    try:
        expr = tk.from_substrait(data)
    except tk.SubstraitError as err:
        assert str(err)
    else:
        assert isinstance(expr, tk.Expression)


@given(st.integers(0, len(GOOD) - 1), st.integers(0, 255))
def test_one_flipped_byte_is_read_or_refused(position, value):
    data = bytearray(GOOD)
    data[position] = value
    try:
        tk.from_substrait(bytes(data))
    except tk.SubstraitError as err:
        assert str(err)


def test_not_a_message_at_all():
    with pytest.raises(tk.SubstraitError):
        tk.from_substrait("x > 3")


def test_unknown_extension_function_is_named():
    call = sm.call(0, [sm.field(0), sm.literal("3", "i32")], sm.substrait_type("bool?"))
    message = sm.extended_expression(
        call, functions=[("functions_comparison", "no_such_function")],
        base_schema=_base_schema())
    with pytest.raises(tk.SubstraitError, match="no_such_function"):
        tk.from_substrait(message.SerializeToString())


def test_call_of_an_undeclared_anchor_names_the_anchor():
    call = sm.call(7, [sm.field(0), sm.literal("3", "i32")], sm.substrait_type("bool?"))
    message = sm.extended_expression(call, functions=[("functions_comparison", "gt")],
                                     base_schema=_base_schema())
    with pytest.raises(tk.SubstraitError, match="7"):
        tk.from_substrait(message.SerializeToString())


def test_field_reference_past_the_schema_names_the_index():
    message = sm.extended_expression(sm.field(5), base_schema=_base_schema())
    with pytest.raises(tk.SubstraitError, match="5"):
        tk.from_substrait(message.SerializeToString())


def test_nested_reference_into_a_non_struct_is_refused():
    message = sm.extended_expression(sm.field(0, 1), base_schema=_base_schema())
    with pytest.raises(tk.SubstraitError):
        tk.from_substrait(message.SerializeToString())


def test_arguments_of_the_wrong_types_name_the_function():
    call = sm.call(0, [sm.field(0), algebra_pb2.Expression(
        literal=algebra_pb2.Expression.Literal(string="three"))], sm.substrait_type("i32?"))
    message = sm.extended_expression(call, functions=[("functions_arithmetic", "add")],
                                     base_schema=_base_schema())
    with pytest.raises(tk.SubstraitError, match="add"):
        tk.from_substrait(message.SerializeToString())


def test_literal_without_a_value_is_refused():
    message = sm.extended_expression(algebra_pb2.Expression(
        literal=algebra_pb2.Expression.Literal()))
    with pytest.raises(tk.SubstraitError, match="(?i)literal"):
        tk.from_substrait(message.SerializeToString())


# --- in a child process ----------------------------------------------------------------

_CHILD = r"""
import json, pathlib, sys, time, traceback
import toolkit as tk
data = pathlib.Path(sys.argv[1]).read_bytes()
start = time.monotonic()
try:
    tk.from_substrait(data)
except tk.SubstraitError as exc:
    answer = {"outcome": "refused", "message": str(exc)[:2000]}
except BaseException:
    answer = {"outcome": "raised", "message": traceback.format_exc()[-2000:]}
else:
    answer = {"outcome": "read", "message": ""}
answer["seconds"] = time.monotonic() - start
print(json.dumps(answer), flush=True)
"""


def read_in_child(data: bytes, tmp_path, *, memory_bytes=2 << 30, seconds=60.0) -> dict:
    path = tmp_path / "message.bin"
    path.write_bytes(data)

    def cap_memory():
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], check=False,
                              capture_output=True, text=True, timeout=seconds,
                              cwd=CHECKOUT, env=env,
                              preexec_fn=cap_memory)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "message": f"no answer in {seconds} s"}
    if done.returncode != 0 or not done.stdout.strip():
        return {"outcome": "crashed", "message": f"exit {done.returncode}: {done.stderr[-2000:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | 0x80 if n else byte)
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def deep_message(depth: int) -> bytes:
    """not(not(...not(x > 3)...)) as raw protobuf bytes: the generated classes refuse
    to build messages that deep, so the nesting is written by hand."""
    Expression = algebra_pb2.Expression
    scalar_function = Expression.DESCRIPTOR.fields_by_name["scalar_function"].number
    fn = Expression.ScalarFunction.DESCRIPTOR.fields_by_name
    value_field = algebra_pb2.FunctionArgument.DESCRIPTOR.fields_by_name["value"].number
    output = _field(fn["output_type"].number, sm.substrait_type("bool?").SerializeToString())
    inner = sm.call(1, [sm.field(0), sm.literal("3", "i32")],
                    sm.substrait_type("bool?")).SerializeToString()
    for _ in range(depth):
        call = (_varint(fn["function_reference"].number << 3) + _varint(0) + output
                + _field(fn["arguments"].number, _field(value_field, inner)))
        inner = _field(scalar_function, call)
    shell = sm.extended_expression(
        algebra_pb2.Expression(), functions=[("functions_boolean", "not"),
                                             ("functions_comparison", "gt")],
        base_schema=_base_schema())
    reference = shell.referred_expr[0]
    names = reference.output_names[0]
    del shell.referred_expr[:]
    ref_fields = type(reference).DESCRIPTOR.fields_by_name
    referred = _field(ref_fields["expression"].number, inner) + _field(
        ref_fields["output_names"].number, names.encode())
    number = type(shell).DESCRIPTOR.fields_by_name["referred_expr"].number
    return shell.SerializeToString() + _field(number, referred)


def test_deep_message_is_what_it_says():
    """The hand-written nesting is the message it claims: pyarrow's consumer reads
    a shallow one (checked on 3 levels: not(not(not(x > 3))))."""
    shallow = deep_message(3)
    from substrait import extended_expression_pb2
    message = extended_expression_pb2.ExtendedExpression.FromString(shallow)
    expr = pa_substrait.deserialize_expressions(sm.for_arrow(message)).expressions["e0"]
    assert str(expr).count("invert") == 3


@pytest.mark.slow
def test_ten_thousand_deep_expression_is_refused_in_bounded_time(tmp_path):
    answer = read_in_child(deep_message(10_000), tmp_path)
    assert answer["outcome"] == "refused", answer
    assert any(w in answer["message"].lower() for w in ("deep", "depth", "nest")), answer


@pytest.mark.slow
def test_hundred_megabyte_message_is_refused_in_bounded_time(tmp_path):
    big = sm.extended_expression(algebra_pb2.Expression(
        literal=algebra_pb2.Expression.Literal(string="x" * (100 << 20))))
    answer = read_in_child(big.SerializeToString(), tmp_path)
    assert answer["outcome"] == "refused", answer
    assert any(w in answer["message"].lower() for w in ("size", "bytes", "large", "mb")), answer


# --- values Python cannot hold, removed fields of another wire type ---------------------

L = algebra_pb2.Expression.Literal


def _literal_message(lit: algebra_pb2.Expression.Literal) -> bytes:
    return sm.extended_expression(algebra_pb2.Expression(literal=lit)).SerializeToString()


def _timestamp(value: int, precision: int) -> algebra_pb2.Expression.Literal:
    lit = L()
    lit.precision_timestamp.precision = precision
    lit.precision_timestamp.value = value
    return lit


def test_an_empty_struct_literal_reads_as_pyarrow_reads_it_and_round_trips():
    empty = bytes(pa_substrait.serialize_expressions([pc.scalar(pa.scalar({}, pa.struct([])))],
                                                     ["e"], SCHEMA))
    assert str(pa_substrait.deserialize_expressions(empty).expressions["e"]) == "{}"
    e = tk.from_substrait(empty)
    assert e.value == pa.scalar({}, pa.struct([]))
    assert tk.from_substrait(e.to_substrait(SCHEMA)).equals(e)


@pytest.mark.parametrize("inner, arrow", [
    (L(date=2**31 - 1), pa.scalar(2**31 - 1, pa.int32()).cast(pa.date32())),
    (_timestamp(2**62, 6), pa.scalar(2**62, pa.int64()).cast(pa.timestamp("us"))),
    (_timestamp(-2**63, 9), pa.scalar(-2**63, pa.int64()).cast(pa.timestamp("ns"))),
], ids=["date 2**31-1", "2**62 us", "-2**63 ns"])
def test_values_python_cannot_hold_are_read_exactly_in_structs_and_lists(inner, arrow):
    struct = L()
    struct.struct.fields.add().CopyFrom(inner)
    got = tk.from_substrait(_literal_message(struct)).value
    assert got.type == pa.struct([pa.field("", arrow.type)])
    assert got[0].equals(arrow)
    listed = L()
    listed.list.values.add().CopyFrom(inner)
    listed.list.values.add().CopyFrom(inner)
    got = tk.from_substrait(_literal_message(listed)).value
    assert got.type == pa.list_(arrow.type)
    assert got.values.equals(pa.repeat(arrow, 2))
    assert str(tk.from_substrait(_literal_message(listed)))  # prints without Python values


def test_a_decimal_of_precision_zero_is_refused_not_read_as_38_digits():
    lit = L()
    lit.decimal.value = (5).to_bytes(16, "little", signed=True)
    with pytest.raises(tk.SubstraitError, match=r"decimal\(0, 0\) is not a valid decimal.*"
                                                r"referred_expr\[0\]\.expression\.literal"):
        tk.from_substrait(_literal_message(lit))
    cast = algebra_pb2.Expression()
    cast.cast.type.decimal.scale = 0
    cast.cast.input.CopyFrom(sm.field(0))
    message = sm.extended_expression(cast, base_schema=_base_schema())
    with pytest.raises(tk.SubstraitError, match=r"decimal\(0, 0\).*cast\.type"):
        tk.from_substrait(message.SerializeToString())


def _with_old_field(message, number: int, value):
    from toolkit.interop.substrait.old_fields import add_old_field
    add_old_field(message, number, value)
    return message


@pytest.mark.parametrize("number, what", [(14, "timestamp"), (27, "timestamp_tz"),
                                          (17, "time")])
def test_a_removed_literal_field_of_another_wire_type_is_refused_by_name(number, what):
    lit = _with_old_field(L(), number, algebra_pb2.Expression.Literal(boolean=True))
    with pytest.raises(tk.SubstraitError, match=rf"field {number} here is the old {what} "
                                                r"literal.*arrives as a length-delimited.*"
                                                r"referred_expr\[0\]\.expression\.literal"):
        tk.from_substrait(_literal_message(lit))


T = pa.table({"a": pa.array([1, 2, 3, None], pa.int64()), "s": ["x", "y", None, "x"]})


def _plan(p) -> plan_pb2.Plan:
    return plan_pb2.Plan.FromString(p.to_substrait())


@pytest.mark.parametrize("number, what", [(3, "offset"), (4, "count")])
def test_a_fetchs_removed_number_as_bytes_is_refused_by_name(number, what):
    message = _plan(tk_plan.scan("t", T).limit(2, 1))
    fetch = message.relations[0].root.input.fetch
    bare = algebra_pb2.FetchRel()
    bare.input.CopyFrom(fetch.input)
    fetch.CopyFrom(_with_old_field(bare, number, algebra_pb2.Expression()))
    with pytest.raises(tk.SubstraitError, match=rf"field {number} here is the old {what}.*"
                                                r"length-delimited.*root\.input\.fetch\)"):
        tk_plan.from_substrait(message, {"t": T})


def test_an_aggregates_removed_grouping_keys_are_refused_when_not_expressions():
    message = _plan(tk_plan.scan("t", T).aggregate(["s"], [("count", None, "n")]))
    aggregate = message.relations[0].root.input.aggregate
    aggregate.ClearField("grouping_expressions")
    aggregate.ClearField("groupings")
    grouping = aggregate.groupings.add()
    grouping.MergeFromString(b"\x08\x07")  # field 1 as a number
    where = r"root\.input\.aggregate\.groupings\[0\]"
    with pytest.raises(tk.SubstraitError, match=r"field 1 here is the old grouping_expressions"
                                                rf".*arrives as a number.*{where}\)"):
        tk_plan.from_substrait(message, {"t": T})
    grouping.Clear()
    grouping.MergeFromString(b"\x0a\x03\xff\xff\xff")  # field 1 holding no Expression
    with pytest.raises(tk.SubstraitError, match=rf"{where}\.grouping_expressions\[0\]: the "
                                                r"bytes are not a Substrait Expression"):
        tk_plan.from_substrait(message, {"t": T})


def test_a_datafusion_self_join_is_refused_naming_its_columns_and_sides():
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    ctx.register_record_batches("t", [T.to_batches()])
    data = Serde.serialize_bytes("select x.a, y.s from t x join t y on x.a = y.a", ctx)
    with pytest.raises(tk.SubstraitError, match=r"both sides of the join have columns t\.a\b"
                                                r".*the condition is \(t\.a \(left\) == "
                                                r"t\.a \(right\)\) \(at relations\[0\]") as info:
        tk_plan.from_substrait(data, {"t": T})
    assert "FieldPath" not in str(info.value)


# --- mutated messages from pyarrow's and DataFusion's own --------------------------------

WIDE = pa.schema([("i", pa.int64()), ("f", pa.float64()), ("s", pa.string()),
                  ("d", pa.date32()), ("ts", pa.timestamp("us")), ("n", pa.decimal128(12, 3)),
                  ("l", pa.list_(pa.int32())), ("b", pa.bool_()), ("t", pa.time64("us"))])
_column = pc.field


def _pyarrow_seeds() -> list[bytes]:
    """ExtendedExpressions as pyarrow writes them (old URI extensions and literal fields)."""
    expressions = [
        (_column("i") + 3) * _column("i") > 10,
        pc.if_else(_column("b"), _column("s"), pc.scalar("none")),
        pc.is_in(_column("i"), value_set=pa.array([1, 2, 3])),
        _column("ts") > pc.scalar(pa.scalar(1_700_000_000_000_000, pa.timestamp("us"))),
        _column("n") + pc.scalar(pa.scalar(1, pa.decimal128(12, 3))),
        _column("d") == pc.scalar(pa.scalar(19_000, pa.date32())),
        _column("i").cast(pa.float64(), safe=False) / _column("f"),
        pc.is_null(_column("l")),
        pc.scalar(pa.scalar({"x": 1, "y": "z"})),
        pc.scalar(pa.scalar([1, None, 3], pa.list_(pa.int64()))),
        _column("t") < pc.scalar(pa.scalar(3_600_000_000, pa.time64("us"))),
        pc.and_kleene(_column("b"), pc.invert(pc.is_null(_column("s")))),
    ]
    return [bytes(pa_substrait.serialize_expressions([e], ["e"], WIDE)) for e in expressions]


PLAN_TABLES = {"t": T, "u": pa.table({"a": pa.array([1, 5], pa.int64()),
                                      "y": pa.array([0.5, None], pa.float64())})}


def _plan_seeds() -> list[bytes]:
    """Plans as DataFusion writes them, and as exprscope writes them for Acero (with the
    fields Substrait removed beside the current ones)."""
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    for name, table in PLAN_TABLES.items():
        ctx.register_record_batches(name, [table.to_batches()])
    queries = [
        "select a + 1 as b, s from t where a > 1 and s is not null",
        "select s, count(*) as n, sum(a) as total from t group by s",
        "select t.a, y from t join u on t.a = u.a where y > 0",
        "select * from t order by a desc nulls first limit 2 offset 1",
        "select case when a > 2 then 'big' else s end as c, cast(a as double) / 2 as h from t",
        "select a from t where s in ('x', 'y') or a between 1 and 2",
    ]
    seeds = [bytes(Serde.serialize_bytes(q, ctx)) for q in queries]
    t = tk_plan.scan("t", T)
    seeds += [t.aggregate(["s"], [("count", None, "n"), ("max", "a", "m")]).to_substrait(),
              t.sort([("a", "descending")]).limit(2, 1).to_substrait(),
              t.filter(tk.field("a") > 1).project([tk.field("a") * 2], names=["d"])
              .to_substrait()]
    return seeds


EXPRESSION_SEEDS = _pyarrow_seeds()
PLAN_SEEDS = _plan_seeds()


@contextlib.contextmanager
def _no_hang(seconds: float):
    """Turn a read that never ends into a failure, not a stuck suite (no timing asserted)."""
    def stop(signum, frame):
        raise AssertionError(f"no answer in {seconds} s: the read does not end")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_seeds_read_as_they_are():
    for data in EXPRESSION_SEEDS:
        assert str(tk.from_substrait(data))
    for data in PLAN_SEEDS:
        assert tk_plan.from_substrait(data, PLAN_TABLES).explain()


@given(sm_mutations.mutated(EXPRESSION_SEEDS)
       | sm_mutations.mutated_messages(EXPRESSION_SEEDS, ExtendedExpression))
def test_mutated_pyarrow_expressions_are_read_or_refused_with_a_substrait_error(data):
    with _no_hang(30):
        try:
            expr = tk.from_substrait(data)
        except tk.SubstraitError as err:
            assert str(err)
        else:
            assert str(expr)  # what is read prints


@given(sm_mutations.mutated(PLAN_SEEDS) | sm_mutations.mutated_messages(PLAN_SEEDS, plan_pb2.Plan))
def test_mutated_plans_are_read_or_refused_with_a_substrait_error(data):
    with _no_hang(30):
        try:
            p = tk_plan.from_substrait(data, PLAN_TABLES)
        except tk.SubstraitError as err:
            assert str(err)
        else:
            assert p.explain()


def test_a_literal_of_bytes_that_are_not_utf8_in_a_list_reads_and_prints():
    """A list of bytes that are not UTF-8: Arrow prints them raw (text pyarrow cannot
    decode); exprscope reads the literal and prints the Python value's repr instead."""
    lit = L()
    lit.list.values.add().binary = b"\xff\x00"
    read = tk.from_substrait(_literal_message(lit))
    assert read.is_literal and read.value.as_py() == [b"\xff\x00"]
    assert "\\xff" in str(read)


