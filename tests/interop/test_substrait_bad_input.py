"""Bad Substrait input: every case raises `tk.SubstraitError` saying what and where.

Empty, truncated and random bytes; a function the message does not declare or no
extension defines; a field reference past the base schema; arguments of the wrong
types; and the two that could take the process down, a 10,000-deep expression
and a 100 MB message, which run in a child Python with a memory cap and a time
limit (a crash or a hang there is a failure here, not the end of the suite).
"""

from __future__ import annotations

import json
import os
import pathlib
import resource
import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.substrait as pa_substrait
import pytest
from hypothesis import given
from hypothesis import strategies as st
from substrait import algebra_pb2

import toolkit as tk
from tests.interop import substrait_messages as sm

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
