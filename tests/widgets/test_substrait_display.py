"""After `%load_ext widgets`, a Substrait message displays as the expressions or plan it holds."""

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.substrait as pa_substrait
import pytest
from substrait.extended_expression_pb2 import ExtendedExpression
from substrait.plan_pb2 import Plan

import toolkit as tk
from toolkit import plan

SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.int64()), ("s", pa.string())])
REPO = Path(__file__).resolve().parents[2]


def message(data) -> ExtendedExpression:
    out = ExtendedExpression()
    out.ParseFromString(bytes(data))
    return out


def test_one_expression_displays_as_the_expression_does(ip):
    expr = tk.parse("if_else(a != 0, b / a, 0)")
    data, _ = ip.display_formatter.format(message(expr.to_substrait(SCHEMA)))
    expected, _ = ip.display_formatter.format(tk.bind(expr, SCHEMA))
    assert data["text/plain"] == expected["text/plain"]
    assert "</svg>" in data.get("image/svg+xml", "</svg>")  # SVG where graphviz runs


def test_several_expressions_are_each_drawn_under_their_escaped_name(ip):
    sent = pa_substrait.serialize_expressions(
        [pc.field("a") > 1, pc.field("s") == "<b>&"], ["big", "<i>odd</i>"], SCHEMA)
    data, _ = ip.display_formatter.format(message(sent))
    assert "big: bool" in data["text/plain"] and "<i>odd</i>: bool" in data["text/plain"]
    page = data["text/html"]
    assert page.count('class="exprscope-substrait-expression"') == 2
    assert "&lt;i&gt;odd&lt;/i&gt;: bool" in page and "<i>" not in page
    assert "<b>&" not in page  # the literal is escaped inside the drawing too


def test_a_message_exprscope_cannot_read_says_why_above_its_text(ip):
    unreadable = message(tk.parse("a + 1").to_substrait(SCHEMA))
    unreadable.extensions[0].extension_function.name = "<no_such_function>"
    data, _ = ip.display_formatter.format(unreadable)
    assert data["text/plain"].startswith("exprscope cannot draw this Substrait ExtendedExpression")
    assert "referred_expr" in data["text/plain"]  # protobuf's own text follows
    assert "<no_such_function>" not in data["text/html"]


def test_the_classes_are_not_changed():
    assert "_repr_mimebundle_" not in vars(ExtendedExpression)
    assert "_repr_mimebundle_" not in vars(Plan)


def test_loading_the_extension_loads_no_protobuf():
    code = ("import sys\nfrom IPython.testing.globalipapp import start_ipython\n"
            "ip = start_ipython()\nip.run_line_magic('load_ext', 'widgets')\n"
            "print(sorted(m for m in sys.modules if m.startswith(('substrait', 'google.protobuf',"
            " 'toolkit.interop.substrait', 'widgets.substrait_display'))))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=True,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.fixture
def sql_plan() -> Plan:
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    ctx.register_record_batches("d", [[pa.RecordBatch.from_pylist([], schema=SCHEMA)]])
    out = Plan()
    out.ParseFromString(bytes(Serde.serialize_bytes("SELECT s FROM d WHERE a > 0", ctx)))
    return out


def test_a_plan_displays_through_plan_from_substrait_on_empty_tables(ip, sql_plan, monkeypatch):
    given = {}

    def reader(message, tables):  # a stand-in: this tests the display, not the reader
        given.update(tables)
        return plan.scan("d", tables["d"]).filter(tk.field("a") > 0).project(["s"])

    monkeypatch.setattr(plan, "from_substrait", reader, raising=False)
    data, _ = ip.display_formatter.format(sql_plan)
    assert given["d"].num_rows == 0 and given["d"].schema == SCHEMA
    expected, _ = ip.display_formatter.format(reader(sql_plan, given))
    assert data["text/plain"] == expected["text/plain"]


@pytest.mark.skipif(not hasattr(plan, "from_substrait"),
                    reason="plan.from_substrait (Substrait plans) has not landed")
def test_datafusions_plan_displays_as_its_logical_plan(ip, sql_plan):
    data, _ = ip.display_formatter.format(sql_plan)
    assert "cannot draw" not in data["text/plain"] and "d" in data["text/plain"]
